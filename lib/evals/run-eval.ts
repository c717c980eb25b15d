import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { Db } from "../db/open-database.ts";
import type { DataScope } from "../db/scope.ts";
import { getEvalRun, writeEvalRunState, type EvalRunStatus, type StoredEvalRun } from "../db/evals/eval-runs.ts";
import { accuracyJudgeInput, accuracyJudgeInstructions, accuracyResult, ACCURACY_JUDGE_SCHEMA, type AccuracyEvaluation } from "./accuracy.ts";
import { runAgentOnce, type AgentIteration } from "./agent-iteration.ts";
import type { EvalPlan } from "./eval-plan.ts";
import { judgeEvaluation, judgeInput, judgeInstructions, judgeResult, JUDGE_SCHEMAS, type JudgeEvaluation } from "./judge.ts";
import { callJudge } from "./judge-call.ts";
import { performanceResult, storedPerformanceData } from "./performance.ts";
import { evaluateReliability } from "./reliability.ts";
import { EVAL_CANCEL_REASON, isCancelReason, registerEvalRun } from "./eval-registry.ts";
import { resultFilePath } from "./result-file.ts";

/**
 * Runs an eval whose row is stored (PENDING or RUNNING) to its end, writing the row as it goes:
 * RUNNING with its progress after every agent run and judge call (and a heartbeat at least every
 * HEARTBEAT_MS), then COMPLETED with Agno's `eval_data` for the kind — or ERROR with the reason,
 * or CANCELLED when `signal` is aborted. Each agent run is a real run of the owner (see
 * ./agent-iteration.ts) listed in `run_details.agent_runs`, so the dashboard links to it.
 *
 * As Agno's evals do, an accuracy or agent-as-judge iteration whose run gave no answer, or whose
 * judge gave no usable score, is left out of the figures (and listed in `run_details.failures`);
 * the eval fails only when no iteration was scored. A performance eval fails on any run that did
 * not complete (its time would mean nothing); a reliability eval judges its one run's tool calls.
 */

export const HEARTBEAT_MS = 60_000;

/** The eval ended without a result: its row says ERROR with this message. */
export class EvalFailedError extends Error {
  override readonly name = "EvalFailedError";
  constructor(
    message: string,
    readonly evalRunId: string,
  ) {
    super(message);
  }
}

/** The eval's row stopped taking writes (deleted, ended elsewhere, or its job's claim moved on): the eval stops quietly. */
export class EvalStoppedError extends Error {
  override readonly name = "EvalStoppedError";
}

export interface AgentRunRef {
  run_id: string;
  session_id: string;
  iteration: number;
  phase: "warmup" | "measured";
  status: string;
  run_time: number;
  total_tokens: number;
  error?: string;
}

export interface EvalExecution {
  db: Db;
  plan: EvalPlan;
  /** The owner's scope: the eval's row and its agent runs are written in it. */
  scope: DataScope;
  userId: string | null;
  runId: string;
  signal?: AbortSignal;
  /** A condition on the eval's job row (`agno_jobs j`, id bound first) every write needs: the claim's fence. */
  fence?: { clause: string; params: readonly unknown[] };
  /** A path template ({run_id}, {name}) the result is also written to as JSON (the library's storeResultInFile; never from a request). */
  storeResultInFile?: string;
  /** Marks the details of a run started in the background. */
  background?: boolean;
}

const now = () => Math.floor(Date.now() / 1000);
const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

function totalSteps(plan: EvalPlan): number {
  const { eval_type: kind, num_iterations: n, warmup_runs: warmup } = plan.input;
  if (kind === "performance") return warmup + n;
  if (kind === "reliability") return 1;
  return n * 2;
}

