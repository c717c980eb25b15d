import type { Principal } from "../auth/principal.ts";
import type { LiveRun } from "../live-runs/run-registry.ts";

export { isRunOf } from "../runtime/agents.ts";

/** An agent or a team, as a route's path names it. */
export interface RunComponent {
  type: "agent" | "team" | "workflow";
  id: string;
}

/**
 * Whether `principal` may follow or cancel a run executing in this process, as the routes name
 * it (the agent or team, and the `session_id` a non-admin must give): an admin any run of that
 * component; a member only its own run in that session. A run it may not reach is answered as not found.
 */
export function mayReachLiveRun(principal: Principal, live: LiveRun, { component, sessionId }: { component: RunComponent; sessionId?: string | null }): boolean {
  if (live.componentType !== component.type || live.componentId !== component.id) return false;
  return principal.isAdmin || (live.userId === principal.userId && live.sessionId === sessionId);
}
