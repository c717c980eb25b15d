import { describe, expect, it } from "vitest";
import { dataScopeFor } from "@/lib/auth/principal.ts";
import { PaginationError } from "@/lib/errors/domain-errors.ts";
import { enqueueRunJob } from "@/lib/db/jobs/enqueue-job.ts";
import { listJobPage } from "@/lib/db/jobs/job-list-page.ts";
import { COUNT_CAP } from "@/lib/db/keyset.ts";
import { listRunSummaries, type ListRunSummariesOptions } from "@/lib/db/runs/run-list.ts";
import { listSessionSummaries } from "@/lib/db/sessions/session-list.ts";
import { updateSession } from "@/lib/db/sessions/session-writes.ts";
import { agnoRun, seedSession, uid } from "../support/agno-runs.ts";
import { DIALECTS, useMigratedDb, type TestDb } from "../support/databases.ts";
import { mintPrincipals } from "../support/principals.ts";
import { adminScope } from "../support/scopes.ts";

const T0 = 1_800_000_000;

/** Every page of runs, following `next` cursors from the first: each page's inputs. */
async function walkRuns(db: TestDb, options: Omit<ListRunSummariesOptions, "after" | "before">): Promise<string[][]> {
  const pages: string[][] = [];
  let after: string | undefined;
  for (;;) {
    const page = await listRunSummaries(db, { ...options, after });
    pages.push(page.rows.map((r) => r.input_preview ?? ""));
    if (!page.next) return pages;
    after = page.next;
  }
}

