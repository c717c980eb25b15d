import { describe, expect, it } from "vitest";
import { defineAgent } from "@/lib/config/define.ts";
import { getRun } from "@/lib/db/runs/runs.ts";
import { getSessionRow } from "@/lib/db/sessions/sessions.ts";
import { enqueueRunJob } from "@/lib/db/jobs/enqueue-job.ts";
import type { DashboardAction } from "@/lib/http/dashboard/action.ts";
import { requeueJobAction } from "@/lib/http/dashboard/queue-actions.ts";
import { queueSnapshot } from "@/lib/http/dashboard/queue-snapshot.ts";
import { cancelRunAction } from "@/lib/http/dashboard/run-actions.ts";
import { deleteSessionAction, renameSessionAction } from "@/lib/http/dashboard/session-actions.ts";
import { enqueueBackgroundRun } from "@/lib/runs/background.ts";
import { agnoRun, seedSession, uid } from "../support/agno-runs.ts";
import { DIALECTS, useMigratedDb, type TestDb } from "../support/databases.ts";
import { mintPrincipals } from "../support/principals.ts";
import { testSettings } from "../support/settings.ts";
import { ACTION_ORIGIN, formOf } from "../support/dashboard-actions.ts";

const settings = testSettings({ file: { agents: [defineAgent({ id: "assistant", name: "Assistant", model: null })] } });
const durableSettings = testSettings({ env: { AGENTRY_QUEUE_DURABLE: "true" }, file: { agents: [defineAgent({ id: "assistant", name: "Assistant", model: null })] } });

