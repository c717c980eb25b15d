export type RunType = "agent" | "team" | "workflow";

/**
 * Classifies a stored run dict the way the sessions API does: a workflow run carries workflow
 * step data, a team run a team id without an agent id, an agent run an agent id; anything else
 * takes its session's type.
 */
export function runTypeOf(run: Record<string, unknown>, sessionType: string | null | undefined): RunType {
  if (run.workflow_id && ("step_results" in run || "step_executor_runs" in run || (!run.agent_id && !run.team_id))) {
    return "workflow";
  }
  if (run.team_id && !run.agent_id) return "team";
  if (run.agent_id) return "agent";
  return sessionType === "team" || sessionType === "workflow" ? sessionType : "agent";
}
