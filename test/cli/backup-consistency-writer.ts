/**
 * A separate OS process writing runs into a SQLite file through Agentry's own writes, for the
 * backup consistency test: `node --import tsx backup-consistency-writer.ts <file>`. Each step
 * writes a new session, then a run in it (two commits), and prints `committed <index>` once both
 * returned. It writes until a line arrives on stdin, then closes the database and prints `stopped`.
 */
import { createInterface } from "node:readline";
import { openDatabase } from "../../lib/db/open-database.ts";
import { unsafeSystemScope } from "../../lib/db/scope.ts";
import { upsertRun } from "../../lib/db/runs/runs.ts";
import { upsertSession } from "../../lib/db/sessions/sessions.ts";

const [path] = process.argv.slice(2);
const db = await openDatabase({ url: `file:${path}` });
const scope = unsafeSystemScope("a test process writing runs as the worker would", { actingAs: "backup-user" });
// Big enough that a copy of the file takes many steps of SQLite's backup API.
const answer = "An answer long enough to fill pages. ".repeat(100);

let stop = false;
const lines = createInterface({ input: process.stdin });
lines.once("line", () => (stop = true));

for (let index = 0; !stop; index++) {
  const sessionId = `backup-session-${index}`;
  const runId = `backup-run-${index}`;
  await upsertSession(db, { scope, session: { sessionId, sessionType: "agent", agentId: "assistant", sessionData: { session_name: `session ${index}` } } });
  await upsertRun(db, {
    scope,
    run: { runId, sessionId, runType: "agent", agentId: "assistant", status: "COMPLETED", runData: { run_id: runId, session_id: sessionId, status: "COMPLETED", content: `${index}: ${answer}` } },
  });
  process.stdout.write(`committed ${index}\n`);
  // Let the stdin line in between writes.
  if (index % 20 === 0) await new Promise((resolve) => setImmediate(resolve));
}
lines.close();
await db.close();
process.stdout.write("stopped\n");
