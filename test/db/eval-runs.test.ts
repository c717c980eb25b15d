import { describe, expect, it } from "vitest";
import {
  createEvalRun,
  createEvalRunWithJob,
  deleteEvalRuns,
  EVAL_JOB_TYPE,
  getEvalRun,
  listEvalRuns,
  renameEvalRun,
  STALE_EVAL_SECONDS,
  writeEvalRunState,
  type NewEvalRun,
} from "@/lib/db/evals/eval-runs.ts";
import { ConflictError, QueueFullError } from "@/lib/errors/domain-errors.ts";
import { uid } from "../support/agno-runs.ts";
import { DIALECTS, useMigratedDb, type TestDb } from "../support/databases.ts";
import { adminScope, userScope } from "../support/scopes.ts";

/** agno_eval_runs through lib/db/evals: owner stamping and scoping, filters, sorting, paging, rename, delete. */
for (const dialect of DIALECTS) {
  describe.skipIf(dialect.skipReason !== null)(`eval runs (${dialect.name})`, () => {
    let db: TestDb;
    useMigratedDb(dialect, (opened) => (db = opened));
    const accuracy = (extra: Partial<NewEvalRun> = {}): NewEvalRun => ({
      evalType: "accuracy",
      evalData: { avg_score: 8, results: [{ input: "2+2", output: "4", expected_output: "4", score: 8, reason: "right" }] },
      evalInput: { input: "2+2", expected_output: "4", num_iterations: 1 },
      name: "math",
      agentId: "assistant",
      modelId: "scripted",
      modelProvider: "openai-compatible",
      ...extra,
    });

    it("stamps the member's own id whatever it names, an admin's choice otherwise; a member reads only its own", async () => {
      const a = uid("user-a");
      const b = uid("user-b");
      const mine = await createEvalRun(db, { scope: userScope(a), run: accuracy({ userId: b }) });
      expect(mine).toMatchObject({ user_id: a, eval_type: "accuracy", name: "math", agent_id: "assistant", eval_input: { num_iterations: 1 } });
      expect(mine.eval_data).toEqual(accuracy().evalData);
      expect(mine.created_at).toBe(mine.updated_at);
      const theirs = await createEvalRun(db, { scope: adminScope(), run: accuracy({ userId: b }) });
      expect(theirs.user_id).toBe(b);
      const shared = await createEvalRun(db, { scope: adminScope(), run: accuracy() });
      expect(shared.user_id).toBeNull();
      expect(await getEvalRun(db, { scope: userScope(a), id: mine.run_id })).toMatchObject({ run_id: mine.run_id });
      expect(await getEvalRun(db, { scope: userScope(a), id: theirs.run_id })).toBeNull();
      // Owner-less rows are an admin's.
      expect(await getEvalRun(db, { scope: userScope(a), id: shared.run_id })).toBeNull();
      expect(await getEvalRun(db, { scope: adminScope(), id: shared.run_id })).not.toBeNull();
      await expect(createEvalRun(db, { scope: userScope(a), run: accuracy({ runId: mine.run_id }) })).rejects.toBeInstanceOf(ConflictError);
    });

    it("a re-run of the same eval is a new row; both results stay", async () => {
      const a = uid("user-a");
      const first = await createEvalRun(db, { scope: userScope(a), run: accuracy({ evalData: { avg_score: 9 } }) });
      const second = await createEvalRun(db, { scope: userScope(a), run: accuracy({ evalData: { avg_score: 3 } }) });
      expect(second.run_id).not.toBe(first.run_id);
      const { runs, totalCount } = await listEvalRuns(db, { scope: userScope(a), page: 1, limit: 10 });
      expect(totalCount).toBe(2);
      expect(runs.map((r) => r.eval_data.avg_score).sort()).toEqual([3, 9]);
    });

    it("filters by component, model, kind and evaluated type; sorts by a known field (an unknown one keeps created_at); pages", async () => {
      const a = uid("user-a");
      const scope = userScope(a);
      const made = [];
      for (const [i, run] of [
        accuracy({ name: "c", agentId: "agent-1" }),
        accuracy({ name: "a", agentId: "agent-2", modelId: "other" }),
        { ...accuracy({ name: "b", agentId: null, teamId: "team-1" }), evalType: "reliability" as const },
        { ...accuracy({ name: "d", agentId: "agent-1" }), evalType: "performance" as const },
      ].entries()) {
        const row = await createEvalRun(db, { scope, run });
        // Distinct created_at, oldest first.
        await db.sql.exec("UPDATE agno_eval_runs SET created_at = ? WHERE run_id = ?", [1_800_000_000 + i, row.run_id]);
        made.push(row.run_id);
      }
      const names = async (options: Partial<Parameters<typeof listEvalRuns>[1]>) => (await listEvalRuns(db, { scope, page: 1, limit: 10, ...options })).runs.map((r) => r.name);
      expect(await names({})).toEqual(["d", "b", "a", "c"]);
      expect(await names({ sortOrder: "asc" })).toEqual(["c", "a", "b", "d"]);
      expect(await names({ sortBy: "name", sortOrder: "asc" })).toEqual(["a", "b", "c", "d"]);
      expect(await names({ sortBy: "no_such_field; DROP TABLE x" })).toEqual(["d", "b", "a", "c"]);
      expect(await names({ filters: { agentId: "agent-1" } })).toEqual(["d", "c"]);
      expect(await names({ filters: { modelId: "other" } })).toEqual(["a"]);
      expect(await names({ filters: { componentType: "team" } })).toEqual(["b"]);
      expect(await names({ filters: { evalTypes: ["reliability", "performance"] } })).toEqual(["d", "b"]);
      expect(await names({ filters: { agentId: "agent-1", evalTypes: ["accuracy"] } })).toEqual(["c"]);
      const second = await listEvalRuns(db, { scope, page: 2, limit: 3 });
      expect([second.runs.map((r) => r.name), second.totalCount]).toEqual([["c"], 4]);
      // Another user's list holds none of them.
      expect((await listEvalRuns(db, { scope: userScope(uid("user-b")), page: 1, limit: 10 })).totalCount).toBe(0);
      expect((await listEvalRuns(db, { scope: adminScope(a), page: 1, limit: 10 })).totalCount).toBe(4);
    });

    it("renames and deletes only in the scope: another user's rows are untouched", async () => {
      const a = uid("user-a");
      const b = uid("user-b");
      const mine = await createEvalRun(db, { scope: userScope(a), run: accuracy() });
      const theirs = await createEvalRun(db, { scope: userScope(b), run: accuracy() });
      expect(await renameEvalRun(db, { scope: userScope(a), id: theirs.run_id, name: "hijacked" })).toBeNull();
      expect((await getEvalRun(db, { scope: userScope(b), id: theirs.run_id }))!.name).toBe("math");
      const renamed = await renameEvalRun(db, { scope: userScope(a), id: mine.run_id, name: "renamed" });
      expect(renamed).toMatchObject({ run_id: mine.run_id, name: "renamed" });
      expect(await deleteEvalRuns(db, { scope: userScope(a), ids: [mine.run_id, theirs.run_id, "no-such-run"] })).toBe(1);
      expect(await getEvalRun(db, { scope: adminScope(), id: mine.run_id })).toBeNull();
      expect(await getEvalRun(db, { scope: adminScope(), id: theirs.run_id })).not.toBeNull();
      expect(await deleteEvalRuns(db, { scope: userScope(a), ids: [] })).toBe(0);
    });

    it("writes a run's state only while it is PENDING or RUNNING: an ended run (a cancel) is never written again; an Agno row reads COMPLETED", async () => {
      const a = uid("user-a");
      const scope = userScope(a);
      const run = await createEvalRun(db, { scope, run: accuracy({ status: "RUNNING", evalData: {} }) });
      expect(run.run_status).toBe("RUNNING");
      expect(await writeEvalRunState(db, { scope: userScope(uid("user-b")), id: run.run_id, state: { status: "CANCELLED", details: {} } })).toBe(false);
      expect(await writeEvalRunState(db, { scope, id: run.run_id, state: { status: "RUNNING", details: { progress: { done: 1, total: 2 } } } })).toBe(true);
      expect(await writeEvalRunState(db, { scope, id: run.run_id, state: { status: "CANCELLED", details: { error: "Cancelled by request" } } })).toBe(true);
      // The runner's late end changes nothing.
      expect(await writeEvalRunState(db, { scope, id: run.run_id, state: { status: "COMPLETED", details: {}, evalData: { avg_score: 9 } } })).toBe(false);
      expect(await getEvalRun(db, { scope, id: run.run_id })).toMatchObject({ run_status: "CANCELLED", eval_data: {}, run_details: { error: "Cancelled by request" } });
      // A row Agno wrote has no status of ours: complete, and never written by a runner.
      const agno = uid("agno-row");
      await db.sql.exec("INSERT INTO agno_eval_runs (run_id, eval_type, eval_data, eval_input, created_at) VALUES (?, 'accuracy', ?, ?, ?)", [agno, { avg_score: 7 }, {}, 1_700_000_000]);
      expect(await getEvalRun(db, { scope: adminScope(), id: agno })).toMatchObject({ run_status: "COMPLETED", run_details: null, eval_data: { avg_score: 7 } });
      expect(await writeEvalRunState(db, { scope: adminScope(), id: agno, state: { status: "ERROR", details: {} } })).toBe(false);
    });

    it("reads an active run with no job and no heartbeat for STALE_EVAL_SECONDS as interrupted; a run whose job failed or was cancelled as the job says", async () => {
      const a = uid("user-a");
      const scope = userScope(a);
      const old = Math.floor(Date.now() / 1000) - STALE_EVAL_SECONDS - 5;
      for (const status of ["RUNNING", "PENDING"] as const) {
        const run = await createEvalRun(db, { scope, run: accuracy({ status, evalData: {} }) });
        expect((await getEvalRun(db, { scope, id: run.run_id }))!.run_status).toBe(status);
        await db.sql.exec("UPDATE agno_eval_runs SET updated_at = ? WHERE run_id = ?", [old, run.run_id]);
        expect(await getEvalRun(db, { scope, id: run.run_id })).toMatchObject({ run_status: "ERROR", run_details: { error: "Interrupted: the process running this eval stopped before it ended" } });
      }
      for (const [jobStatus, status, error] of [
        ["failed", "ERROR", "This worker has no agent"],
        ["cancelled", "CANCELLED", "Cancelled by request"],
      ] as const) {
        const run = await createEvalRunWithJob(db, {
          scope,
          run: { ...accuracy({ evalData: {} }), runId: uid("eval") },
          job: { jobType: EVAL_JOB_TYPE, componentType: EVAL_JOB_TYPE, componentId: "x", payload: {}, maxAttempts: 1 },
        });
        expect(run.run_status).toBe("PENDING");
        await db.sql.exec("UPDATE agno_jobs SET status = ?, error = ? WHERE id = ?", [jobStatus, error, run.run_id]);
        const listed = (await listEvalRuns(db, { scope, page: 1, limit: 100 })).runs.find((r) => r.run_id === run.run_id);
        expect(listed).toMatchObject({ run_status: status, run_details: { error } });
      }
    });

    it("stores a background run and its job together, or neither when the queue is full", async () => {
      const a = uid("user-a");
      const scope = userScope(a);
      const job = { jobType: EVAL_JOB_TYPE, componentType: EVAL_JOB_TYPE, componentId: "x", payload: {}, maxAttempts: 1 };
      // Fill the queue of eval jobs to a depth of what is queued now plus one.
      const [queued] = await db.sql.query<{ n: number }>("SELECT COUNT(*) AS n FROM agno_jobs WHERE status = 'queued' AND job_type = ?", [EVAL_JOB_TYPE]);
      const depth = Number(queued?.n ?? 0) + 1;
      const first = await createEvalRunWithJob(db, { scope, run: { ...accuracy({ evalData: {} }), runId: uid("eval") }, job, maxQueueDepth: depth });
      expect(first).toMatchObject({ user_id: a, run_status: "PENDING" });
      const [stored] = await db.sql.query<{ user_id: string; job_type: string }>("SELECT user_id, job_type FROM agno_jobs WHERE id = ?", [first.run_id]);
      expect(stored).toEqual({ user_id: a, job_type: EVAL_JOB_TYPE });
      const refusedId = uid("eval");
      await expect(createEvalRunWithJob(db, { scope, run: { ...accuracy({ evalData: {} }), runId: refusedId }, job, maxQueueDepth: depth })).rejects.toBeInstanceOf(QueueFullError);
      expect(await getEvalRun(db, { scope: adminScope(), id: refusedId })).toBeNull();
      expect(await db.sql.query("SELECT id FROM agno_jobs WHERE id = ?", [refusedId])).toEqual([]);
    });
  });
}
