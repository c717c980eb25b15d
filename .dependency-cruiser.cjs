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

    // lib/README.md (Layers): the order below, bottom first; each folder's "May import" line is one
    // rule here, and nothing imports a folder above it.
    mayImport("db", [], "lib/db/README.md", "may import lib/errors, Prisma and the database drivers; nothing else in lib/."),
    forbid(
      "prisma-only-in-db-and-migrations",
      "lib/db/README.md: Prisma is imported only in lib/db and lib/migrations; everything else goes through lib/db's scoped functions.",
      { path: "^(lib|app|components|workers)/", pathNot: "^lib/(db|migrations)/" },
      { path: PRISMA },
    ),

    forbid("config-may-import", "lib/config/README.md: imports nothing else of lib/ (the AuthMode type lives in settings.ts).", { path: "^lib/config/" }, { path: "^lib/", pathNot: "^lib/config/" }),
    forbid(
      "config-not-the-user-config",
      "lib/config/README.md: never imports agentry.config.ts; the composition root loads it (lib/server/load-config.ts).",
      { path: "^lib/config/" },
      { path: "^agentry\\.config\\.ts$" },
    ),
    forbid(
      "config-npm-only-zod",
      "lib/config/README.md: of the installed packages, may import zod (no database driver: it opens no database).",
      { path: "^lib/config/" },
      { path: "^node_modules/", pathNot: "^node_modules/zod/" },
    ),
    forbid("log-may-import", "lib/README.md (Layers): lib/log.ts imports only lib/config.", { path: "^lib/log\\.ts$" }, { path: "^lib/", pathNot: "^lib/config/" }),

    mayImport("models", ["config"], "lib/models/README.md", "may import lib/config and lib/errors (and the AI SDK); nothing else of lib/."),
    mayImport("net", [], "lib/net/README.md", "may import lib/errors; nothing else of lib/."),
    mayImport("live-runs", [], "lib/live-runs/README.md", "may import lib/errors; nothing else of lib/."),

    mayImport("migrations", ["db", "config"], "lib/migrations/README.md", "may import lib/db, lib/errors, lib/config; nothing above them."),
    mayImport("auth", ["config", "db", "log.ts"], "lib/auth/README.md", "may import lib/config, lib/db, lib/errors and lib/log.ts; nothing above them."),
    forbid(
      "auth-no-next",
      "lib/auth/README.md: nothing here imports Next.js (next-auth's modules only); the Auth.js instance and the page guards live in lib/http/dashboard/.",
      { path: "^lib/auth/" },
      { path: NEXT_OR_REACT },
    ),
    mayImport(
      "coordination",
      ["db", "live-runs", "log.ts"],
      "lib/coordination/README.md",
      "may import lib/db, lib/live-runs (event types, the live-run registry) and lib/log.ts; not lib/runtime or anything above it.",
    ),
    mayImport(
      "knowledge",
      ["config", "db", "models", "net", "log.ts"],
      "lib/knowledge/README.md",
      "its core may import lib/config, lib/db, lib/models (embedders, the reranker's model), lib/net, lib/errors and lib/log.ts; not lib/runtime or lib/queue.",
      {
        except: "^lib/knowledge/(ingestion|tools)/",
      },
    ),

    mayImport(
      "runtime",
      ["config", "db", "live-runs", "models", "net", "log.ts"],
      "lib/runtime/README.md",
      "may import lib/config, lib/db, lib/errors, lib/live-runs, lib/models, lib/net (the outbound address policy) and lib/log.ts; no feature (features plug in through run-extensions.ts).",
    ),
    forbid("workspace-not-to-http-db", "lib/runtime/tools/workspace/README.md: must not import from app/, lib/http or lib/db.", { path: "^lib/runtime/tools/workspace/" }, { path: "^lib/(http|db)/" }),

    mayImport(
      "queue",
      ["config", "db", "coordination", "live-runs", "runtime", "log.ts"],
      "lib/queue/README.md",
      "may import lib/config, lib/db, lib/coordination, lib/live-runs, lib/runtime and lib/log.ts; no feature (kinds are registered into catalog.ts).",
    ),
    forbid(
      "queue-no-prisma-or-sql",
      "lib/queue/README.md: lib/queue never imports Prisma or SQL (drivers, lib/db/sql.ts); it calls lib/db/jobs.",
      { path: "^lib/queue/" },
      { path: [PRISMA_OR_SQL, "^lib/db/sql\\.ts$"] },
    ),

    // The features: each reaches the runtime and the queue through their interfaces, and no other feature.
    mayImport(
      "runs",
      ["auth", "config", "db", "coordination", "live-runs", "runtime", "queue", "log.ts"],
      "lib/runs/README.md",
      "may import lib/auth, lib/config, lib/db, lib/coordination, lib/live-runs, lib/runtime, lib/queue and lib/log.ts; no other feature.",
    ),
    mayImport(
      "scheduler",
      ["config", "db", "runtime", "queue", "log.ts"],
      "lib/scheduler/README.md",
      "may import lib/config, lib/db, lib/runtime (its tools' interface), lib/queue and lib/log.ts; no other feature (endpoints are called through its port).",
    ),
    mayImport(
      "evals",
      ["config", "db", "live-runs", "models", "runtime", "queue", "log.ts"],
      "lib/evals/README.md",
      "may import lib/config, lib/db, lib/live-runs, lib/models, lib/runtime, lib/queue and lib/log.ts; no other feature.",
    ),
    mayImport(
      "metrics",
      ["config", "db", "models", "queue", "log.ts"],
      "lib/metrics/README.md",
      "may import lib/config, lib/db, lib/models (the price table), lib/queue and lib/log.ts; no other feature.",
    ),
    mayImport(
      "tracing",
      ["config", "db", "live-runs", "models", "runtime", "queue", "log.ts"],
      "lib/tracing/README.md",
      "may import lib/config, lib/db, lib/live-runs, lib/models, lib/runtime, lib/queue and lib/log.ts; no other feature.",
    ),
    mayImport(
      "learning",
      ["config", "db", "models", "knowledge", "runtime", "log.ts"],
      "lib/learning/README.md",
      "may import lib/config, lib/db, lib/models, the knowledge core, lib/runtime (its extension and tool interfaces) and lib/log.ts; no other feature.",
    ),
    mayImport(
      "components",
      ["auth", "config", "coordination", "db", "knowledge", "live-runs", "models", "runtime", "queue", "log.ts"],
      "lib/components/README.md",
      "may import lib/auth, lib/config, lib/coordination, lib/db, the knowledge core, lib/live-runs, lib/models, lib/runtime, lib/queue and lib/log.ts; no other feature.",
    ),
    forbid(
      "components-knowledge-core-only",
      "lib/components/README.md: of lib/knowledge, only the core; not its ingestion or its agent tools.",
      { path: "^lib/components/" },
      { path: "^lib/knowledge/(ingestion|tools)/" },
    ),
    forbid(
      "learning-knowledge-core-only",
      "lib/learning/README.md: of lib/knowledge, only the core (stores and search); not its ingestion or its agent tools.",
      { path: "^lib/learning/" },
      { path: "^lib/knowledge/(ingestion|tools)/" },
    ),
    forbid(
      "knowledge-ingestion-may-import",
      "lib/knowledge/README.md: its ingestion (ingestion/) may import the knowledge core, lib/config, lib/db, lib/queue and lib/log.ts; not lib/runtime nor the knowledge tools.",
      { path: "^lib/knowledge/ingestion/" },
      { path: "^lib/", pathNot: ["^lib/knowledge/", "^lib/(config|db|errors|queue)/", "^lib/log\\.ts$"] },
    ),
    forbid(
      "knowledge-tools-may-import",
      "lib/knowledge/README.md: its agent tools (tools/) may import the knowledge core, lib/config, lib/db, lib/runtime and lib/log.ts; not lib/queue nor the ingestion.",
      { path: "^lib/knowledge/tools/" },
      { path: "^lib/", pathNot: ["^lib/knowledge/", "^lib/(config|db|errors|runtime)/", "^lib/log\\.ts$"] },
    ),
    forbid(
      "knowledge-parts-apart",
      "lib/knowledge/README.md: the ingestion and the agent tools are two features over the core; neither imports the other.",
      { path: "^lib/knowledge/(ingestion|tools)/" },
      { path: "^lib/knowledge/(ingestion|tools)/", pathNot: "^lib/knowledge/$1/" },
    ),

    mayImport(
      "server",
      [
        "config",
        "db",
        "models",
        "net",
        "live-runs",
        "migrations",
        "auth",
        "coordination",
        "knowledge",
        "runtime",
        "queue",
        "runs",
        "scheduler",
        "evals",
        "metrics",
        "tracing",
        "learning",
        "components",
        "log.ts",
      ],
      "lib/server/README.md",
      "the composition root: may import every folder below it; not lib/http, lib/mcp-server, lib/cli or lib/status.",
    ),
    forbid(
      "app-context-not-to-http-auth-status",
      "lib/server/README.md: app-context.ts imports nothing from lib/http, lib/auth or lib/status (it is what their callers open the database with).",
      { path: "^lib/server/app-context\\.ts$" },
      { path: "^lib/(http|auth|status)/" },
    ),
    mayImport("status", ["config", "db", "migrations"], "lib/status/README.md", "may import lib/config, lib/db (the Db type), lib/migrations; not lib/http or lib/server."),
    mayImport(
      "cli",
      ["config", "db", "migrations", "knowledge", "server/load-config.ts"],
      "lib/cli/README.md",
      "may import lib/config, lib/db, lib/migrations, the knowledge core and lib/server/load-config.ts; not lib/http.",
    ),

    mayImport(
      "http",
      [
        "auth",
        "config",
        "coordination",
        "db",
        "evals",
        "knowledge",
        "live-runs",
        "models",
        "migrations",
        "queue",
        "runs",
        "runtime",
        "scheduler",
        "metrics",
        "tracing",
        "learning",
        "components",
        "status",
        "log.ts",
        "server/app-context.ts",
        "server/load-config.ts",
      ],
      "lib/http/README.md",
      "may import every folder below it except lib/server, of which only app-context.ts and load-config.ts; not lib/mcp-server.",
    ),

    mayImport(
      "mcp-server",
      ["auth", "config", "http", "live-runs", "components/changes.ts", "server/app-context.ts", "server/load-config.ts", "log.ts"],
      "lib/mcp-server/README.md",
      "may import lib/auth, lib/config, lib/http, lib/live-runs, lib/components/changes.ts (component changes), lib/server/app-context.ts and load-config.ts, and lib/log.ts; it queries no database itself (tools act through the route table).",
    ),
    forbid(
      "mcp-server-no-prisma-or-sql",
      "lib/mcp-server/README.md: it opens or queries no database itself; every tool acts through the REST route table as its caller.",
      { path: "^lib/mcp-server/" },
      { path: [PRISMA_OR_SQL, "^lib/db/"] },
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
