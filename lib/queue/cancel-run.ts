import type { Principal } from "../auth/principal.ts";
import { dataScopeFor } from "../auth/principal.ts";
import type { Settings } from "../config/settings.ts";
import { requestJobCancel } from "../db/jobs/index.ts";
import type { Db } from "../db/open-database.ts";
import { getRun, transitionRunStatus } from "../db/runs/runs.ts";
import { getLiveRun, requestCancel } from "../runtime/run-registry.ts";
import { queueCoordination } from "./embedded-worker.ts";

/**
 * Cancels one of an agent's runs as `principal` sees it, wherever the run is: a durable job (the
 * intent recorded in the database, signalled over Redis), a live run in this process, a paused
 * run (made CANCELLED where it is stored, so a later continue gets 409), or — for admins only, and
 * unless `recordUnseen` is false — a run this server has not seen yet (the intent is kept). "not_found" when the principal may not
 * see the run; the API answers 404 for it, the dashboard says so.
 */
export async function cancelAgentRun(
  { db, settings, principal }: { db: Db; settings: Settings; principal: Principal },
  { agentId, runId, sessionId, recordUnseen = true }: { agentId: string; runId: string; sessionId?: string; recordUnseen?: boolean },
): Promise<"cancelled" | "not_found"> {
  const scope = dataScopeFor(principal);
  if (settings.queue.durable) {
    const stored = await getRun(db, { scope, runId, sessionId });
    if (stored && stored.agent_id === agentId && (await requestJobCancel(db, { scope, id: runId })) !== null) {
      requestCancel(runId);
      queueCoordination(settings)?.publishCancel(runId);
      return "cancelled";
    }
  }
  const live = getLiveRun(runId);
  if (live && !live.done) {
    const mine = principal.isAdmin || (live.userId === principal.userId && live.sessionId === sessionId);
    if (live.agentId !== agentId || !mine) return "not_found";
    requestCancel(runId);
    return "cancelled";
  }
  const stored = await getRun(db, { scope, runId, sessionId });
  if (!stored) {
    // The API lets an admin cancel a run before it exists; the dashboard only cancels runs it shows.
    if (!principal.isAdmin || !recordUnseen) return "not_found";
    requestCancel(runId);
    return "cancelled";
  }
  if (stored.agent_id !== agentId) return "not_found";
  if (stored.status === "PAUSED") await transitionRunStatus(db, { scope, runId, from: "PAUSED", to: "CANCELLED" });
  else requestCancel(runId);
  return "cancelled";
}
