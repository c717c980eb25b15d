import { describe, expect, it } from "vitest";
import {
  deleteMemories,
  deleteRuns,
  deleteSessions,
  getMemory,
  getMetrics,
  getRun,
  getRuns,
  getSchemaVersion,
  getSession,
  listMemories,
  listSessions,
  readSchemaVersions,
  stampSchemaVersion,
  unsafeUpsertDailyMetrics,
  upsertMemory,
  upsertRun,
  upsertSession,
  type DataScope,
} from "@/lib/db/index.ts";
import { ConflictError, NotFoundError, PaginationError } from "@/lib/errors/domain-errors.ts";
import { LATEST_VERSION } from "@/lib/migrations/types.ts";
import { DIALECTS, useMigratedDb, type TestDb } from "../support/databases.ts";
import { mintPrincipals } from "../support/principals.ts";
import { adminScope, userScope } from "../support/scopes.ts";

let seq = 0;
const uid = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${++seq}`;

async function newSession(db: TestDb, scope: DataScope, extra: Partial<Parameters<typeof upsertSession>[1]["session"]> = {}) {
  return upsertSession(db, {
    scope,
    session: { sessionId: uid("s"), sessionType: "agent", agentId: "assistant", sessionData: { session_name: "hello" }, ...extra },
  });
}

function runOf(sessionId: string, runId = uid("r"), status = "COMPLETED") {
  return {
    runId,
    sessionId,
    runType: "agent" as const,
    agentId: "assistant",
    status,
    runData: { run_id: runId, session_id: sessionId, content: `answer ${runId}`, status },
  };
}

describe.each(DIALECTS)("storage contract on $name", (dialect) => {
  const principals = mintPrincipals();
  const { scopes } = principals;
  let db: TestDb;

  useMigratedDb(dialect, (opened) => (db = opened));

  describe.skipIf(dialect.skipReason !== null)("runs", () => {
    it("writes one row per run and assigns run_index in session order", async () => {
      const session = await newSession(db, scopes.a);
      const first = await upsertRun(db, { scope: scopes.a, run: runOf(session.session_id) });
      const second = await upsertRun(db, { scope: scopes.a, run: runOf(session.session_id) });
      expect([first.runIndex, second.runIndex]).toEqual([0, 1]);
      const runs = await getRuns(db, { scope: scopes.a, sessionId: session.session_id });
      expect(runs.map((r) => r.run_index)).toEqual([0, 1]);
      expect(runs.every((r) => r.user_id === principals.userA)).toBe(true);
    });

    it("updates a run in place on a state change, keeping its index", async () => {
      const session = await newSession(db, scopes.a);
      const run = runOf(session.session_id, uid("r"), "RUNNING");
      await upsertRun(db, { scope: scopes.a, run });
      await upsertRun(db, { scope: scopes.a, run: runOf(session.session_id) });
      const again = await upsertRun(db, { scope: scopes.a, run: { ...run, status: "COMPLETED", runData: { ...run.runData, status: "COMPLETED" } } });
      expect(again.runIndex).toBe(0);
      const stored = await getRun(db, { scope: scopes.a, runId: run.runId });
      expect(stored?.status).toBe("COMPLETED");
      expect(stored?.run_data.status).toBe("COMPLETED");
      expect((await getRuns(db, { scope: scopes.a, sessionId: session.session_id })).length).toBe(2);
    });

    it("lands every run when many are saved at once in one session", async () => {
      const session = await newSession(db, scopes.a);
      const runs = Array.from({ length: 20 }, () => runOf(session.session_id));
      const results = await Promise.all(runs.map((run) => upsertRun(db, { scope: scopes.a, run })));
      expect(new Set(results.map((r) => r.runIndex)).size).toBe(20);
      const stored = await getRuns(db, { scope: scopes.a, sessionId: session.session_id });
      expect(stored.map((r) => r.run_index)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    });

    it("filters by status and pages 1-indexed", async () => {
      const session = await newSession(db, scopes.a);
      for (const status of ["COMPLETED", "ERROR", "COMPLETED", "COMPLETED"]) {
        await upsertRun(db, { scope: scopes.a, run: runOf(session.session_id, uid("r"), status) });
      }
      const completed = await getRuns(db, { scope: scopes.a, sessionId: session.session_id, status: "COMPLETED" });
      expect(completed.length).toBe(3);
      const page2 = await getRuns(db, { scope: scopes.a, sessionId: session.session_id, limit: 3, page: 2 });
      expect(page2.map((r) => r.run_index)).toEqual([3]);
    });

    it("refuses page without limit and pages below 1", async () => {
      await expect(getRuns(db, { scope: scopes.a, page: 2 })).rejects.toBeInstanceOf(PaginationError);
      await expect(getRuns(db, { scope: scopes.a, page: 0, limit: 10 })).rejects.toBeInstanceOf(PaginationError);
      await expect(getRuns(db, { scope: scopes.a, limit: 0 })).rejects.toBeInstanceOf(PaginationError);
    });

    it("keeps user A's runs from user B", async () => {
      const session = await newSession(db, scopes.a);
      const run = runOf(session.session_id);
      await upsertRun(db, { scope: scopes.a, run });
      expect(await getRun(db, { scope: scopes.b, runId: run.runId })).toBeNull();
      expect(await getRuns(db, { scope: scopes.b, sessionId: session.session_id })).toEqual([]);
      // B can neither add a run to A's session nor overwrite A's run.
      await expect(upsertRun(db, { scope: scopes.b, run: runOf(session.session_id) })).rejects.toBeInstanceOf(NotFoundError);
      await expect(upsertRun(db, { scope: scopes.b, run: { ...run, runData: { hijacked: true } } })).rejects.toBeInstanceOf(NotFoundError);
      expect(await deleteRuns(db, { scope: scopes.b, runIds: [run.runId] })).toBe(0);
      const stored = await getRun(db, { scope: scopes.a, runId: run.runId });
      expect(stored?.run_data.hijacked).toBeUndefined();
      // An admin sees it.
      expect((await getRun(db, { scope: scopes.admin, runId: run.runId }))?.user_id).toBe(principals.userA);
    });

    it("never moves a run id to another session", async () => {
      const one = await newSession(db, scopes.a);
      const two = await newSession(db, scopes.a);
      const run = runOf(one.session_id);
      await upsertRun(db, { scope: scopes.a, run });
      await expect(upsertRun(db, { scope: scopes.a, run: { ...run, sessionId: two.session_id } })).rejects.toBeInstanceOf(NotFoundError);
    });
  });

  describe.skipIf(dialect.skipReason !== null)("sessions", () => {
    it("reads a session with its runs in order", async () => {
      const session = await newSession(db, scopes.a);
      const runs = [runOf(session.session_id), runOf(session.session_id)];
      for (const run of runs) await upsertRun(db, { scope: scopes.a, run });
      const read = await getSession(db, { scope: scopes.a, sessionId: session.session_id });
      expect(read?.runs.map((r) => r.run_id)).toEqual(runs.map((r) => r.runId));
      expect(read?.session_data).toEqual({ session_name: "hello" });
    });

    it("updating a session does not rewrite its runs", async () => {
      const session = await newSession(db, scopes.a);
      await upsertRun(db, { scope: scopes.a, run: runOf(session.session_id) });
      await upsertSession(db, {
        scope: scopes.a,
        session: { sessionId: session.session_id, sessionType: "agent", agentId: "assistant", sessionData: { session_name: "renamed" } },
      });
      const read = await getSession(db, { scope: scopes.a, sessionId: session.session_id });
      expect(read?.runs.length).toBe(1);
      expect(read?.session_data?.session_name).toBe("renamed");
    });

    it("lists, filters by name and type, and pages", async () => {
      const tag = uid("name");
      const scope = userScope(uid("lister"));
      for (let i = 0; i < 5; i++) await newSession(db, scope, { sessionData: { session_name: `${tag} #${i}` } });
      await newSession(db, scope, { sessionType: "team", agentId: null, teamId: "squad" });
      const all = await listSessions(db, { scope });
      expect(all.totalCount).toBe(6);
      const named = await listSessions(db, { scope, sessionName: tag.toUpperCase(), limit: 2, page: 2 });
      expect(named.totalCount).toBe(5);
      expect(named.sessions.length).toBe(2);
      const teams = await listSessions(db, { scope, sessionType: "team", componentId: "squad" });
      expect(teams.sessions.map((s) => s.team_id)).toEqual(["squad"]);
      await expect(listSessions(db, { scope, page: 1 })).rejects.toBeInstanceOf(PaginationError);
    });

    it("keeps user A's sessions from user B", async () => {
      const session = await newSession(db, scopes.a);
      expect(await getSession(db, { scope: scopes.b, sessionId: session.session_id })).toBeNull();
      const listed = await listSessions(db, { scope: scopes.b });
      expect(listed.sessions.some((s) => s.session_id === session.session_id)).toBe(false);
      await expect(upsertSession(db, { scope: scopes.b, session: { sessionId: session.session_id, sessionType: "agent" } })).rejects.toBeInstanceOf(ConflictError);
      expect(await deleteSessions(db, { scope: scopes.b, sessionIds: [session.session_id] })).toBe(0);
      expect((await getSession(db, { scope: scopes.a, sessionId: session.session_id }))?.user_id).toBe(principals.userA);
    });

    it("a non-admin's write is stamped with its own id whatever it asks for", async () => {
      const session = await upsertSession(db, {
        scope: scopes.a,
        session: { sessionId: uid("s"), sessionType: "agent", userId: principals.userB },
      });
      expect(session.user_id).toBe(principals.userA);
    });

    it("deleting a session deletes its runs", async () => {
      const session = await newSession(db, scopes.a);
      const run = runOf(session.session_id);
      await upsertRun(db, { scope: scopes.a, run });
      expect(await deleteSessions(db, { scope: scopes.a, sessionIds: [session.session_id] })).toBe(1);
      expect(await getRun(db, { scope: scopes.admin, runId: run.runId })).toBeNull();
    });
  });

  describe.skipIf(dialect.skipReason !== null)("memories", () => {
    it("creates, reads, lists by topic and search, and deletes", async () => {
      const scope = userScope(uid("mem"));
      const m1 = await upsertMemory(db, { scope, memory: { memory: "Likes green tea", topics: ["drinks"] } });
      await upsertMemory(db, { scope, memory: { memory: "Lives in Lisbon", topics: ["places"] } });
      expect((await getMemory(db, { scope, memoryId: m1.memory_id }))?.memory).toBe("Likes green tea");
      expect((await listMemories(db, { scope, topics: ["drinks"] })).memories.map((m) => m.memory)).toEqual(["Likes green tea"]);
      expect((await listMemories(db, { scope, searchContent: "LISBON" })).totalCount).toBe(1);
      expect((await listMemories(db, { scope, limit: 1, page: 2 })).memories.length).toBe(1);
      expect(await deleteMemories(db, { scope, memoryIds: [m1.memory_id] })).toBe(1);
      expect(await getMemory(db, { scope, memoryId: m1.memory_id })).toBeNull();
    });

    it("keeps user A's memories from user B", async () => {
      const memory = await upsertMemory(db, { scope: scopes.a, memory: { memory: "A's secret", topics: [] } });
      expect(memory.user_id).toBe(principals.userA);
      expect(await getMemory(db, { scope: scopes.b, memoryId: memory.memory_id })).toBeNull();
      expect((await listMemories(db, { scope: scopes.b })).memories.some((m) => m.memory_id === memory.memory_id)).toBe(false);
      await expect(upsertMemory(db, { scope: scopes.b, memory: { memoryId: memory.memory_id, memory: "overwritten" } })).rejects.toBeInstanceOf(ConflictError);
      expect(await deleteMemories(db, { scope: scopes.b, memoryIds: [memory.memory_id] })).toBe(0);
      expect((await getMemory(db, { scope: scopes.a, memoryId: memory.memory_id }))?.memory).toBe("A's secret");
    });
  });

  describe.skipIf(dialect.skipReason !== null)("metrics", () => {
    it("keys rows by (user, date, period) and re-aggregates for admins", async () => {
      const base = {
        agent_runs_count: 2,
        team_runs_count: 0,
        workflow_runs_count: 0,
        agent_sessions_count: 1,
        team_sessions_count: 0,
        workflow_sessions_count: 0,
        users_count: 1,
        aggregation_period: "daily",
        completed: true,
      };
      const date = "2026-01-15";
      await unsafeUpsertDailyMetrics(db, { ...base, user_id: principals.userA, date, token_metrics: { total_tokens: 10 }, model_metrics: [{ model_id: "m", model_provider: "p", count: 2 }] });
      await unsafeUpsertDailyMetrics(db, { ...base, user_id: principals.userB, date, token_metrics: { total_tokens: 5 }, model_metrics: [{ model_id: "m", model_provider: "p", count: 1 }] });
      // A shared bucket counts no user (a row with none but users counted is a pre-v3 one, which per-user rows replace).
      await unsafeUpsertDailyMetrics(db, { ...base, user_id: null, users_count: 0, date, token_metrics: { total_tokens: 1 }, model_metrics: [] });
      // Upserting the same key replaces, never duplicates.
      await unsafeUpsertDailyMetrics(db, {
        ...base,
        user_id: principals.userA,
        date,
        agent_runs_count: 3,
        token_metrics: { total_tokens: 12 },
        model_metrics: [{ model_id: "m", model_provider: "p", count: 3 }],
      });
      const mine = await getMetrics(db, { scope: scopes.a, startingDate: date, endingDate: date });
      expect(mine.map((m) => [m.user_id, m.agent_runs_count, m.token_metrics.total_tokens])).toEqual([[principals.userA, 3, 12]]);
      const shared = await getMetrics(db, { scope: adminScope(null), startingDate: date, endingDate: date });
      expect(shared.map((m) => m.user_id)).toEqual([null]);
      const all = await getMetrics(db, { scope: scopes.admin, startingDate: date, endingDate: date });
      expect(all.length).toBe(1);
      expect(all[0].agent_runs_count).toBe(7);
      expect(all[0].token_metrics.total_tokens).toBe(18);
      expect(all[0].model_metrics).toEqual([{ model_id: "m", model_provider: "p", count: 4 }]);
      expect(all[0].date).toBe(date);
    });
  });

  describe.skipIf(dialect.skipReason !== null)("schema versions", () => {
    it("stamps every table at the latest version after up()", async () => {
      const versions = await readSchemaVersions(db);
      expect(versions.get("agno_runs")).toBe(LATEST_VERSION);
      expect(versions.get("agno_sessions")).toBe(LATEST_VERSION);
      await stampSchemaVersion(db, "agno_custom", "1.2.3");
      expect(await getSchemaVersion(db, "agno_custom")).toBe("1.2.3");
    });
  });
});
