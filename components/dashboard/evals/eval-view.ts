import type { EvalRunStatus, EvalType, StoredEvalRun } from "@/lib/db/evals/eval-runs.ts";
import { evalHeadline } from "@/lib/evals/eval-summary.ts";

/** An eval run as the Evals table shows it (plain data: it crosses to the client table). */
export interface EvalRow {
  id: string;
  name: string | null;
  eval_type: EvalType;
  kind: string;
  agent_id: string | null;
  team_id: string | null;
  model: string | null;
  status: EvalRunStatus;
  /** The result in a line (score, pass rate, mean time, PASSED/FAILED), or where the run stands. */
  result: string;
  passed: boolean | null;
  progress: string | null;
  created_at: number;
  /** The owner's email when they are a dashboard user, else their user id; null for a shared run. */
  owner: string | null;
}

export const EVAL_KIND_LABELS: Record<EvalType, string> = {
  accuracy: "Accuracy",
  agent_as_judge: "Agent as judge",
  performance: "Performance",
  reliability: "Reliability",
};

/** The dashboard page of an eval run. */
export const evalHref = (id: string) => `/dashboard/evals/${encodeURIComponent(id)}`;

/** The dashboard page of a run an eval made. */
export const evalAgentRunHref = (runId: string, sessionId: string | null) => `/dashboard/runs/${encodeURIComponent(runId)}${sessionId ? `?session_id=${encodeURIComponent(sessionId)}` : ""}`;

/** "3 / 10 steps" while it runs, from the row's progress. */
export function progressOf(run: Pick<StoredEvalRun, "run_details">): string | null {
  const progress = (run.run_details?.progress ?? null) as { done?: number; total?: number | null } | null;
  if (!progress || typeof progress.done !== "number") return null;
  return typeof progress.total === "number" ? `${progress.done} / ${progress.total} steps` : `${progress.done} steps`;
}

export function evalRowOf(run: StoredEvalRun, ownerLabel: (userId: string | null) => string | null): EvalRow {
  const headline = evalHeadline(run);
  const done = run.run_status === "COMPLETED";
  return {
    id: run.run_id,
    name: run.name,
    eval_type: run.eval_type,
    kind: EVAL_KIND_LABELS[run.eval_type] ?? run.eval_type,
    agent_id: run.agent_id,
    team_id: run.team_id,
    model: run.model_id ? `${run.model_id}${run.model_provider ? ` (${run.model_provider})` : ""}` : null,
    status: run.run_status,
    result: done ? headline.label : run.run_status === "ERROR" || run.run_status === "CANCELLED" ? String(run.run_details?.error ?? run.run_status) : run.run_status.toLowerCase(),
    passed: done ? headline.passed : null,
    progress: run.run_status === "RUNNING" || run.run_status === "PENDING" ? progressOf(run) : null,
    created_at: run.created_at,
    owner: ownerLabel(run.user_id),
  };
}
