import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentDefinition } from "@/lib/config/define.ts";
import { getEvalRun, listEvalRuns } from "@/lib/db/evals/eval-runs.ts";
import { EvalRunInputSchema } from "@/lib/evals/eval-input.ts";
import { planEval } from "@/lib/evals/eval-plan.ts";
import { runEvalNow } from "@/lib/evals/start-eval.ts";
import { judgeAnswer } from "../../e2e/fixtures/judge-answers.ts";
import { startModelServer, type ModelServer } from "../../e2e/fixtures/model-server.ts";
import { sqliteDialect } from "../support/databases.ts";
import { userScope } from "../support/scopes.ts";
import { startTestApp, type TestApp } from "../support/test-app.ts";

/**
 * lib/evals as a library (a script's regression suite): storeResultInFile writes each run's
 * result to its own file ({run_id}, {name}), so re-runs never overwrite each other; {eval_id} is
 * refused naming {run_id} before anything runs.
 */
describe("running an eval from code", () => {
  let server: ModelServer;
  let app: TestApp;
  const dir = mkdtempSync(join(tmpdir(), "agentry-eval-files-"));

  beforeAll(async () => {
    server = await startModelServer({ respond: (body) => judgeAnswer(body) ?? { text: "Paris" } });
    const agents: AgentDefinition[] = [{ id: "geo", name: "Geo", model: { provider: "openai-compatible", id: "scripted", baseUrl: server.url, apiKey: "t" } }];
    app = await startTestApp({ dialect: sqliteDialect, agents });
  });
  afterAll(async () => {
    await app?.close();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const plan = async () =>
    planEval(app.settings, EvalRunInputSchema.parse({ agent_id: "geo", eval_type: "accuracy", input: "Capital of France?", expected_output: "Paris", name: "capitals" }), {
      anyModel: false,
      db: await app.db(),
      caller: { userId: "script-user", isAdmin: false },
    });

  it("storeResultInFile writes each run's eval_data to the file its template names; a re-run writes its own", async () => {
    const db = await app.db();
    const scope = userScope("script-user");
    const template = join(dir, "{name}", "{run_id}.json");
    const first = await runEvalNow({ db, plan: await plan(), scope, userId: "script-user", storeResultInFile: template });
    const second = await runEvalNow({ db, plan: await plan(), scope, userId: "script-user", storeResultInFile: template });
    expect(second.run_id).not.toBe(first.run_id);
    for (const run of [first, second]) {
      const path = join(dir, "capitals", `${run.run_id}.json`);
      expect(existsSync(path)).toBe(true);
      expect(JSON.parse(readFileSync(path, "utf8"))).toEqual(run.eval_data);
      expect(run.eval_data).toMatchObject({ run_id: run.run_id, avg_score: 10 });
    }
  });

  it("refuses {eval_id} naming {run_id}, before anything runs or is stored", async () => {
    const db = await app.db();
    const scope = userScope("script-user-2");
    const requests = server.requests.length;
    await expect(runEvalNow({ db, plan: await plan(), scope, userId: "script-user-2", storeResultInFile: join(dir, "{eval_id}.json") })).rejects.toThrow(
      "storeResultInFile: {eval_id} is no longer a placeholder; use {run_id}",
    );
    expect(server.requests.length).toBe(requests);
    expect((await listEvalRuns(db, { scope, page: 1, limit: 10 })).totalCount).toBe(0);
    expect(await getEvalRun(db, { scope, id: "none" })).toBeNull();
  });
});
