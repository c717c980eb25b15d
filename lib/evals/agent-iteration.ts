import type { Db } from "../db/open-database.ts";
import type { DataScope } from "../db/scope.ts";
import type { RuntimeAgent } from "../runtime/agents.ts";
import { startAgentRun } from "../runtime/agent-run.ts";
import type { AgnoMessage, RunStatus, ToolExecution } from "../runtime/run-output.ts";
import { RunCancelledSignal, RunTimeoutSignal } from "../live-runs/run-registry.ts";
import { LeaseLostError } from "../runtime/run-writer.ts";

/** One run of the evaluated agent, as an eval reads it. */
export interface AgentIteration {
  run_id: string;
  session_id: string;
  status: RunStatus;
  /** The answer as text (structured content as JSON); empty when there is none. */
  output: string;
  /** Why the run did not complete, when it did not. */
  error: string | null;
  /** Wall time from the start to the stored end, in seconds. */
  run_time: number;
  /** Node's heap growth across the run, in MiB (what this process allocated and still held at its end). */
  heap_growth_mib: number;
  total_tokens: number;
  tools: ToolExecution[];
  messages: AgnoMessage[];
}

const MIB = 1024 * 1024;

function textOf(content: unknown): string {
  if (content === null || content === undefined) return "";
  return typeof content === "string" ? content : JSON.stringify(content);
}

/**
 * Runs the agent once on `input` as a real run of its owner (a new session, as Agno's evals run
 * `agent.arun(input)`), stored like any other run, with `metadata.eval_run_id` saying which eval
 * made it. Never throws for the run's own failure: it comes back with its status and error.
 */
export async function runAgentOnce({
  db,
  agent,
  scope,
  userId,
  input,
  evalRunId,
  iteration,
  signal,
}: {
  db: Db;
  agent: RuntimeAgent;
  scope: DataScope;
  userId: string | null;
  input: string;
  evalRunId: string;
  iteration: number;
  signal?: AbortSignal;
}): Promise<AgentIteration> {
  const { signal: runSignal, dispose } = agentRunSignal(signal);
  const heapBefore = process.memoryUsage().heapUsed;
  const started = performance.now();
  const run = await startAgentRun({
    db,
    agent,
    scope,
    userId,
    message: input,
    stream: false,
    metadata: { eval_run_id: evalRunId, eval_iteration: iteration },
    signal: runSignal,
    // Each run an eval makes is the root of its own trace, marked with the eval.
    trace: { attributes: { "agno.eval.id": evalRunId } },
  });
  const output = await run.done.finally(dispose);
  const runTime = (performance.now() - started) / 1000;
  const heapGrowth = Math.max(0, process.memoryUsage().heapUsed - heapBefore) / MIB;
  const failed = output.status !== "COMPLETED";
  return {
    run_id: output.run_id,
    session_id: output.session_id,
    status: output.status,
    output: textOf(output.content),
    error: failed ? (output.error?.message ?? (textOf(output.content) || `The run ended ${output.status}`)) : null,
    run_time: runTime,
    heap_growth_mib: heapGrowth,
    total_tokens: output.metrics?.total_tokens ?? 0,
    tools: output.tools ?? [],
    messages: output.messages ?? [],
  };
}

/**
 * The signal the agent run stops by when the eval stops: a timeout or a lost lease as they are
 * (the runtime knows both), anything else — a cancel of the eval — as the run's own cancel, so the
 * run ends CANCELLED rather than with an internal error.
 */
function agentRunSignal(signal: AbortSignal | undefined): { signal: AbortSignal | undefined; dispose: () => void } {
  if (!signal) return { signal: undefined, dispose: () => undefined };
  const controller = new AbortController();
  const forward = () => {
    const reason: unknown = signal.reason;
    const known = reason instanceof RunTimeoutSignal || reason instanceof LeaseLostError || reason instanceof RunCancelledSignal;
    controller.abort(known ? reason : new RunCancelledSignal(`The eval stopped: ${reason instanceof Error ? reason.message : "cancelled"}`));
  };
  if (signal.aborted) forward();
  else signal.addEventListener("abort", forward, { once: true });
  // The eval's signal outlives its runs: each run's listener goes with the run.
  return { signal: controller.signal, dispose: () => signal.removeEventListener("abort", forward) };
}
