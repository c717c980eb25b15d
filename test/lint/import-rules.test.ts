import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { cruise } from "dependency-cruiser";
import extractDepcruiseOptions from "dependency-cruiser/config-utl/extract-depcruise-options";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * Each layer rule of .dependency-cruiser.cjs (lib/README.md, Layers) fires on a planted violation.
 * The violations are planted in a scratch tree with the repository's folder names, so the real
 * tree is never touched; the same files' allowed imports fire nothing.
 */

const CONFIG = resolve(".dependency-cruiser.cjs");

/** [rule, from file, to file] — an import from `from` to `to` must be reported under `rule`. */
const VIOLATIONS: [string, string, string][] = [
  ["db-may-import", "lib/db/a.ts", "lib/config/settings.ts"],
  ["config-may-import", "lib/config/a.ts", "lib/auth/principal.ts"],
  ["config-not-the-user-config", "lib/config/b.ts", "agentry.config.ts"],
  ["log-may-import", "lib/log.ts", "lib/db/rows.ts"],
  ["models-may-import", "lib/models/a.ts", "lib/runtime/agents.ts"],
  ["net-may-import", "lib/net/a.ts", "lib/config/settings.ts"],
  ["live-runs-may-import", "lib/live-runs/a.ts", "lib/runtime/agents.ts"],
  ["migrations-may-import", "lib/migrations/a.ts", "lib/queue/worker.ts"],
  ["auth-may-import", "lib/auth/a.ts", "lib/runtime/agents.ts"],
  ["coordination-may-import", "lib/coordination/a.ts", "lib/runtime/agents.ts"],
  ["knowledge-may-import", "lib/knowledge/a.ts", "lib/runtime/agents.ts"],
  ["knowledge-may-import", "lib/knowledge/b.ts", "lib/queue/worker.ts"],
  ["runtime-may-import", "lib/runtime/a.ts", "lib/knowledge/knowledge-bases.ts"],
  ["runtime-may-import", "lib/runtime/b.ts", "lib/scheduler/cron.ts"],
  ["runtime-may-import", "lib/runtime/c.ts", "lib/metrics/refresh.ts"],
  ["runtime-may-import", "lib/runtime/d.ts", "lib/queue/worker.ts"],
  ["queue-may-import", "lib/queue/a.ts", "lib/evals/eval-job.ts"],
  ["queue-may-import", "lib/queue/b.ts", "lib/runs/jobs/run-job.ts"],
  ["queue-may-import", "lib/queue/c.ts", "lib/scheduler/fire-job.ts"],
  ["runs-may-import", "lib/runs/a.ts", "lib/scheduler/manage.ts"],
  ["scheduler-may-import", "lib/scheduler/a.ts", "lib/knowledge/knowledge-bases.ts"],
  ["evals-may-import", "lib/evals/a.ts", "lib/metrics/refresh.ts"],
  ["metrics-may-import", "lib/metrics/a.ts", "lib/runtime/agents.ts"],
  ["tracing-may-import", "lib/tracing/a.ts", "lib/metrics/refresh.ts"],
  ["tracing-may-import", "lib/tracing/b.ts", "lib/http/route.ts"],
  ["learning-may-import", "lib/learning/a.ts", "lib/queue/worker.ts"],
  ["learning-may-import", "lib/learning/b.ts", "lib/tracing/setup.ts"],
  ["learning-knowledge-core-only", "lib/learning/c.ts", "lib/knowledge/tools/search.ts"],
  ["components-may-import", "lib/components/a.ts", "lib/learning/extension.ts"],
  ["components-may-import", "lib/components/b.ts", "lib/http/route.ts"],
  ["components-may-import", "lib/components/c.ts", "lib/scheduler/manage.ts"],
  ["components-knowledge-core-only", "lib/components/d.ts", "lib/knowledge/tools/search.ts"],
  ["knowledge-ingestion-may-import", "lib/knowledge/ingestion/a.ts", "lib/runtime/agents.ts"],
  ["knowledge-tools-may-import", "lib/knowledge/tools/a.ts", "lib/queue/worker.ts"],
  ["knowledge-parts-apart", "lib/knowledge/ingestion/b.ts", "lib/knowledge/tools/search.ts"],
  ["server-may-import", "lib/server/a.ts", "lib/http/route.ts"],
  ["status-may-import", "lib/status/a.ts", "lib/server/app-context.ts"],
  ["cli-may-import", "lib/cli/a.ts", "lib/http/route.ts"],
  ["http-may-import", "lib/http/a.ts", "lib/mcp-server/server.ts"],
  ["mcp-server-may-import", "lib/mcp-server/a.ts", "lib/runtime/agents.ts"],
  ["mcp-server-may-import", "lib/mcp-server/b.ts", "lib/components/store.ts"],
];

