import { describe, expect, it } from "vitest";
import { createEvalRun, deleteEvalRuns, getEvalRun, listEvalRuns, renameEvalRun, type NewEvalRun } from "@/lib/db/evals/eval-runs.ts";
import { ConflictError } from "@/lib/errors/domain-errors.ts";
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
  });
}
