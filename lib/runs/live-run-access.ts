import type { Principal } from "../auth/principal.ts";
import type { LiveRun } from "../runtime/run-registry.ts";

/**
 * Whether `principal` may follow or cancel a run executing in this process, as the routes name
 * it (`agentId`, and the `session_id` a non-admin must give): an admin any run of that agent; a
 * member only its own run in that session. A run it may not reach is answered as not found.
 */
export function mayReachLiveRun(principal: Principal, live: LiveRun, { agentId, sessionId }: { agentId: string; sessionId?: string | null }): boolean {
  if (live.agentId !== agentId) return false;
  return principal.isAdmin || (live.userId === principal.userId && live.sessionId === sessionId);
}