describe.each(DIALECTS)("dashboard lists on $name", (dialect) => {
  let db: TestDb;
  useMigratedDb(dialect, (opened) => (db = opened));

  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    it("runs: keyset pages newest first, ties broken by id, forward and back; filters by status, agent and day", async () => {
      const p = mintPrincipals();
      const scope = p.scopes.a;
      // r0…r6 one second apart, and r7 in r6's second (a tie the run id settles).
      const runs = Array.from({ length: 8 }, (_, i) =>
        agnoRun({ sessionId: "", input: `r${i}`, createdAt: T0 + Math.min(i, 6), status: i === 2 ? "ERROR" : "COMPLETED", agentId: i % 2 ? "odd" : "even" }),
      );
      await seedSession(db, { scope, session: { sessionId: uid("s") }, runs });
      const pages = await walkRuns(db, { scope, limit: 3 });
      expect(pages.flat()).toHaveLength(8);
      expect(pages.map((page) => page.length)).toEqual([3, 3, 2]);
      expect(pages.flat().slice(2)).toEqual(["r5", "r4", "r3", "r2", "r1", "r0"]);
      expect(new Set(pages.flat().slice(0, 2))).toEqual(new Set(["r6", "r7"]));

      const first = await listRunSummaries(db, { scope, limit: 3 });
      expect(first.prev).toBeNull();
      expect(first.total).toEqual({ count: 8, capped: false });
      const second = await listRunSummaries(db, { scope, limit: 3, after: first.next! });
      const back = await listRunSummaries(db, { scope, limit: 3, before: second.prev! });
      expect(back.rows.map((r) => r.run_id)).toEqual(first.rows.map((r) => r.run_id));
      expect(back.prev).toBeNull();
      expect(back.next).not.toBeNull();

      expect((await walkRuns(db, { scope, limit: 5, order: "asc" })).flat().slice(0, 6)).toEqual(["r0", "r1", "r2", "r3", "r4", "r5"]);
      expect((await walkRuns(db, { scope, limit: 50, statuses: ["ERROR"] })).flat()).toEqual(["r2"]);
      expect((await walkRuns(db, { scope, limit: 50, agentId: "odd", createdFrom: T0 + 2, createdTo: T0 + 6 })).flat()).toEqual(["r5", "r3"]);
      const summary = first.rows[0];
      expect(summary).toMatchObject({ total_tokens: 12, status: "COMPLETED", user_id: p.userA });
    });

    it("runs and sessions: the type filter, and the component filter naming a team", async () => {
      const p = mintPrincipals();
      const scope = p.scopes.a;
      const team = agnoRun({ sessionId: "", input: "team question", teamId: "desk", createdAt: T0 });
      const member = agnoRun({ sessionId: "", input: "member task", agentId: "researcher", parentRunId: String(team.run_id), createdAt: T0 + 1 });
      const teamSession = uid("team-session");
      await seedSession(db, { scope, session: { sessionId: teamSession, sessionType: "team", agentId: null, teamId: "desk" }, runs: [team, member] });
      const agentSession = uid("agent-session");
      await seedSession(db, { scope, session: { sessionId: agentSession }, runs: [agnoRun({ sessionId: "", input: "agent question", agentId: "assistant", createdAt: T0 + 2 })] });
      expect((await walkRuns(db, { scope, limit: 50, runType: "team" })).flat()).toEqual(["team question"]);
      expect((await walkRuns(db, { scope, limit: 50, runType: "agent" })).flat()).toEqual(["agent question", "member task"]);
      expect((await walkRuns(db, { scope, limit: 50, agentId: "desk" })).flat()).toEqual(["team question"]);
      // A workflow run's input is the message itself.
      const workflowSession = uid("workflow-session");
      const flow = { ...agnoRun({ sessionId: "", workflowId: "flow", createdAt: T0 + 3 }), input: "workflow input" };
      await seedSession(db, { scope, session: { sessionId: workflowSession, sessionType: "workflow", agentId: null, workflowId: "flow" }, runs: [flow] });
      expect((await walkRuns(db, { scope, limit: 50, runType: "workflow" })).flat()).toEqual(["workflow input"]);
      const teamSessions = await listSessionSummaries(db, { scope, limit: 10, sessionType: "team" });
      expect(teamSessions.rows.map((s) => [s.session_id, s.component_id, s.run_count])).toEqual([[teamSession, "desk", 2]]);
      expect((await listSessionSummaries(db, { scope, limit: 10, sessionType: "agent" })).rows.map((s) => s.session_id)).toEqual([agentSession]);
      expect((await listSessionSummaries(db, { scope, limit: 10, sessionType: "workflow" })).rows.map((s) => s.session_id)).toEqual([workflowSession]);
    });

    it("runs: a member sees only its own whatever user it names; an admin everyone's or one user's", async () => {
      const p = mintPrincipals();
      await seedSession(db, { scope: p.scopes.a, session: { sessionId: uid("s") }, runs: [agnoRun({ sessionId: "", input: "a's run" })] });
      await seedSession(db, { scope: p.scopes.b, session: { sessionId: uid("s") }, runs: [agnoRun({ sessionId: "", input: "b's run" })] });
      const inputs = async (scope: ListRunSummariesOptions["scope"]) => (await walkRuns(db, { scope, limit: 50 })).flat();
      expect(await inputs(dataScopeFor(p.a, p.userB))).toEqual(["a's run"]);
      expect(await inputs(dataScopeFor(p.b))).toEqual(["b's run"]);
      expect(await inputs(adminScope(p.userB))).toEqual(["b's run"]);
      expect(await inputs(adminScope())).toEqual(expect.arrayContaining(["a's run", "b's run"]));
    });

    it("runs: a cursor the server did not issue is a PaginationError; so are a bad limit and both directions at once", async () => {
      const scope = mintPrincipals().scopes.a;
      await expect(listRunSummaries(db, { scope, limit: 3, after: "not-a-cursor" })).rejects.toBeInstanceOf(PaginationError);
      const stringKeyed = Buffer.from(JSON.stringify(["2026-01-01", "x"])).toString("base64url");
      await expect(listRunSummaries(db, { scope, limit: 3, after: stringKeyed })).rejects.toThrow(/cursor is not one this server issued/);
      // Numbers a BIGINT comparison would choke on are refused before they reach the database.
      for (const value of [1.5, 1e20, -0.5]) {
        const forged = Buffer.from(JSON.stringify(["created_at", "desc", value, "x"])).toString("base64url");
        await expect(listRunSummaries(db, { scope, limit: 3, after: forged })).rejects.toBeInstanceOf(PaginationError);
      }
      // A cursor issued for one order is not read under another.
      const p = mintPrincipals();
      await seedSession(db, { scope: p.scopes.a, session: { sessionId: uid("s") }, runs: [1, 2, 3].map((i) => agnoRun({ sessionId: "", createdAt: T0 + i })) });
      const descending = await listRunSummaries(db, { scope: p.scopes.a, limit: 1 });
      await expect(listRunSummaries(db, { scope: p.scopes.a, limit: 1, order: "asc", after: descending.next! })).rejects.toThrow(/another sort or order/);
      const sessions = await listSessionSummaries(db, { scope: p.scopes.a, limit: 1 });
      await expect(listSessionSummaries(db, { scope: p.scopes.a, limit: 1, sortBy: "created_at", after: sessions.next ?? descending.next! })).rejects.toThrow(PaginationError);
      await expect(listRunSummaries(db, { scope, limit: 0 })).rejects.toBeInstanceOf(PaginationError);
      await expect(listRunSummaries(db, { scope, limit: 3, after: "a", before: "b" })).rejects.toBeInstanceOf(PaginationError);
    });

    it("runs: the count stops at COUNT_CAP and says so", async () => {
      const p = mintPrincipals();
      const sessionId = uid("s");
      await seedSession(db, { scope: p.scopes.a, session: { sessionId } });
      const rows = Array.from({ length: COUNT_CAP + 5 }, (_, i) => [uid("run"), sessionId, "agent", "assistant", p.userA, "COMPLETED", i, "{}", T0 + i]);
      for (let i = 0; i < rows.length; i += 100) {
        const chunk = rows.slice(i, i + 100);
        await db.sql.exec(
          `INSERT INTO agno_runs (run_id, session_id, run_type, agent_id, user_id, status, run_index, run_data, created_at) VALUES ${chunk.map(() => "(?, ?, ?, ?, ?, ?, ?, ?, ?)").join(", ")}`,
          chunk.flat(),
        );
      }
      const page = await listRunSummaries(db, { scope: p.scopes.a, limit: 25 });
      expect(page.total).toEqual({ count: COUNT_CAP, capped: true });
      expect(page.rows).toHaveLength(25);
    });

    it("sessions: keyset by updated_at with run counts, tokens and names; name filter; scoped", async () => {
      const p = mintPrincipals();
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        const sessionId = uid("s");
        ids.push(sessionId);
        await seedSession(db, {
          scope: p.scopes.a,
          session: { sessionId, createdAt: T0 + i, sessionData: { session_name: `Chat ${i}`, session_metrics: { total_tokens: 10 * i } } },
          runs: Array.from({ length: i }, () => agnoRun({ sessionId: "" })),
        });
        await db.sql.exec("UPDATE agno_sessions SET updated_at = ? WHERE session_id = ?", [T0 + 100 - i, sessionId]);
      }
      await seedSession(db, { scope: p.scopes.b, session: { sessionId: uid("s"), sessionData: { session_name: "B's chat" } } });
      const first = await listSessionSummaries(db, { scope: p.scopes.a, limit: 2 });
      expect(first.rows.map((s) => s.session_name)).toEqual(["Chat 0", "Chat 1"]);
      expect(first.total).toEqual({ count: 5, capped: false });
      const second = await listSessionSummaries(db, { scope: p.scopes.a, limit: 2, after: first.next! });
      expect(second.rows.map((s) => [s.session_name, s.run_count, s.total_tokens])).toEqual([
        ["Chat 2", 2, 20],
        ["Chat 3", 3, 30],
      ]);
      const third = await listSessionSummaries(db, { scope: p.scopes.a, limit: 2, after: second.next! });
      expect(third.rows.map((s) => s.session_name)).toEqual(["Chat 4"]);
      expect(third.next).toBeNull();
      const byCreated = await listSessionSummaries(db, { scope: p.scopes.a, limit: 10, sortBy: "created_at", order: "asc" });
      expect(byCreated.rows.map((s) => s.session_id)).toEqual(ids);
      await updateSession(db, { scope: p.scopes.a, sessionId: ids[3], sessionName: "100% tea_time" });
      expect((await listSessionSummaries(db, { scope: p.scopes.a, limit: 10, name: "% TEA_" })).rows.map((s) => s.session_id)).toEqual([ids[3]]);
      expect((await listSessionSummaries(db, { scope: p.scopes.a, limit: 10, name: "b's" })).rows).toEqual([]);
      expect((await listSessionSummaries(db, { scope: dataScopeFor(p.b, p.userA), limit: 10 })).rows.map((s) => s.session_name)).toEqual(["B's chat"]);
    });

    it("jobs: a member's own jobs, newest first, by status; an admin's everyone's", async () => {
      const p = mintPrincipals();
      const submit = async (scope: typeof p.scopes.a, at: number) => {
        const sessionId = uid("s");
        await seedSession(db, { scope, session: { sessionId } });
        const runId = uid("run");
        const run = { runId, sessionId, runType: "agent" as const, agentId: "assistant", runData: { run_id: runId, session_id: sessionId } };
        const job = { componentType: "agent", componentId: "assistant", jobType: "run", payload: {}, stream: false, maxAttempts: 1 };
        await enqueueRunJob(db, { scope, run, job, now: at });
        return runId;
      };
      const a1 = await submit(p.scopes.a, T0);
      const a2 = await submit(p.scopes.a, T0 + 1);
      const b1 = await submit(p.scopes.b, T0 + 2);
      const mine = await listJobPage(db, { scope: dataScopeFor(p.a, p.userB), limit: 1 });
      expect(mine.rows.map((j) => j.id)).toEqual([a2]);
      expect((await listJobPage(db, { scope: p.scopes.a, limit: 1, after: mine.next! })).rows.map((j) => j.id)).toEqual([a1]);
      expect((await listJobPage(db, { scope: p.scopes.a, limit: 10, statuses: ["failed"] })).rows).toEqual([]);
      const all = (await listJobPage(db, { scope: adminScope(), limit: 200 })).rows.map((j) => j.id);
      expect(all).toEqual(expect.arrayContaining([a1, a2, b1]));
    });
  });
});
