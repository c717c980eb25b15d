import type { Db } from "../../db/open-database.ts";
import type { DataScope } from "../../db/scope.ts";
import { HttpError } from "../../errors/http-error.ts";
import { requestCancel } from "../../live-runs/run-registry.ts";
import type { RuntimeAgent } from "../../runtime/agents.ts";
import { startExternalRun } from "../../runtime/external/external-run.ts";
import type { RunOutput } from "../../runtime/run-output.ts";
import { runEventStream, sseResponse } from "../sse.ts";
import { shownRun } from "../views/run-views.ts";

/**
 * A run of an external agent (lib/runtime/external/), on POST /agents/{agent_id}/runs. It always
 * runs inline in this process, never on the durable queue, as Agno's adapters ignore
 * `background`: streamed, its events go to this client and a client that goes away cancels it
 * (it cannot be resumed elsewhere); not streamed, the answer is its RunOutput, 200 whatever its
 * status (an adapter's exception is `status: "ERROR"` with its text as `content`; the state the
 * adapter keeps, `external_state`, is stored but not answered) — and with
 * `background=true` a 202 with the run's id, session and status (COMPLETED or ERROR) once it has
 * ended, as Agno's route answers. Background runs need a database in Agno; Agentry always has one.
 */
export async function answerExternalRun({
  db,
  agent,
  scope,
  userId,
  message,
  sessionId,
  metadata,
  stream,
  background,
  files,
}: {
  db: Db;
  agent: RuntimeAgent;
  scope: DataScope;
  userId: string | null;
  message: string;
  sessionId?: string;
  metadata?: Record<string, unknown> | null;
  stream: boolean;
  background: boolean;
  /** How many files were uploaded: an external agent takes none. */
  files: number;
}): Promise<Response | RunOutput> {
  if (files > 0) throw new HttpError(400, `Agent '${agent.definition.id}' runs on ${agent.external!.framework} and takes no files: send the input as message`);
  const started = await startExternalRun({ db, agent, scope, userId, message, sessionId, metadata, stream });
  if (stream) {
    const lastEventIndex = started.firstEventIndex > 0 ? started.firstEventIndex - 1 : null;
    return sseResponse(runEventStream({ live: started.live, lastEventIndex, onDisconnect: () => requestCancel(started.runId) }));
  }
  const output = await started.done;
  if (!background) return shownRun(output);
  return new Response(JSON.stringify({ run_id: output.run_id, session_id: output.session_id, status: output.status }), {
    status: 202,
    headers: { "content-type": "application/json" },
  });
}
