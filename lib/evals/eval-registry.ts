/**
 * The evals running in this process, by eval run id, each with the controller that stops it — so
 * a cancel reaches an eval this process runs (a synchronous one, or one in the background without
 * the durable queue). Process-wide state on `globalThis`: Next bundles route handlers, server
 * actions and instrumentation as separate module graphs, and a module-level map would exist once
 * per graph.
 */
type Holder = typeof globalThis & { __agentryEvalRuns?: Map<string, AbortController> };

function runs(): Map<string, AbortController> {
  const holder = globalThis as Holder;
  holder.__agentryEvalRuns ??= new Map();
  return holder.__agentryEvalRuns;
}

/** Registers an eval running here; the returned function removes it when it ends. */
export function registerEvalRun(id: string, controller: AbortController): () => void {
  runs().set(id, controller);
  return () => {
    if (runs().get(id) === controller) runs().delete(id);
  };
}

/** How many evals this process runs now. */
export function runningEvalCount(): number {
  return runs().size;
}

/** Stops an eval running here with `reason`; false when this process runs no such eval. */
export function abortEvalRun(id: string, reason: Error): boolean {
  const controller = runs().get(id);
  if (!controller) return false;
  controller.abort(reason);
  return true;
}

/** Why a cancelled eval stopped, as its row and its job record it. */
export const EVAL_CANCEL_REASON = "Cancelled by request";

/** The reason an eval is aborted with when it is cancelled. */
export class EvalCancelledError extends Error {
  override readonly name = "EvalCancelledError";
  constructor() {
    super(EVAL_CANCEL_REASON);
  }
}

/** Whether an abort reason is a cancel (this module's, or the queue's JobCancelledError) rather than a timeout or a lost lease. */
export const isCancelReason = (reason: unknown): boolean => reason instanceof Error && (reason.name === "EvalCancelledError" || reason.name === "JobCancelledError");