export async function executeEval(execution: EvalExecution): Promise<StoredEvalRun> {
  const { db, plan, scope, runId, signal } = execution;
  const abort = new AbortController();
  const onAbort = () => abort.abort(signal?.reason);
  if (signal?.aborted) onAbort();
  else signal?.addEventListener("abort", onAbort, { once: true });
  const model = plan.agent.definition.model!;
  const details = {
    progress: { done: 0, total: totalSteps(plan) },
    agent_runs: [] as AgentRunRef[],
    judge: plan.judge ? { model_id: plan.judge.id, model_provider: plan.judge.provider } : null,
    model_override: plan.modelOverride,
    judge_tokens: 0,
    failures: [] as { iteration: number; error: string }[],
    error: null as string | null,
    started_at: now(),
    finished_at: null as number | null,
    ...(execution.background ? { background: true } : {}),
  };
  const write = async (status: EvalRunStatus, extra: { evalData?: Record<string, unknown> } = {}) => {
    const written = await writeEvalRunState(db, {
      scope,
      id: runId,
      fence: execution.fence,
      state: { status, details, evalData: extra.evalData, modelId: model.id, modelProvider: model.provider },
    });
    if (!written) throw new EvalStoppedError(`Eval run ${runId} no longer takes writes (deleted, ended elsewhere, or its job moved on)`);
  };
  const unregister = registerEvalRun(runId, abort);
  const heartbeat = setInterval(() => void write("RUNNING").catch(() => undefined), HEARTBEAT_MS);
  heartbeat.unref?.();
  const step = async () => {
    details.progress.done += 1;
    await write("RUNNING");
  };
  const run = async (iteration: number, phase: AgentRunRef["phase"]): Promise<AgentIteration> => {
    const result = await runAgentOnce({ db, agent: plan.agent, scope, userId: execution.userId, input: plan.input.input, evalRunId: runId, iteration, signal: abort.signal });
    details.agent_runs.push({
      run_id: result.run_id,
      session_id: result.session_id,
      iteration,
      phase,
      status: result.status,
      run_time: result.run_time,
      total_tokens: result.total_tokens,
      ...(result.error ? { error: result.error } : {}),
    });
    if (abort.signal.aborted) throw abort.signal.reason ?? new Error("cancelled");
    return result;
  };

  try {
    await write("RUNNING");
    const evalData = await runKind(plan, { runId, run, step, details, signal: abort.signal });
    details.finished_at = now();
    details.progress.done = details.progress.total;
    await write("COMPLETED", { evalData });
  } catch (error) {
    if (error instanceof EvalStoppedError) throw error;
    details.finished_at = now();
    // Aborted: cancelled (CANCELLED), or stopped by a timeout or a lost lease (ERROR; a lost lease's write is fenced out anyway).
    const reason = abort.signal.aborted ? (abort.signal.reason ?? error) : undefined;
    const cancelled = isCancelReason(reason);
    details.error = cancelled ? EVAL_CANCEL_REASON : messageOf(reason ?? error);
    await write(cancelled ? "CANCELLED" : "ERROR").catch(() => undefined);
    throw abort.signal.aborted ? reason : new EvalFailedError(details.error, runId);
  } finally {
    unregister();
    clearInterval(heartbeat);
    signal?.removeEventListener("abort", onAbort);
  }
  const stored = await getEvalRun(db, { scope, id: runId });
  if (!stored) throw new EvalStoppedError(`Eval run ${runId} was deleted as it ended`);
  // After the row is stored COMPLETED: a file that cannot be written fails the call, not the eval.
  if (execution.storeResultInFile) {
    const path = resultFilePath(execution.storeResultInFile, { runId, name: plan.input.name });
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, `${JSON.stringify(stored.eval_data, null, 2)}\n`);
  }
  return stored;
}

interface KindContext {
  runId: string;
  run: (iteration: number, phase: AgentRunRef["phase"]) => Promise<AgentIteration>;
  step: () => Promise<void>;
  details: { judge_tokens: number; failures: { iteration: number; error: string }[] };
  signal: AbortSignal;
}

async function runKind(plan: EvalPlan, ctx: KindContext): Promise<Record<string, unknown>> {
  switch (plan.input.eval_type) {
    case "accuracy":
      return { ...accuracyResult(ctx.runId, await judgedIterations(plan, ctx, judgeAccuracy)) };
    case "agent_as_judge":
      return { ...judgeResult(ctx.runId, await judgedIterations(plan, ctx, judgeCriteria)) };
    case "performance":
      return performance(plan, ctx);
    case "reliability":
      return reliability(plan, ctx);
  }
}

type Judging<T> = (plan: EvalPlan, output: string, signal: AbortSignal) => Promise<{ evaluation: T; total_tokens: number }>;

