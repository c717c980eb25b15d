// Import rules: one per rule that README.md or a folder README states, each naming its README.
// `npm run lint:imports` checks them (scripts/lint-imports.mjs); an "error" fails the build.
// When a README's "May import" / "Must not" line changes, change its rule here with it.

/** Prisma (its client, the generated clients) and the SQL drivers. */
const PRISMA_OR_SQL = "^(node_modules/(@prisma/|prisma/|pg/|pg-[^/]+/|better-sqlite3/)|lib/db/generated/)";
const PRISMA = "^(node_modules/(@prisma/|prisma/)|lib/db/generated/)";
const NEXT_OR_REACT = "^node_modules/(next|react|react-dom)/";

/** A forbidden import: from modules matching `from` to modules matching `to`. */
function forbid(name, comment, from, to, severity = "error") {
  return { name, severity, comment, from, to };
}

/**
 * A folder's "May import" line: from lib/<folder>, an import of lib/ outside `allowed` (folders
 * under lib/, or files named with their extension) fails. lib/errors is always allowed
 * (lib/errors/README.md: anything may import it).
 */
function mayImport(folder, allowed, readme, says, { except } = {}) {
  const allowedPaths = [`^lib/${folder}/`, "^lib/errors/", ...allowed.map((name) => (/\.[cm]?[jt]sx?$/.test(name) ? `^lib/${name.replaceAll(".", "\\.")}$` : `^lib/${name}/`))];
  return forbid(`${folder}-may-import`, `${readme}: ${says}`, { path: `^lib/${folder}/`, ...(except ? { pathNot: except } : {}) }, { path: "^lib/", pathNot: allowedPaths });
}

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    // README.md (Layout): dependencies point one way, app/ and workers/ -> lib/.
    forbid("lib-not-to-app-or-components", "README.md (Layout) and every lib/ README: lib/ never imports from app/ or components/.", { path: "^lib/" }, { path: "^(app|components)/" }),
    forbid(
      "lib-not-to-entry-points",
      "README.md (Layout): dependencies point one way, app/, workers/ (and e2e/, bench/, test/, bin/) -> lib/; lib/ imports none of them (e2e/fixtures/README.md: nor its fixtures).",
      { path: "^lib/" },
      { path: "^(workers|e2e|bench|test|bin)/" },
    ),
    forbid("components-not-to-app", "README.md (Layout): app/ uses components/, never the other way round.", { path: "^components/" }, { path: "^app/" }),
    forbid(
      "workers-only-to-lib",
      "workers/README.md and README.md (Layout): workers are thin entry points over lib/; they import neither app/ nor components/.",
      { path: "^workers/" },
      { path: "^(app|components|bench|test)/" },
    ),
    forbid("e2e-fixtures-test-only", "e2e/fixtures/README.md: test-only helpers; nothing in app/ (or lib/, above) may import them.", { path: "^(app|components|workers)/" }, { path: "^e2e/" }),
    forbid(
      "no-circular-in-lib",
      "README.md (Layout): each lib/ folder's README says which folders it may import, an order a cycle contradicts. A warning while type-only cycles remain (no-runtime-circular-in-lib fails on the others).",
      { path: "^lib/" },
      { circular: true, path: "^lib/" },
      "warn",
    ),
    forbid(
      "no-runtime-circular-in-lib",
      "README.md (Layout): as no-circular-in-lib, for the cycles that exist at run time (every import in them other than `import type`).",
      { path: "^lib/" },
      { circular: true, path: "^lib/", viaOnly: { dependencyTypesNot: ["type-only"] }, dependencyTypesNot: ["type-only"] },
    ),

    forbid(
      "errors-imports-nothing",
      "lib/errors/README.md: imports nothing (no other lib/ folder, no framework); anything may import it.",
      { path: "^lib/errors/" },
      { pathNot: "^lib/errors/", dependencyTypesNot: ["core"] },
    ),

    mayImport("db", [], "lib/db/README.md", "may import lib/errors, Prisma and the database drivers; nothing else in lib/ (not lib/http, lib/queue, lib/runtime)."),
    forbid(
      "prisma-only-in-db-and-migrations",
      "lib/db/README.md: Prisma is imported only in lib/db and lib/migrations; everything else goes through lib/db's scoped functions.",
      { path: "^(lib|app|components|workers)/", pathNot: "^lib/(db|migrations)/" },
      { path: PRISMA },
    ),

    mayImport("migrations", ["db", "config"], "lib/migrations/README.md", "may import lib/db, lib/errors, lib/config; must not import lib/http, lib/queue or lib/runtime."),

    forbid(
      "config-may-import",
      "lib/config/README.md: may import zod and, from the rest of lib/, only the AuthMode type of lib/auth/principal.ts; it opens no database.",
      { path: "^lib/config/" },
      { path: "^lib/", pathNot: ["^lib/config/", "^lib/auth/principal\\.ts$"] },
    ),
    forbid(
      "config-only-types-of-auth",
      "lib/config/README.md: only the AuthMode type of lib/auth/principal.ts (`import type`).",
      { path: "^lib/config/" },
      { path: "^lib/auth/principal\\.ts$", dependencyTypesNot: ["type-only"] },
    ),
    forbid(
      "config-npm-only-zod",
      "lib/config/README.md: of the installed packages, may import zod (no database driver: it opens no database).",
      { path: "^lib/config/" },
      { path: "^node_modules/", pathNot: "^node_modules/zod/" },
    ),

    mayImport("auth", ["config", "db", "log.ts"], "lib/auth/README.md", "may import lib/config, lib/db, lib/errors and lib/log.ts; must not import lib/http or lib/server."),
    forbid(
      "auth-no-next",
      "lib/auth/README.md: nothing here imports Next.js (next-auth's modules only); the Auth.js instance and the page guards live in lib/http/dashboard/.",
      { path: "^lib/auth/" },
      { path: NEXT_OR_REACT },
    ),

    mayImport("status", ["config", "db", "migrations"], "lib/status/README.md", "may import lib/config, lib/db (the Db type), lib/migrations; must not import lib/http or lib/server."),

    forbid(
      "runtime-not-to-http-queue",
      "lib/runtime/README.md: must not import from app/, lib/http or lib/queue (it defines the RunWriter lib/queue implements), nor lib/runs or lib/server above it.",
      { path: "^lib/runtime/" },
      { path: "^lib/(http|queue|runs|server)/" },
    ),
    forbid(
      "runtime-only-knowledge-search",
      "lib/runtime/README.md: of lib/knowledge, only its search (knowledge-bases.ts and what it builds on), never ingestion, which imports lib/queue.",
      { path: "^lib/runtime/" },
      { path: "^lib/knowledge/", pathNot: "^lib/knowledge/(knowledge-bases|knowledge-base|embedder|fusion|stores/[a-z-]+)\\.ts$" },
    ),
    forbid("workspace-not-to-http-db", "lib/runtime/tools/workspace/README.md: must not import from app/, lib/http or lib/db.", { path: "^lib/runtime/tools/workspace/" }, { path: "^lib/(http|db)/" }),

    mayImport("coordination", ["db", "runtime", "log.ts"], "lib/coordination/README.md", "may import lib/db, lib/runtime, lib/log.ts; must not import lib/http or lib/queue."),

    mayImport("queue", ["db", "runtime", "coordination", "config", "log.ts"], "lib/queue/README.md", "may import lib/db, lib/runtime, lib/coordination, lib/config and lib/log.", {
      except: "^lib/queue/job-catalog\\.ts$",
    }),
    forbid(
      "queue-job-catalog-may-import",
      "lib/queue/README.md: the product's catalog (job-catalog.ts) also imports the folders that declare kinds (lib/scheduler, lib/metrics, lib/evals, lib/knowledge).",
      { path: "^lib/queue/job-catalog\\.ts$" },
      { path: "^lib/", pathNot: ["^lib/(queue|db|runtime|coordination|config|errors|scheduler|metrics|evals|knowledge)/", "^lib/log\\.ts$"] },
    ),
    mayImport(
      "scheduler",
      ["db", "queue", "config", "log.ts"],
      "lib/scheduler/README.md",
      "may import lib/db, lib/queue (the catalog's types, workers, wake-ups), lib/config, lib/errors and lib/log.ts; must not import lib/http, lib/auth, lib/runtime or lib/server (endpoints are called through its port).",
    ),
    mayImport(
      "evals",
      ["db", "runtime", "queue", "config", "log.ts"],
      "lib/evals/README.md",
      "may import lib/db, lib/runtime (running the agent and the judge), lib/queue (the catalog's types, wake-ups, cancel signals), lib/config, lib/errors and lib/log.ts; must not import lib/http, lib/auth or lib/server.",
    ),
    mayImport(
      "knowledge",
      ["db", "queue", "config", "log.ts", "runtime/models/resolve-model.ts"],
      "lib/knowledge/README.md",
      "may import lib/db, lib/queue (the catalog's types, wake-ups), lib/config, lib/errors, lib/log.ts and, of lib/runtime, only the model resolution (the reranker's model); must not import lib/http, lib/auth or lib/server.",
    ),
    mayImport(
      "metrics",
      ["db", "queue", "config", "log.ts"],
      "lib/metrics/README.md",
      "may import lib/db, lib/queue (the catalog's types, enqueueKind), lib/config, lib/errors and lib/log.ts; must not import lib/http, lib/auth, lib/runtime or lib/server.",
    ),
    forbid(
      "metrics-prices-pure",
      "lib/metrics/README.md: prices.ts imports nothing but lib/config's types, so lib/runtime may import it.",
      { path: "^lib/metrics/prices\\.ts$" },
      { path: "^lib/", pathNot: "^lib/config/settings\\.ts$" },
    ),
    forbid(
      "runtime-only-prices-of-metrics",
      "lib/runtime/README.md: of lib/metrics, only the price table (lib/metrics/prices.ts).",
      { path: "^lib/runtime/" },
      { path: "^lib/metrics/", pathNot: "^lib/metrics/prices\\.ts$" },
    ),
    forbid(
      "queue-no-prisma-or-sql",
      "lib/queue/README.md: lib/queue never imports Prisma or SQL (drivers, lib/db/sql.ts); it calls lib/db/jobs.",
      { path: "^lib/queue/" },
      { path: [PRISMA_OR_SQL, "^lib/db/sql\\.ts$"] },
    ),

    mayImport(
      "runs",
      ["auth", "config", "db", "runtime", "queue", "coordination", "log.ts"],
      "lib/runs/README.md",
      "may import lib/auth, lib/config, lib/db, lib/runtime, lib/queue, lib/coordination, lib/log; must not import lib/http.",
    ),

    mayImport("cli", ["config", "db", "migrations", "knowledge"], "lib/cli/README.md", "may import lib/config, lib/db, lib/migrations, lib/knowledge; must not import lib/http."),

    mayImport(
      "http",
      ["auth", "config", "coordination", "db", "evals", "knowledge", "migrations", "queue", "runs", "runtime", "scheduler", "metrics", "status", "log.ts", "server/app-context.ts"],
      "lib/http/README.md",
      "may import lib/auth, lib/config, lib/coordination, lib/db, lib/errors, lib/evals, lib/knowledge, lib/metrics, lib/migrations, lib/queue, lib/runs, lib/runtime, lib/scheduler, lib/status, lib/log.ts and lib/server/app-context.ts.",
    ),

    mayImport(
      "mcp-server",
      ["auth", "config", "http", "runtime/events.ts", "server/app-context.ts", "log.ts"],
      "lib/mcp-server/README.md",
      "may import lib/auth, lib/config, lib/http, lib/runtime/events.ts, lib/server/app-context.ts and lib/log.ts; it queries no database itself (tools act through the route table).",
    ),
    forbid(
      "mcp-server-no-prisma-or-sql",
      "lib/mcp-server/README.md: it opens or queries no database itself; every tool acts through the REST route table as its caller.",
      { path: "^lib/mcp-server/" },
      { path: [PRISMA_OR_SQL, "^lib/db/"] },
    ),

    // lib/server is the composition root: it may import any of lib/.
    forbid(
      "app-context-not-to-http-auth-status",
      "lib/server/README.md: app-context.ts imports nothing from lib/http, lib/auth or lib/status (it is what their callers open the database with).",
      { path: "^lib/server/app-context\\.ts$" },
      { path: "^lib/(http|auth|status)/" },
    ),

    forbid(
      "next-and-react-only-in-http-and-server",
      "lib/http/README.md and lib/server/README.md: in lib/, only lib/http (its dashboard side) and lib/server's server entries import Next.js or React.",
      { path: "^lib/", pathNot: "^lib/(http|server)/" },
      { path: NEXT_OR_REACT },
    ),

    forbid("not-to-unresolvable", "An import that resolves to no file is a typo or a missing package.", {}, { couldNotResolve: true }),
  ],
  options: {
    doNotFollow: { path: ["node_modules", "^lib/db/generated/"] },
    exclude: { path: ["^\\.next", "^e2e/artifacts", "^bench/results", "^test-results/", "^playwright-report/", "^scratch/", "^data/"] },
    tsConfig: { fileName: "tsconfig.json" },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".tsx", ".mts", ".mjs", ".js", ".cjs", ".d.ts", ".d.mts", ".json"],
      mainFields: ["module", "main", "types", "typings"],
    },
  },
};