describe.each(DIALECTS)("dashboard workspace actions on $name", (dialect) => {
  let db: TestDb;
  useMigratedDb(dialect, (opened) => (db = opened));
  const run = (action: DashboardAction, principal: Parameters<DashboardAction["run"]>[0]["principal"], fields: Record<string, string>, s = settings) =>
    action.run({ principal, formData: formOf(fields), db, settings: s, origin: ACTION_ORIGIN });

  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    it("rename and delete reach only the caller's own sessions: another user's is not found and stays as it was", async () => {
      const p = mintPrincipals();
      const sessionId = uid("s");
      await seedSession(db, { scope: p.scopes.a, session: { sessionId, sessionData: { session_name: "A's" } }, runs: [agnoRun({ sessionId: "" })] });

      expect(await run(renameSessionAction, p.b, { sessionId, name: "stolen" })).toMatchObject({ ok: false, status: 404 });
      expect(await run(deleteSessionAction, p.b, { sessionId })).toMatchObject({ ok: false, status: 404 });
      expect(await run(renameSessionAction, null, { sessionId, name: "x" })).toMatchObject({ ok: false, status: 401 });
      expect(await run(renameSessionAction, p.a, { sessionId, name: "   " })).toMatchObject({ ok: false, status: 422, error: expect.stringContaining("cannot be empty") });
      expect((await getSessionRow(db, { scope: p.scopes.a, sessionId }))?.session_data).toMatchObject({ session_name: "A's" });

      expect(await run(renameSessionAction, p.a, { sessionId, name: "Renamed" })).toMatchObject({ ok: true });
      expect((await getSessionRow(db, { scope: p.scopes.a, sessionId }))?.session_data).toMatchObject({ session_name: "Renamed" });
      expect(await run(deleteSessionAction, p.a, { sessionId })).toMatchObject({ ok: true });
      expect(await getSessionRow(db, { scope: p.scopes.a, sessionId })).toBeNull();
    });

    it("cancel: another user's run is not found; the owner's paused run becomes CANCELLED", async () => {
      const p = mintPrincipals();
      const sessionId = uid("s");
      const paused = agnoRun({ sessionId: "", agentId: "assistant", status: "PAUSED" });
      await seedSession(db, { scope: p.scopes.a, session: { sessionId }, runs: [paused] });
      const fields = { agentId: "assistant", runId: String(paused.run_id), sessionId };
      expect(await run(cancelRunAction, p.b, fields)).toMatchObject({ ok: false, status: 404 });
      expect(await run(cancelRunAction, p.a, { ...fields, agentId: "nobody" })).toMatchObject({ ok: false, status: 404 });
      // The API lets an admin record a cancel for a run not seen yet; the dashboard only cancels what it shows.
      expect(await run(cancelRunAction, p.admin, { ...fields, runId: "no-such-run" })).toMatchObject({ ok: false, status: 404 });
      expect((await getRun(db, { scope: p.scopes.a, runId: fields.runId }))?.status).toBe("PAUSED");
      expect(await run(cancelRunAction, p.a, fields)).toMatchObject({ ok: true });
      expect((await getRun(db, { scope: p.scopes.a, runId: fields.runId }))?.status).toBe("CANCELLED");
    });

    it("requeue is for admins: a member gets 403; a queued job is refused with the reason", async () => {
      const p = mintPrincipals();
      const sessionId = uid("s");
      await seedSession(db, { scope: p.scopes.a, session: { sessionId } });
      const runId = uid("run");
      await enqueueRunJob(db, {
        scope: p.scopes.a,
        run: { runId, sessionId, runType: "agent", agentId: "assistant", runData: { run_id: runId, session_id: sessionId } },
        job: { componentType: "agent", componentId: "assistant", jobType: "run", payload: {}, stream: false, maxAttempts: 1 },
      });
      expect(await run(requeueJobAction, p.a, { jobId: runId, force: "on" }, durableSettings)).toMatchObject({ ok: false, status: 403 });
      expect(await run(requeueJobAction, p.admin, { jobId: runId }, durableSettings)).toMatchObject({ ok: false, status: 409, error: expect.stringContaining("only failed or cancelled") });
      expect(await run(requeueJobAction, p.admin, { jobId: "no-such-job" }, durableSettings)).toMatchObject({ ok: false, status: 404 });
    });

    it("the queue snapshot is scoped: durable counts are the member's own; in-process runs too", async () => {
      const p = mintPrincipals();
      for (const scope of [p.scopes.a, p.scopes.b, p.scopes.b]) {
        const sessionId = uid("s");
        await seedSession(db, { scope, session: { sessionId } });
        const runId = uid("run");
        await enqueueRunJob(db, {
          scope,
          run: { runId, sessionId, runType: "agent", agentId: "assistant", runData: { run_id: runId, session_id: sessionId } },
          job: { componentType: "agent", componentId: "assistant", jobType: "run", payload: {}, stream: false, maxAttempts: 1 },
        });
      }
      const mine = await queueSnapshot(db, durableSettings, p.scopes.a);
      expect(mine).toMatchObject({ durable: true, stats: { counts: { queued: 1 } } });
      const theirs = await queueSnapshot(db, durableSettings, p.scopes.b);
      expect(theirs).toMatchObject({ durable: true, stats: { counts: { queued: 2 } } });
      expect(mine.durable && theirs.durable && mine.fingerprint !== theirs.fingerprint).toBe(true);

      // Not durable: the runs this process holds, a member's own only.
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      enqueueBackgroundRun({ runId: "run-of-a", sessionId: "sa", agentId: "assistant", userId: p.userA, run: () => held }, 1);
      enqueueBackgroundRun({ runId: "run-of-b", sessionId: "sb", agentId: "assistant", userId: p.userB, run: () => held }, 1);
      try {
        const inProcessA = await queueSnapshot(db, settings, p.scopes.a);
        expect(inProcessA).toMatchObject({ durable: false, runs: [{ runId: "run-of-a", status: "RUNNING" }] });
        const inProcessB = await queueSnapshot(db, settings, p.scopes.b);
        expect(inProcessB).toMatchObject({ durable: false, runs: [{ runId: "run-of-b", status: "PENDING" }] });
      } finally {
        release();
        await held;
      }
    });
  });
});