/** Imports the layers allow: none may be reported. */
const ALLOWED: [string, string][] = [
  ["lib/runtime/ok.ts", "lib/models/resolve-model.ts"],
  ["lib/runtime/ok2.ts", "lib/live-runs/events.ts"],
  ["lib/runtime/tools/ok3.ts", "lib/net/guarded-request.ts"],
  ["lib/coordination/ok.ts", "lib/live-runs/events.ts"],
  ["lib/queue/ok.ts", "lib/runtime/run-writer.ts"],
  ["lib/knowledge/ok.ts", "lib/net/address-policy.ts"],
  ["lib/knowledge/tools/ok.ts", "lib/runtime/run-extensions.ts"],
  ["lib/knowledge/ingestion/ok.ts", "lib/queue/catalog.ts"],
  ["lib/scheduler/ok.ts", "lib/runtime/run-extensions.ts"],
  ["lib/metrics/ok.ts", "lib/models/prices.ts"],
  ["lib/tracing/ok.ts", "lib/db/traces/trace-rows.ts"],
  ["lib/http/ok.ts", "lib/tracing/trace-tree.ts"],
  ["lib/learning/ok.ts", "lib/runtime/run-extensions.ts"],
  ["lib/learning/ok2.ts", "lib/knowledge/knowledge-bases.ts"],
  ["lib/server/ok2.ts", "lib/learning/extension.ts"],
  ["lib/components/ok.ts", "lib/runtime/tools/types.ts"],
  ["lib/components/ok2.ts", "lib/config/component-config.ts"],
  ["lib/components/ok3.ts", "lib/db/open-database.ts"],
  ["lib/http/ok-components.ts", "lib/components/registry.ts"],
  ["lib/mcp-server/ok.ts", "lib/components/changes.ts"],
  ["lib/server/ok.ts", "lib/knowledge/tools/search.ts"],
];

let root: string;
let cwd: string;

function plant(from: string, to: string): void {
  for (const file of [from, to]) mkdirSync(dirname(join(root, file)), { recursive: true });
  writeFileSync(join(root, to), "export const target = 1;\n", { flag: "a" });
  writeFileSync(join(root, from), `import { target } from "${relativeSpecifier(from, to)}";\nexport const planted = target;\n`, { flag: "a" });
}

/** A relative path between two files of the scratch tree (it mirrors the repository's layout). */
function relativeSpecifier(from: string, to: string): string {
  const fromParts = dirname(from).split("/");
  const toParts = to.split("/");
  let common = 0;
  while (common < fromParts.length && fromParts[common] === toParts[common]) common++;
  const up = fromParts.length - common;
  const rest = toParts.slice(common).join("/");
  return up === 0 ? `./${rest}` : `${"../".repeat(up)}${rest}`;
}

async function violations(): Promise<{ rule: string; from: string; to: string }[]> {
  const options = await extractDepcruiseOptions(CONFIG);
  const { tsConfig: _tsConfig, ...rest } = options;
  const { output } = await cruise(["lib", "agentry.config.ts"], { ...rest, outputType: "json" }, {}, {});
  const result = JSON.parse(output as string) as { summary: { violations: { rule: { name: string }; from: string; to: string }[] } };
  return result.summary.violations.map((v) => ({ rule: v.rule.name, from: v.from, to: v.to }));
}

describe("import rules (lib/README.md, Layers)", () => {
  let found: { rule: string; from: string; to: string }[];

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "agentry-import-rules-"));
    for (const [, from, to] of VIOLATIONS) plant(from, to);
    for (const [from, to] of ALLOWED) plant(from, to);
    cwd = process.cwd();
    process.chdir(root);
    try {
      found = await violations();
    } finally {
      process.chdir(cwd);
    }
  });

  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it.each(VIOLATIONS)("%s fires on %s → %s", (rule, from, to) => {
    expect(found).toContainEqual({ rule, from, to });
  });

  it("allows the imports the layers allow", () => {
    const allowedFiles = new Set(ALLOWED.map(([from]) => from));
    expect(found.filter((v) => allowedFiles.has(v.from))).toEqual([]);
  });

  it("no rule in .dependency-cruiser.cjs is a named exception for one file of a lower layer", async () => {
    const options = await extractDepcruiseOptions(CONFIG);
    const names = (options.ruleSet?.forbidden ?? []).map((rule: { name?: string }) => rule.name);
    for (const gone of ["queue-job-catalog-may-import", "runtime-only-knowledge-search", "runtime-only-prices-of-metrics", "runtime-not-to-http-queue"]) expect(names).not.toContain(gone);
  });
});
