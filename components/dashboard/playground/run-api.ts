import type { ToolExecution } from "@/lib/runtime/run-output.ts";
import { readSse } from "./sse-events.ts";

/** A run event as the API streams it: Agno's payload, which always names its own `event`. */
export type RunStreamEvent = { event: string; run_id?: string; session_id?: string; [field: string]: unknown };

/** The API refused a request; `message` is the server's `detail`. */
export class ApiError extends Error {
  override readonly name = "ApiError";
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** The server's `detail`: a string, or FastAPI-style validation items (`[{ msg }]`). */
function detailText(detail: unknown): string | null {
  if (typeof detail === "string" && detail) return detail;
  if (Array.isArray(detail)) return detail.map((item) => (item && typeof item === "object" && "msg" in item ? String(item.msg) : JSON.stringify(item))).join("; ");
  if (detail && typeof detail === "object") return JSON.stringify(detail);
  return null;
}

async function refusal(response: Response): Promise<ApiError> {
  const body: unknown = await response.json().catch(() => null);
  const detail = body && typeof body === "object" ? detailText((body as { detail?: unknown }).detail) : null;
  return new ApiError(detail ?? `The server answered ${response.status} ${response.statusText}`.trim(), response.status);
}

/** Same-origin POST: the signed-in dashboard cookie authenticates it. Network failures say so. */
async function post(path: string, init: { body?: FormData; signal?: AbortSignal }): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(path, { method: "POST", body: init.body, signal: init.signal, headers: { accept: "text/event-stream, application/json" } });
  } catch (error) {
    if (init.signal?.aborted) throw error;
    throw new ApiError(`Could not reach the server: ${(error as Error).message}`, 0);
  }
  if (!response.ok) throw await refusal(response);
  return response;
}

async function* runEvents(response: Response): AsyncGenerator<RunStreamEvent> {
  if (!response.body) return;
  for await (const message of readSse(response.body)) {
    let payload: unknown;
    try {
      payload = JSON.parse(message.data);
    } catch {
      continue; // not a run event (the API sends only JSON data; anything else is not ours to show)
    }
    if (payload && typeof payload === "object") yield { event: message.event, ...(payload as object) } as RunStreamEvent;
  }
}

/** An agent's or a team's runs: the same API under /agents or /teams. */
export interface RunTarget {
  kind: "agent" | "team" | "workflow";
  id: string;
  /** A stored component's version to run (the form's `version`); absent: the current one. */
  version?: number;
}

const runsPath = (target: RunTarget) => `/${target.kind}s/${encodeURIComponent(target.id)}/runs`;

/** POST /agents/{id}/runs (or /teams/{id}/runs) with stream=true; the events as they arrive. Throws ApiError when refused. */
export async function startRun({ target, message, sessionId, signal }: { target: RunTarget; message: string; sessionId: string | null; signal: AbortSignal }) {
  const form = new FormData();
  form.set("message", message);
  form.set("stream", "true");
  if (sessionId) form.set("session_id", sessionId);
  if (target.version !== undefined) form.set("version", String(target.version));
  return runEvents(await post(runsPath(target), { body: form, signal }));
}

/** POST …/runs/{run_id}/continue with the decided tool executions (Agno's agent `tools` field), streamed. */
export async function continueRun({ target, runId, sessionId, tools, signal }: { target: RunTarget; runId: string; sessionId: string; tools: ToolExecution[]; signal: AbortSignal }) {
  const form = new FormData();
  form.set("tools", JSON.stringify(tools));
  form.set("session_id", sessionId);
  form.set("stream", "true");
  return runEvents(await post(`${runsPath(target)}/${encodeURIComponent(runId)}/continue`, { body: form, signal }));
}

/** POST /workflows/{id}/runs/{run_id}/continue with the run's step requirements (the last one answered), streamed. */
export async function continueWorkflow({
  workflowId,
  runId,
  sessionId,
  stepRequirements,
  signal,
}: {
  workflowId: string;
  runId: string;
  sessionId: string;
  stepRequirements: Record<string, unknown>[];
  signal: AbortSignal;
}) {
  const form = new FormData();
  form.set("step_requirements", JSON.stringify(stepRequirements));
  form.set("session_id", sessionId);
  form.set("stream", "true");
  return runEvents(await post(`${runsPath({ kind: "workflow", id: workflowId })}/${encodeURIComponent(runId)}/continue`, { body: form, signal }));
}

/** POST …/runs/{run_id}/cancel; the stream of the run then ends with RunCancelled, then RunCompleted (the run stays cancelled). */
export async function cancelRun({ target, runId, sessionId }: { target: RunTarget; runId: string; sessionId: string | null }): Promise<void> {
  const query = sessionId ? `?session_id=${encodeURIComponent(sessionId)}` : "";
  await post(`${runsPath(target)}/${encodeURIComponent(runId)}/cancel${query}`, {});
}
