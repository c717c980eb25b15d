import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Principal } from "@/lib/auth/principal.ts";
import type { AgentDefinition } from "@/lib/config/define.ts";
import { EvalListSchema, EvalSchema } from "@/lib/http/schemas/evals.ts";
import { calculatorToolkit } from "@/lib/runtime/tools/calculator/calculator.ts";
import { judgeAnswer } from "../../e2e/fixtures/judge-answers.ts";
import { messageText, startModelServer, type ChatCompletionRequest, type ModelServer, type ScriptStep } from "../../e2e/fixtures/model-server.ts";
import { withScopes } from "../support/api.ts";
import { DIALECTS } from "../support/databases.ts";
import { mintPrincipals } from "../support/principals.ts";
import { flushTracing } from "@/lib/tracing/setup.ts";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { until } from "../support/until.ts";

type Json = Record<string, unknown>;

/**
 * The Evals API on both dialects against the scripted model: the four kinds (eval_data in Agno's
 * shapes, key for key), the model override and the judge, re-runs, Agno's 400/404/422 answers,
 * list filters and sorting, rename and delete, one user against another, and evals in the
 * background (in this process, and as jobs of the durable queue).
 */

const lastUserText = (body: ChatCompletionRequest) => messageText([...body.messages].reverse().find((m) => m.role === "user"));

/**
 * The agent's rules: "add A and B" calls the add tool and reports its result; "fail …" is a
 * provider failure; "say X" answers X; anything else "Echo: …". Judges answer by
 * e2e/fixtures/judge-answers.ts.
 */
function respond(body: ChatCompletionRequest): ScriptStep {
  const judged = judgeAnswer(body);
  if (judged) return judged;
  const last = body.messages.at(-1);
  if (last?.role === "tool") return { text: `The result is ${messageText(last)}.`, usage: { prompt_tokens: 20, completion_tokens: 5 } };
  const text = lastUserText(body);
  const add = /add (-?\d+) and (-?\d+)/i.exec(text);
  if (add) return { toolCalls: [{ name: "add", arguments: { a: Number(add[1]), b: Number(add[2]) } }], usage: { prompt_tokens: 10, completion_tokens: 4 } };
  if (/^fail\b/i.test(text)) return { error: { status: 400, message: "scripted refusal" } };
  const say = /^say (.*)$/is.exec(text);
  if (say) return { text: say[1]!, usage: { prompt_tokens: 8, completion_tokens: 2 } };
  return { text: `Echo: ${text}`, usage: { prompt_tokens: 8, completion_tokens: 2 } };
}

const EVAL_SCOPES = ["evals:read", "evals:write", "evals:delete", "agents:run", "agents:read", "sessions:read"];

async function json(response: Response): Promise<{ status: number; body: Json }> {
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Json) : {} };
}

