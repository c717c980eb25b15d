// `npm run lint:copies`: the copy-paste check. Runs jscpd with the repository's .jscpd.json (the
// folders, formats and sizes that count as a clone) and fails when
//   - the clones number more than MAX_CLONES, or
//   - any clone joins two different dashboard list pages (or their page-specific components):
//     what list pages share belongs in the list pattern (lib/http/dashboard/list-page.ts,
//     components/dashboard/list/), not in copies.
// The report is written to a temporary folder, so runs never race on a shared file.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";

/** Half the clones the tree had when this check was added (19 → 9); lower it as clones go, never raise it. */
const MAX_CLONES = 9;

/** Each dashboard list page, by the folders (or file-name prefixes) of its page and its own components. */
const LIST_PAGES = {
  runs: ["app/dashboard/(signed-in)/runs/(list)/", "components/dashboard/runs/"],
  sessions: ["app/dashboard/(signed-in)/sessions/(list)/", "components/dashboard/sessions/"],
  memories: ["app/dashboard/(signed-in)/memories/", "components/dashboard/memories/"],
  knowledge: ["app/dashboard/(signed-in)/knowledge/", "components/dashboard/knowledge/"],
  schedules: ["app/dashboard/(signed-in)/schedules/(list)/", "components/dashboard/schedules/"],
  evals: ["app/dashboard/(signed-in)/evals/(list)/", "components/dashboard/evals/"],
  queue: ["app/dashboard/(signed-in)/queue/", "components/dashboard/queue/"],
  approvals: ["app/dashboard/(signed-in)/approvals/", "components/dashboard/approvals/"],
  traces: ["app/dashboard/(signed-in)/traces/(list)/", "components/dashboard/traces/"],
  users: ["app/dashboard/(signed-in)/admin/users/", "components/dashboard/users/"],
  "service accounts": ["app/dashboard/(signed-in)/admin/service-accounts/", "components/dashboard/admin/service-account", "components/dashboard/admin/revoke-service-account"],
};

const listPageOf = (file) => Object.entries(LIST_PAGES).find(([, prefixes]) => prefixes.some((prefix) => file.startsWith(prefix)))?.[0];

const out = mkdtempSync(join(tmpdir(), "jscpd-"));
try {
  const jscpd = spawnSync(join("node_modules", ".bin", "jscpd"), ["--config", ".jscpd.json", "--reporters", "json", "--output", out, "--silent"], { encoding: "utf8" });
  if (jscpd.status !== 0) {
    process.stderr.write(jscpd.stderr || jscpd.stdout || `jscpd exited with ${jscpd.status}\n`);
    process.exit(2);
  }
  const report = JSON.parse(readFileSync(join(out, "jscpd-report.json"), "utf8"));
  const clones = report.duplicates.map((clone) => {
    const side = (f) => ({ file: relative(process.cwd(), f.name), lines: `${f.start}-${f.end}` });
    return { tokens: clone.tokens, a: side(clone.firstFile), b: side(clone.secondFile) };
  });
  const describe = (c) => `  ${c.a.file}:${c.a.lines} <-> ${c.b.file}:${c.b.lines} (${c.tokens} tokens)`;
  const crossPage = clones.filter((c) => {
    const [a, b] = [listPageOf(c.a.file), listPageOf(c.b.file)];
    return a !== undefined && b !== undefined && a !== b;
  });

  let failed = false;
  if (crossPage.length > 0) {
    failed = true;
    console.error(
      `lint:copies: ${crossPage.length} clone(s) between two dashboard list pages; move what they share into the list pattern (components/dashboard/list, lib/http/dashboard/list-page.ts):`,
    );
    for (const c of crossPage) console.error(describe(c));
  }
  if (clones.length > MAX_CLONES) {
    failed = true;
    console.error(`lint:copies: ${clones.length} clones, more than the ${MAX_CLONES} allowed (scripts/lint-copies.mjs MAX_CLONES); remove a copy rather than raise the limit:`);
    for (const c of clones) console.error(describe(c));
  }
  if (failed) process.exit(1);
  console.log(`lint:copies: ${clones.length} clone(s), at most ${MAX_CLONES} allowed; none between list pages.`);
} finally {
  rmSync(out, { recursive: true, force: true });
}