/** Runs the agent `num_iterations` times and has each answer judged; iterations with no answer or no usable score are skipped. */
async function judgedIterations<T>(plan: EvalPlan, ctx: KindContext, judge: Judging<T>): Promise<T[]> {
  const evaluations: T[] = [];
  for (let i = 1; i <= plan.input.num_iterations; i++) {
    const result = await ctx.run(i, "measured");
    await ctx.step();
    if (result.status !== "COMPLETED" || !result.output) {
      ctx.details.failures.push({ iteration: i, error: result.error ?? "The agent gave no answer" });
      await ctx.step();
      continue;
    }
    try {
      const judged = await judge(plan, result.output, ctx.signal);
      ctx.details.judge_tokens += judged.total_tokens;
      evaluations.push(judged.evaluation);
    } catch (error) {
      if (ctx.signal.aborted) throw error;
      ctx.details.failures.push({ iteration: i, error: messageOf(error) });
    }
    await ctx.step();
  }
  if (evaluations.length === 0) {
    throw new Error(`No iteration could be scored (${plan.input.num_iterations} tried): ${ctx.details.failures[0]?.error ?? "no answer"}`);
  }
  return evaluations;
}

const isScore = (value: unknown): value is number => typeof value === "number" && Number.isInteger(value) && value >= 1 && value <= 10;

const judgeAccuracy: Judging<AccuracyEvaluation> = async (plan, output, signal) => {
  const { input, expected_output, additional_guidelines, additional_context } = plan.input;
  const { answer, total_tokens } = await callJudge({
    spec: plan.judge!,
    instructions: accuracyJudgeInstructions({ guidelines: additional_guidelines, context: additional_context }),
    input: accuracyJudgeInput({ input, expectedOutput: expected_output!, output }),
    schema: ACCURACY_JUDGE_SCHEMA as unknown as Record<string, unknown>,
    check: (a) =>
      isScore(a.accuracy_score) && typeof a.accuracy_reason === "string"
        ? { score: a.accuracy_score, reason: a.accuracy_reason }
        : "accuracy_score must be a whole number from 1 to 10 and accuracy_reason a string",
    signal,
  });
  return { evaluation: { input, output, expected_output: expected_output!, score: answer.score, reason: answer.reason }, total_tokens };
};

const judgeCriteria: Judging<JudgeEvaluation> = async (plan, output, signal) => {
  const { input, criteria, scoring_strategy: strategy, threshold, additional_guidelines } = plan.input;
  const { answer, total_tokens } = await callJudge({
    spec: plan.judge!,
    instructions: judgeInstructions({ criteria: criteria!, strategy, guidelines: additional_guidelines }),
    input: judgeInput({ input, output }),
    schema: JUDGE_SCHEMAS[strategy] as unknown as Record<string, unknown>,
    check: (a) => {
      if (typeof a.reason !== "string") return "reason must be a string";
      if (strategy === "numeric") return isScore(a.score) ? { score: a.score, reason: a.reason } : "score must be a whole number from 1 to 10";
      return typeof a.passed === "boolean" ? { passed: a.passed, reason: a.reason } : "passed must be true or false";
    },
    signal,
  });
  return { evaluation: judgeEvaluation({ input, output, criteria: criteria!, strategy, threshold }, answer), total_tokens };
};

/** Warm-up runs first (not measured), then the measured runs: time, heap growth and tokens of each. */
async function performance(plan: EvalPlan, ctx: KindContext): Promise<Record<string, unknown>> {
  const runTimes: number[] = [];
  const memoryUsages: number[] = [];
  const tokens: number[] = [];
  const total = plan.input.warmup_runs + plan.input.num_iterations;
  for (let i = 1; i <= total; i++) {
    const warmup = i <= plan.input.warmup_runs;
    const result = await ctx.run(i, warmup ? "warmup" : "measured");
    if (result.status !== "COMPLETED") throw new Error(`Run ${result.run_id} (iteration ${i}) ended ${result.status}: ${result.error}`);
    if (!warmup) {
      runTimes.push(result.run_time);
      memoryUsages.push(result.heap_growth_mib);
      tokens.push(result.total_tokens);
    }
    await ctx.step();
  }
  return storedPerformanceData(performanceResult({ runTimes, memoryUsages, tokens }));
}

/** One run, its tool calls checked against the expectation (Agno's ReliabilityEval runs the agent once). */
async function reliability(plan: EvalPlan, ctx: KindContext): Promise<Record<string, unknown>> {
  const result = await ctx.run(1, "measured");
  if (result.status === "ERROR" || result.status === "CANCELLED") throw new Error(`Run ${result.run_id} ended ${result.status}: ${result.error}`);
  await ctx.step();
  return {
    ...evaluateReliability(result.tools, result.messages, {
      expectedToolCalls: plan.input.expected_tool_calls ?? [],
      allowAdditionalToolCalls: plan.input.allow_additional_tool_calls ?? false,
      expectedToolCallArguments: plan.input.expected_tool_call_arguments ?? null,
    }),
  };
}