describe.each(DIALECTS)("the Evals API on $name", (dialect) => {
  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    let server: ModelServer;
    let app: TestApp;
    const who = mintPrincipals();
    const a = withScopes(who.a, EVAL_SCOPES);
    const b = withScopes(who.b, EVAL_SCOPES);
    const post = (body: Json, principal: Principal = a, query = "") => app.call("POST", `/eval-runs${query}`, { json: body, principal });
    const get = (path: string, principal: Principal = a) => app.call("GET", path, { principal });

    beforeAll(async () => {
      server = await startModelServer({ respond });
      const model = { provider: "openai-compatible" as const, id: "scripted", baseUrl: server.url, apiKey: "t" };
      const agents: AgentDefinition[] = [
        { id: "math", name: "Math", model, tools: [calculatorToolkit] },
        { id: "no-model", name: "Unconfigured", model: null },
      ];
      app = await startTestApp({ dialect, agents });
    });
    afterAll(async () => {
      await app?.close();
      await server?.close();
    });

    it("accuracy: runs the agent num_iterations times, the judge scores each answer; eval_data is Agno's AccuracyResult, and each run is a stored run of the caller", async () => {
      const before = server.requests.length;
      const { status, body } = await json(await post({ agent_id: "math", eval_type: "accuracy", input: "say Paris", expected_output: "Paris", num_iterations: 3, name: "capital" }));
      expect(status).toBe(200);
      const run = EvalSchema.parse(body);
      expect(run).toMatchObject({ agent_id: "math", eval_type: "accuracy", name: "capital", model_id: "scripted", model_provider: "openai-compatible", user_id: who.userA, status: "COMPLETED" });
      expect(Object.keys(run.eval_data).sort()).toEqual(["avg_score", "max_score", "mean_score", "min_score", "results", "run_id", "std_dev_score"]);
      expect(run.eval_data).toMatchObject({ run_id: run.id, avg_score: 10, mean_score: 10, min_score: 10, max_score: 10, std_dev_score: 0 });
      const results = run.eval_data.results as Json[];
      expect(results).toHaveLength(3);
      expect(Object.keys(results[0]!).sort()).toEqual(["expected_output", "input", "output", "reason", "score"]);
      expect(results[0]).toMatchObject({ input: "say Paris", output: "Paris", expected_output: "Paris", score: 10 });
      expect(run.eval_input).toMatchObject({ input: "say Paris", expected_output: "Paris", num_iterations: 3, additional_guidelines: null, additional_context: null });
      expect(run.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      // Three agent calls and three judge calls; the judge is the agent's own model, told to answer in its schema.
      const calls = server.requests.slice(before);
      expect(calls).toHaveLength(6);
      expect(calls.filter((c) => c.body.response_format !== undefined).map((c) => c.body.model)).toEqual(["scripted", "scripted", "scripted"]);
      const details = run.run_details as { agent_runs: { run_id: string; session_id: string; status: string }[]; judge: Json; progress: Json };
      expect(details.judge).toEqual({ model_id: "scripted", model_provider: "openai-compatible" });
      expect(details.progress).toEqual({ done: 6, total: 6 });
      expect(details.agent_runs.map((r) => r.status)).toEqual(["COMPLETED", "COMPLETED", "COMPLETED"]);
      const first = details.agent_runs[0]!;
      const stored = await json(await get(`/agents/math/runs/${first.run_id}?session_id=${first.session_id}`));
      expect(stored.status).toBe(200);
      expect(stored.body).toMatchObject({ content: "Paris", user_id: who.userA, metadata: { eval_run_id: run.id, eval_iteration: 1 } });
      // Each agent run is the root of its own trace, marked with the eval; the judge's calls are LLM spans in traces of their own.
      await flushTracing();
      const db = await app.db();
      const roots = await db.sql.query<{ trace_id: string; run_id: string | null; name: string; attributes: unknown }>(
        "SELECT t.trace_id, t.run_id, t.name, s.attributes FROM agno_traces t JOIN agno_spans s ON s.trace_id = t.trace_id AND s.parent_span_id IS NULL",
      );
      const evalRoots = roots.filter((r) => details.agent_runs.some((a) => a.run_id === r.run_id));
      expect(evalRoots).toHaveLength(3);
      expect(new Set(evalRoots.map((r) => r.trace_id)).size).toBe(3);
      for (const root of evalRoots) expect((typeof root.attributes === "string" ? JSON.parse(root.attributes) : root.attributes)["agno.eval.id"]).toBe(run.id);
      expect(roots.filter((r) => r.run_id === null && r.name === "OpenAILike.invoke").length).toBeGreaterThanOrEqual(3);
      expect((await get(`/agents/math/runs/${first.run_id}?session_id=${first.session_id}`, b)).status).toBe(404);
    });

    it("accuracy: a wrong answer scores low; an iteration whose run failed is left out, and with none scored the eval fails (502, stored ERROR)", async () => {
      const low = EvalSchema.parse((await json(await post({ agent_id: "math", eval_type: "accuracy", input: "say Lyon", expected_output: "Paris" }))).body);
      expect(low.eval_data).toMatchObject({ avg_score: 2, min_score: 2, max_score: 2 });
      const failed = await json(await post({ agent_id: "math", eval_type: "accuracy", input: "fail please", expected_output: "Paris", num_iterations: 2 }));
      expect(failed.status).toBe(502);
      expect(String(failed.body.detail)).toMatch(/^The eval failed \(eval run [0-9a-f-]+, stored with status ERROR\): No iteration could be scored \(2 tried\): .*scripted refusal/);
      const stored = EvalSchema.parse((await json(await get(`/eval-runs/${failed.body.id}`))).body);
      expect(stored.status).toBe("ERROR");
      expect((stored.run_details as Json).error).toMatch(/No iteration could be scored/);
      expect((stored.run_details as { failures: unknown[] }).failures).toHaveLength(2);
    });

    it("agent_as_judge: numeric with a threshold and binary (the default), with Agno's AgentAsJudgeResult and pass rate", async () => {
      const numeric = EvalSchema.parse(
        (await json(await post({ agent_id: "math", eval_type: "agent_as_judge", input: "say fine", criteria: "Is it fine?", scoring_strategy: "numeric", threshold: 9, num_iterations: 2 }))).body,
      );
      expect(Object.keys(numeric.eval_data).sort()).toEqual(["avg_score", "max_score", "min_score", "pass_rate", "results", "run_id", "std_dev_score"]);
      expect(numeric.eval_data).toMatchObject({ avg_score: 8, min_score: 8, max_score: 8, std_dev_score: 0, pass_rate: 0 });
      const result = (numeric.eval_data.results as Json[])[0]!;
      expect(Object.keys(result).sort()).toEqual(["criteria", "input", "output", "passed", "reason", "score"]);
      expect(result).toMatchObject({ input: "say fine", output: "fine", criteria: "Is it fine?", score: 8, passed: false });
      expect(numeric.eval_input).toMatchObject({ criteria: "Is it fine?", scoring_strategy: "numeric", threshold: 9 });

      const binary = EvalSchema.parse((await json(await post({ agent_id: "math", eval_type: "agent_as_judge", input: "say all wrong", criteria: "Correct?" }))).body);
      expect(binary.eval_data).toMatchObject({ avg_score: null, min_score: null, max_score: null, std_dev_score: null, pass_rate: 0 });
      expect((binary.eval_data.results as Json[])[0]).toMatchObject({ score: null, passed: false });
      expect(binary.eval_input).toMatchObject({ scoring_strategy: "binary", threshold: null });
      const passing = EvalSchema.parse((await json(await post({ agent_id: "math", eval_type: "agent_as_judge", input: "say right", criteria: "Correct?" }))).body);
      expect(passing.eval_data.pass_rate).toBe(100);
    });

    it("performance: warm-up runs, then timed runs; the POST answers Agno's flat PerformanceResult, the stored row keeps {result, runs}", async () => {
      const before = server.requests.length;
      const posted = EvalSchema.parse((await json(await post({ agent_id: "math", eval_type: "performance", input: "say quick", num_iterations: 3, warmup_runs: 2 }))).body);
      expect(server.requests.length - before).toBe(5);
      const figures = ["avg", "min", "max", "std_dev", "median", "p95", "p50"];
      expect(Object.keys(posted.eval_data).sort()).toEqual(
        [...figures.map((f) => `${f}_run_time`), ...figures.map((f) => `${f}_memory_usage`), "run_times", "memory_usages", "tokens_per_run", "avg_tokens_per_run"].sort(),
      );
      expect(posted.eval_data.run_times).toHaveLength(3);
      expect(posted.eval_data.tokens_per_run).toEqual([10, 10, 10]);
      for (const t of posted.eval_data.run_times as number[]) expect(t).toBeGreaterThan(0);
      expect(posted.eval_data.min_run_time as number).toBeLessThanOrEqual(posted.eval_data.avg_run_time as number);

      const stored = EvalSchema.parse((await json(await get(`/eval-runs/${posted.id}`))).body);
      expect(Object.keys(stored.eval_data).sort()).toEqual(["result", "runs"]);
      expect((stored.eval_data.runs as Json[]).map((r) => Object.keys(r).sort())).toEqual([
        ["memory", "runtime", "tokens"],
        ["memory", "runtime", "tokens"],
        ["memory", "runtime", "tokens"],
      ]);
      expect((stored.eval_data.result as Json).avg_run_time).toBe(posted.eval_data.avg_run_time);
      expect(stored.eval_input).toEqual({ input: "say quick", num_iterations: 3, warmup_runs: 2 });
      const phases = (stored.run_details as { agent_runs: { phase: string }[] }).agent_runs.map((r) => r.phase);
      expect(phases).toEqual(["warmup", "warmup", "measured", "measured", "measured"]);
    });

    it("reliability: the run's tool calls against the expected ones and their arguments (Agno's ReliabilityResult)", async () => {
      const passed = EvalSchema.parse(
        (await json(await post({ agent_id: "math", eval_type: "reliability", input: "add 2 and 3", expected_tool_calls: ["add"], expected_tool_call_arguments: { add: { a: 2 } } }))).body,
      );
      expect(passed.eval_data).toEqual({
        eval_status: "PASSED",
        failed_tool_calls: [],
        passed_tool_calls: ["add"],
        additional_tool_calls: [],
        missing_tool_calls: [],
        failed_argument_checks: [],
        passed_argument_checks: ["add"],
      });
      const failed = EvalSchema.parse((await json(await post({ agent_id: "math", eval_type: "reliability", input: "add 2 and 3", expected_tool_calls: ["multiply"] }))).body);
      expect(failed.eval_data).toMatchObject({ eval_status: "FAILED", failed_tool_calls: ["add"], missing_tool_calls: ["multiply"] });
      const allowed = EvalSchema.parse(
        (await json(await post({ agent_id: "math", eval_type: "reliability", input: "add 2 and 3", expected_tool_calls: ["add"], expected_tool_call_arguments: { add: { a: 7 } } }))).body,
      );
      expect(allowed.eval_data).toMatchObject({ eval_status: "FAILED", failed_argument_checks: ["add"] });
      expect(allowed.eval_input).toMatchObject({ expected_tool_calls: ["add"], allow_additional_tool_calls: false, expected_tool_call_arguments: { add: { a: 7 } } });
    });

    it("model_id/model_provider run the agent on another model for this eval only; the judge stays the agent's own model unless judge_model_* names one; only admins name a model that is not configured", async () => {
      const refused = await json(await post({ agent_id: "math", eval_type: "accuracy", input: "say x", expected_output: "x", model_id: "scripted-large", model_provider: "OpenAILike" }));
      expect(refused.status).toBe(403);
      expect(refused.body.detail).toBe("model_id 'scripted-large' is not a model configured on this server; only admins may name another (configured openai-compatible models: scripted)");
      const judgeRefused = await json(
        await post({ agent_id: "math", eval_type: "accuracy", input: "say x", expected_output: "x", judge_model_id: "strict-judge", judge_model_provider: "openai-compatible" }),
      );
      expect(judgeRefused.status).toBe(403);
      // A member may name a configured model.
      expect((await post({ agent_id: "math", eval_type: "performance", input: "say x", model_id: "scripted", model_provider: "openai-compatible" })).status).toBe(200);
      const before = server.requests.length;
      const run = EvalSchema.parse(
        (await json(await post({ agent_id: "math", eval_type: "accuracy", input: "say x", expected_output: "x", model_id: "scripted-large", model_provider: "OpenAILike" }, who.admin))).body,
      );
      expect(run).toMatchObject({ model_id: "scripted-large", model_provider: "openai-compatible" });
      expect(server.requests.slice(before).map((r) => [r.body.model, r.body.response_format !== undefined])).toEqual([
        ["scripted-large", false],
        ["scripted", true],
      ]);
      const judged = server.requests.length;
      await post({ agent_id: "math", eval_type: "accuracy", input: "say x", expected_output: "x", judge_model_id: "strict-judge", judge_model_provider: "openai-compatible" }, who.admin);
      expect(server.requests.slice(judged).map((r) => r.body.model)).toEqual(["scripted", "strict-judge"]);
      // The agent's next ordinary run is back on its own model.
      await app.call("POST", "/agents/math/runs", { form: { message: "hi", stream: "false" }, principal: a });
      expect(server.requests.at(-1)!.body.model).toBe("scripted");
    });

    it("re-running the same eval stores a new row each time; both results stay", async () => {
      const body = { agent_id: "math", eval_type: "accuracy", input: "say rerun", expected_output: "rerun", name: "re-run check" };
      const first = EvalSchema.parse((await json(await post(body))).body);
      const second = EvalSchema.parse((await json(await post(body))).body);
      expect(second.id).not.toBe(first.id);
      expect((second.eval_data as Json).run_id).toBe(second.id);
      const listed = EvalListSchema.parse((await json(await get("/eval-runs?limit=100"))).body);
      expect(
        listed.data
          .filter((r) => r.name === "re-run check")
          .map((r) => r.id)
          .sort(),
      ).toEqual([first.id, second.id].sort());
    });

    it("answers Agno's 400, 404 and 422 for bad requests, naming the problem; nothing is stored", async () => {
      const count = async () => EvalListSchema.parse((await json(await get("/eval-runs?limit=1", who.admin))).body).meta.total_count;
      const before = await count();
      const cases: [Json, number, string | RegExp][] = [
        [{ eval_type: "accuracy", input: "x", expected_output: "x" }, 400, "One of agent_id or team_id must be provided"],
        [{ agent_id: "math", team_id: "t", eval_type: "accuracy", input: "x", expected_output: "x" }, 400, "Only one of agent_id or team_id must be provided"],
        [{ agent_id: "ghost", eval_type: "accuracy", input: "x" }, 404, "Agent with id 'ghost' not found"],
        [{ team_id: "crew", eval_type: "accuracy", input: "x", expected_output: "x" }, 404, "Team with id 'crew' not found"],
        [{ agent_id: "math", eval_type: "accuracy", input: "x" }, 400, "expected_output is required for accuracy evaluation"],
        [{ agent_id: "math", eval_type: "accuracy", input: "x", expected_output: "" }, 400, "expected_output is required for accuracy evaluation"],
        [{ agent_id: "math", eval_type: "agent_as_judge", input: "x" }, 400, "criteria is required for agent-as-judge evaluation"],
        [{ agent_id: "math", eval_type: "reliability", input: "x" }, 400, "expected_tool_calls is required for reliability evaluations"],
        [{ agent_id: "math", eval_type: "reliability", input: "x", expected_tool_calls: [] }, 400, "expected_tool_calls is required for reliability evaluations"],
        [{ agent_id: "math", eval_type: "performance", input: "x", model_id: "m" }, 400, /^model_id and model_provider go together/],
        [
          { agent_id: "math", eval_type: "performance", input: "x", model_id: "m", model_provider: "cohere" },
          400,
          /^model_provider 'cohere' is not a provider Agentry knows: use one of openai, anthropic, openai-compatible, mistral, cerebras, groq, google$/,
        ],
        [{ agent_id: "math", eval_type: "performance", input: "x", model_id: "m", model_provider: "MistralChat" }, 400, /^model_provider 'MistralChat': no mistral model is configured on this server/],
        [{ agent_id: "math", eval_type: "performance", input: "x", model_id: "claude", model_provider: "anthropic" }, 400, /no anthropic model is configured on this server/],
        [{ agent_id: "no-model", eval_type: "performance", input: "x" }, 400, /^Agent 'no-model' has no model configured/],
        [{ agent_id: "math", eval_type: "bogus", input: "x" }, 422, "eval_type"],
        [{ agent_id: "math", eval_type: "performance", input: "" }, 422, "input"],
        [{ agent_id: "math", eval_type: "performance" }, 422, "input"],
        [{ agent_id: "math", eval_type: "performance", input: "x", num_iterations: 0 }, 422, "num_iterations"],
        [{ agent_id: "math", eval_type: "performance", input: "x", num_iterations: 101 }, 422, "num_iterations"],
        [{ agent_id: "math", eval_type: "performance", input: "x", warmup_runs: 11 }, 422, "warmup_runs"],
        [{ agent_id: "math", eval_type: "performance", input: "x", warmup_runs: -1 }, 422, "warmup_runs"],
        [{ agent_id: "math", eval_type: "agent_as_judge", input: "x", criteria: "c", threshold: 0 }, 422, "threshold"],
        [{ agent_id: "math", eval_type: "agent_as_judge", input: "x", criteria: "c", threshold: 11 }, 422, "threshold"],
        [{ agent_id: "math", eval_type: "agent_as_judge", input: "x", criteria: "c", scoring_strategy: "fuzzy" }, 422, "scoring_strategy"],
      ];
      for (const [body, status, detail] of cases) {
        const response = await json(await post(body));
        expect(response.status, JSON.stringify(body)).toBe(status);
        const text = typeof response.body.detail === "string" ? response.body.detail : JSON.stringify(response.body.detail);
        if (typeof detail === "string") expect(text, JSON.stringify(body)).toContain(detail);
        else expect(text, JSON.stringify(body)).toMatch(detail);
      }
      // Agno's order: an unknown agent is a 404 before the kind's 400.
      expect((await post({ agent_id: "ghost", eval_type: "reliability", input: "x" })).status).toBe(404);
      expect(await count()).toBe(before);
      // Running an eval needs the right to run the agent.
      const noRun = await json(await post({ agent_id: "math", eval_type: "performance", input: "x" }, withScopes(who.a, ["evals:write"])));
      expect(noRun).toEqual({ status: 403, body: { detail: "Insufficient permissions. Required scope(s): agents:run (running an eval runs the agent)" } });
      expect((await post({ agent_id: "math", eval_type: "performance", input: "say ok" }, withScopes(who.a, ["evals:write", "agents:math:run"]))).status).toBe(200);
      expect((await post({ agent_id: "math", eval_type: "performance", input: "x" }, withScopes(who.a, ["evals:read", "agents:run"]))).status).toBe(403);
    });

    it("lists with Agno's filters, sorting and paging: a bad eval_types, type or sort_order is a 422, an unknown sort_by keeps created_at", async () => {
      const p = mintPrincipals("list");
      const me = withScopes(p.a, EVAL_SCOPES);
      for (const body of [
        { agent_id: "math", eval_type: "reliability", input: "add 1 and 1", expected_tool_calls: ["add"], name: "r" },
        { agent_id: "math", eval_type: "performance", input: "say p", name: "p" },
        { agent_id: "math", eval_type: "agent_as_judge", input: "say j", criteria: "c", name: "j" },
      ]) {
        expect((await post(body, me)).status).toBe(200);
        await new Promise((r) => setTimeout(r, 1100)); // distinct created_at seconds
      }
      const names = async (query: string) => EvalListSchema.parse((await json(await get(`/eval-runs${query}`, me))).body).data.map((r) => r.name);
      expect(await names("")).toEqual(["j", "p", "r"]);
      expect(await names("?sort_order=asc")).toEqual(["r", "p", "j"]);
      expect(await names("?sort_by=name&sort_order=asc")).toEqual(["j", "p", "r"]);
      expect(await names("?sort_by=no_such_field")).toEqual(["j", "p", "r"]);
      expect(await names("?eval_types=performance,reliability")).toEqual(["p", "r"]);
      expect(await names("?eval_types=agent_as_judge")).toEqual(["j"]);
      expect(await names("?agent_id=math&model_id=scripted&type=agent")).toEqual(["j", "p", "r"]);
      expect(await names("?type=team")).toEqual([]);
      expect(await names("?model_id=other")).toEqual([]);
      const paged = EvalListSchema.parse((await json(await get("/eval-runs?limit=2&page=2", me))).body);
      expect(paged.data.map((r) => r.name)).toEqual(["r"]);
      expect(paged.meta).toMatchObject({ page: 2, limit: 2, total_count: 3, total_pages: 2 });
      const badKinds = await json(await get("/eval-runs?eval_types=accuracy,nope", me));
      expect(badKinds.status).toBe(422);
      expect(JSON.stringify(badKinds.body.detail)).toContain("Invalid eval_type: 'nope' is not a valid EvalType. Valid types: accuracy, agent_as_judge, performance, reliability");
      expect((await get("/eval-runs?sort_order=sideways", me)).status).toBe(422);
      expect((await get("/eval-runs?type=crew", me)).status).toBe(422);
      expect((await get("/eval-runs?limit=0", me)).status).toBe(422);
    });

    it("renames (PATCH name), deletes one and several; within the caller's own rows only", async () => {
      const mine = EvalSchema.parse((await json(await post({ agent_id: "math", eval_type: "performance", input: "say r" }))).body);
      const theirs = EvalSchema.parse((await json(await post({ agent_id: "math", eval_type: "performance", input: "say r" }, b))).body);
      const renamed = await json(await app.call("PATCH", `/eval-runs/${mine.id}`, { json: { name: "nightly" }, principal: a }));
      expect(renamed.status).toBe(200);
      expect(EvalSchema.parse(renamed.body).name).toBe("nightly");
      expect((await app.call("PATCH", `/eval-runs/${mine.id}`, { json: { name: "" }, principal: a })).status).toBe(422);
      expect((await app.call("PATCH", `/eval-runs/${mine.id}`, { json: { name: "x".repeat(256) }, principal: a })).status).toBe(422);
      expect(await json(await app.call("PATCH", `/eval-runs/${theirs.id}`, { json: { name: "hijacked" }, principal: a }))).toEqual({
        status: 404,
        body: { detail: `Eval run with id '${theirs.id}' not found` },
      });
      // Bulk delete takes the caller's own among the ids and leaves the others.
      expect((await app.call("DELETE", "/eval-runs", { json: { eval_run_ids: [] }, principal: a })).status).toBe(422);
      expect((await app.call("DELETE", "/eval-runs", { json: { eval_run_ids: [""] }, principal: a })).status).toBe(422);
      expect((await app.call("DELETE", "/eval-runs", { json: { eval_run_ids: Array.from({ length: 1001 }, (_, i) => `id-${i}`) }, principal: a })).status).toBe(422);
      expect((await app.call("DELETE", "/eval-runs", { json: { eval_run_ids: [mine.id, theirs.id] }, principal: a })).status).toBe(204);
      expect((await get(`/eval-runs/${mine.id}`)).status).toBe(404);
      expect((await get(`/eval-runs/${theirs.id}`, b)).status).toBe(200);
      expect((await app.call("DELETE", `/eval-runs/${theirs.id}`, { principal: a })).status).toBe(404);
      expect((await app.call("DELETE", `/eval-runs/${theirs.id}`, { principal: b })).status).toBe(204);
    });

    it("a member sees only its own eval runs; an admin sees everyone's, or one user's with user_id", async () => {
      const p = mintPrincipals("iso");
      const pa = withScopes(p.a, EVAL_SCOPES);
      const pb = withScopes(p.b, EVAL_SCOPES);
      const ofA = EvalSchema.parse((await json(await post({ agent_id: "math", eval_type: "performance", input: "say A's secret" }, pa))).body);
      const ofB = EvalSchema.parse((await json(await post({ agent_id: "math", eval_type: "performance", input: "say B" }, pb))).body);
      expect([ofA.user_id, ofB.user_id]).toEqual([p.userA, p.userB]);
      const bList = await get(`/eval-runs?user_id=${p.userA}&limit=100`, pb);
      const text = await bList.text();
      expect(text).not.toContain(ofA.id);
      expect(text).not.toContain("A's secret");
      expect(text).toContain(ofB.id);
      expect((await get(`/eval-runs/${ofA.id}`, pb)).status).toBe(404);
      expect((await get(`/eval-runs/${ofA.id}?user_id=${p.userA}`, pb)).status).toBe(404);
      const adminAll = EvalListSchema.parse((await json(await get("/eval-runs?limit=1000", who.admin))).body).data.map((r) => r.id);
      expect(adminAll).toEqual(expect.arrayContaining([ofA.id, ofB.id]));
      const adminOne = EvalListSchema.parse((await json(await get(`/eval-runs?user_id=${p.userB}`, who.admin))).body).data.map((r) => r.id);
      expect(adminOne).toEqual([ofB.id]);
      expect((await get(`/eval-runs/${ofA.id}`, who.admin)).status).toBe(200);
    });

    it("background=true answers 202 with the PENDING run at once; it runs in this process and the row follows it to COMPLETED", async () => {
      const started = await json(await post({ agent_id: "math", eval_type: "accuracy", input: "say later", expected_output: "later", num_iterations: 2 }, a, "?background=true"));
      expect(started.status).toBe(202);
      const pending = EvalSchema.parse(started.body);
      expect(["PENDING", "RUNNING"]).toContain(pending.status);
      expect(pending.eval_data).toEqual({});
      await until("the background eval completes", async () => EvalSchema.parse((await json(await get(`/eval-runs/${pending.id}`))).body).status === "COMPLETED");
      const done = EvalSchema.parse((await json(await get(`/eval-runs/${pending.id}`))).body);
      expect(done.eval_data).toMatchObject({ run_id: pending.id, avg_score: 10 });
      expect(done.run_details).toMatchObject({ background: true, progress: { done: 4, total: 4 } });
      // The body's flag does the same.
      const flagged = await json(await post({ agent_id: "math", eval_type: "performance", input: "say b", background: true }));
      expect(flagged.status).toBe(202);
      await until("the second background eval completes", async () => EvalSchema.parse((await json(await get(`/eval-runs/${flagged.body.id}`))).body).status === "COMPLETED");
    });

    it("/config lists the eval database under evals.dbs", async () => {
      const config = (await json(await app.call("GET", "/config", { principal: who.admin }))).body as { evals: { dbs: { db_id: string; tables: string[] }[] } };
      expect(config.evals.dbs).toEqual([expect.objectContaining({ db_id: app.settings.database.id, tables: ["agno_eval_runs"] })]);
    });
  });
});
