import type { Principal } from "../auth/principal.ts";
import type { Settings } from "../config/settings.ts";
import { isCancelledEventOf, isFinalEventOf } from "../live-runs/events.ts";
import { callRouteRaw, refusalOf, type RouteCall } from "./route-call.ts";
import type { ToolContext } from "./tool-context.ts";

type RunEvent = Record<string, unknown> & { event?: unknown };

/** How a run's stream ended: its final event (RunCompleted, TeamRunPaused, WorkflowError, …), or its cancel event for a cancelled run. */
export interface FinishedRun {
  runId: string;
  sessionId: string | null;
  final: RunEvent;
}

/** What a progress notification says about an event; null: nothing worth a notification. */
function progressMessage(event: RunEvent): string | null {
  const name = String(event.event ?? "");
  const tool = (event.tool as { tool_name?: unknown } | undefined)?.tool_name;
  if (/^(Team)?ToolCallStarted$/.test(name)) return `Tool call started: ${String(tool ?? "tool")}`;
  if (/^(Team)?ToolCallCompleted$/.test(name)) return `Tool call completed: ${String(tool ?? "tool")}`;
  if (/^(Team)?ToolCallError$/.test(name)) return `Tool call failed: ${String(tool ?? "tool")}`;
  if (name === "StepStarted") return `Step started: ${String(event.step_name ?? "step")}`;
  if (name === "StepCompleted") return `Step completed: ${String(event.step_name ?? "step")}`;
  return null;
}

async function drain(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
  try {
    while (!(await reader.read()).done) {
      // nothing: the run is over
    }
  } catch {
    // the stream failed after its final event: nothing left to read
  }
}

/** The JSON payloads of SSE frames as they arrive. */
async function* sseEvents(reader: ReadableStreamDefaultReader<Uint8Array>): AsyncGenerator<RunEvent> {
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let end = buffer.indexOf("\n\n");
    while (end >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = frame
        .split("\n")
        .filter((line) => line.startsWith("data: "))
        .map((line) => line.slice(6))
        .join("\n");
      if (data) {
        try {
          yield JSON.parse(data) as RunEvent;
        } catch {
          // A heartbeat or a frame that is not JSON: not an event.
        }
      }
      end = buffer.indexOf("\n\n");
    }
  }
}

/**
 * Starts (or continues) a run through its REST route with `stream=true` and follows its events to
 * the final one. Tool calls (and workflow steps) become MCP progress notifications when the client
 * sent a progressToken. When the MCP request is cancelled, the stream is dropped: the run route
 * cancels an inline run whose client went away, so the run ends CANCELLED.
 */
export async function followRunStream({ settings, principal, context, call }: { settings: Settings; principal: Principal; context: ToolContext; call: RouteCall }): Promise<FinishedRun> {
  const response = await callRouteRaw(settings, principal, { ...call, form: { ...call.form, stream: "true" } });
  if (response.status >= 400) throw await refusalOf(response);
  if (!response.body || !(response.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
    throw new Error(`The run route answered ${response.status} without an event stream`);
  }
  const reader = response.body.getReader();
  const drop = () => void reader.cancel(new Error("MCP request cancelled")).catch(() => undefined);
  if (context.signal.aborted) drop();
  else context.signal.addEventListener("abort", drop, { once: true });
  let runId: string | null = null;
  let sessionId: string | null = null;
  let progress = 0;
  let finished = false;
  // A cancelled run's stream goes on to its RunCompleted; the cancel is still how the run ended.
  let cancelled: RunEvent | null = null;
  try {
    for await (const event of sseEvents(reader)) {
      if (runId === null && typeof event.run_id === "string") {
        runId = event.run_id;
        sessionId = typeof event.session_id === "string" ? event.session_id : null;
      }
      if (runId !== null && isCancelledEventOf(event as { event: unknown; run_id?: unknown }, runId)) cancelled = event;
      if (runId !== null && isFinalEventOf(event as { event: unknown; run_id?: unknown }, runId)) {
        // The stream closes right after its final event: read it to its end without cancelling
        // it (a cancelled stream is how the route learns that its client went away).
        finished = true;
        void drain(reader);
        const final = cancelled ?? event;
        return { runId, sessionId: sessionId ?? (typeof final.session_id === "string" ? final.session_id : null), final };
      }
      const message = progressMessage(event);
      if (message) await context.progress(++progress, message);
    }
  } finally {
    context.signal.removeEventListener("abort", drop);
    if (!finished) reader.releaseLock();
  }
  // A stream that ends at its cancel (a workflow step a person rejected).
  if (runId !== null && cancelled) return { runId, sessionId: sessionId ?? (typeof cancelled.session_id === "string" ? cancelled.session_id : null), final: cancelled };
  if (context.signal.aborted) throw new Error(`Run ${runId ?? ""} cancelled: the MCP request was cancelled`.replace("  ", " "));
  throw new Error(`Run ${runId ?? "(unknown)"} ended without a final event`);
}
