import { describe, expect, it } from "vitest";
import { getRun, getSession, getSessionRow, sessionUpdate, sessionVersionOf, upsertRun, upsertSession, type DataScope } from "@/lib/db/index.ts";
import { cancelUnheldRun, writeUnheldRun } from "@/lib/db/jobs/index.ts";
import { DIALECTS, useMigratedDb, type TestDb } from "../support/databases.ts";
import { mintPrincipals } from "../support/principals.ts";

let seq = 0;
const uid = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${++seq}`;

// A run's end and its session's update written together (lib/db/jobs/unheld-run.ts writeWithSession).
describe.each(DIALECTS)("a run's end with its session update on $name", (dialect) => {
  const { scopes } = mintPrincipals();
  let db: TestDb;
  useMigratedDb(dialect, (opened) => (db = opened));

  async function started(scope: DataScope) {
    const sessionId = uid("s");
    await upsertSession(db, { scope, session: { sessionId, sessionType: "agent", agentId: "assistant", sessionData: { session_name: "kept", session_metrics: { input_tokens: 5 } } } });
    const runId = uid("r");
    await upsertRun(db, { scope, run: { runId, sessionId, runType: "agent", agentId: "assistant", status: "RUNNING", runData: { run_id: runId, status: "RUNNING" } } });
    const session = await getSessionRow(db, { scope, sessionId });
    const end = { runId, sessionId, runType: "agent" as const, agentId: "assistant", status: "COMPLETED", runData: { run_id: runId, status: "COMPLETED", content: "done" } };
    const update = () => sessionUpdate(db, { scope, sessionId, metrics: { input_tokens: 7, output_tokens: 2 }, sessionState: { step: 2 }, known: sessionVersionOf(session!) })!;
    return { sessionId, runId, end, update };
  }

  it.skipIf(dialect.skipReason !== null)("applies both when the session is as the run read it", async () => {
    const { sessionId, runId, end, update } = await started(scopes.a);
    const session = update();
    expect(await writeUnheldRun(db, { scope: scopes.a, run: end, pausedJob: false, session })).toBe("written");
    expect(session.applied).toBe(true);
    expect((await getRun(db, { scope: scopes.a, runId }))?.status).toBe("COMPLETED");
    const stored = await getSession(db, { scope: scopes.a, sessionId });
    expect(stored?.session_data).toMatchObject({ session_name: "kept", session_metrics: { input_tokens: 12, output_tokens: 2 }, session_state: { step: 2 } });
  });

  it.skipIf(dialect.skipReason !== null)("writes the run but not a stale session update: the session changed since the run read it", async () => {
    const { sessionId, runId, end, update } = await started(scopes.a);
    const session = update();
    // Another run's end lands first.
    await upsertSession(db, { scope: scopes.a, session: { sessionId, sessionType: "agent", agentId: "assistant", sessionData: { session_name: "renamed", session_metrics: { input_tokens: 100 } } } });
    expect(await writeUnheldRun(db, { scope: scopes.a, run: end, pausedJob: false, session })).toBe("written");
    expect(session.applied).toBe(false);
    expect((await getRun(db, { scope: scopes.a, runId }))?.status).toBe("COMPLETED");
    expect((await getSession(db, { scope: scopes.a, sessionId }))?.session_data).toMatchObject({ session_name: "renamed", session_metrics: { input_tokens: 100 } });
  });

  it.skipIf(dialect.skipReason !== null)("applies neither when the run's write is refused by a recorded cancel", async () => {
    const { sessionId, runId, end, update } = await started(scopes.a);
    expect(await cancelUnheldRun(db, { scope: scopes.a, runId, sessionId })).toBe(true);
    const session = update();
    expect(await writeUnheldRun(db, { scope: scopes.a, run: end, pausedJob: false, session })).toBe("cancelled");
    expect(session.applied).toBe(false);
    expect((await getRun(db, { scope: scopes.a, runId }))?.status).toBe("CANCELLED");
    expect((await getSession(db, { scope: scopes.a, sessionId }))?.session_data).toMatchObject({ session_metrics: { input_tokens: 5 } });
  });

  it.skipIf(dialect.skipReason !== null)("applies neither when the run id belongs to another session", async () => {
    const { sessionId, runId, update } = await started(scopes.a);
    const other = await started(scopes.a);
    const session = update();
    // The same run id written into the other session: the upsert refuses to move it.
    const moved = { ...other.end, runId };
    expect(await writeUnheldRun(db, { scope: scopes.a, run: moved, pausedJob: false, session })).toBe("refused");
    expect(session.applied).toBe(false);
    expect((await getRun(db, { scope: scopes.a, runId }))?.session_id).toBe(sessionId);
    expect((await getSession(db, { scope: scopes.a, sessionId }))?.session_data).toMatchObject({ session_metrics: { input_tokens: 5 } });
  });

  it.skipIf(dialect.skipReason !== null)("user B's write of user A's run changes neither the run nor A's session", async () => {
    const { sessionId, runId, end } = await started(scopes.a);
    const aSession = await getSessionRow(db, { scope: scopes.a, sessionId });
    const session = sessionUpdate(db, { scope: scopes.b, sessionId, metrics: { input_tokens: 1000 }, known: sessionVersionOf(aSession!) })!;
    expect(await writeUnheldRun(db, { scope: scopes.b, run: end, pausedJob: false, session })).toBe("refused");
    expect(session.applied).toBe(false);
    expect((await getRun(db, { scope: scopes.a, runId }))?.status).toBe("RUNNING");
    expect((await getSession(db, { scope: scopes.a, sessionId }))?.session_data).toMatchObject({ session_metrics: { input_tokens: 5 } });
  });
});
