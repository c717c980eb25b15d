import type { FinishedRun } from "./run-stream.ts";

/** A tool's answer as the SDK takes it: text content and, for structured results, structuredContent. */
export interface ToolAnswer {
  [key: string]: unknown;
  content: { type: "text"; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** The run's status from its final event's name (RunCompleted, TeamRunPaused, WorkflowCancelled, …). */
export function statusOfFinalEvent(name: string): "COMPLETED" | "PAUSED" | "ERROR" | "CANCELLED" {
  if (name.endsWith("Paused")) return "PAUSED";
  if (name.endsWith("Error")) return "ERROR";
  if (name.endsWith("Cancelled")) return "CANCELLED";
  return "COMPLETED";
}

function contentText(content: unknown): string {
  if (content === undefined || content === null) return "";
  return typeof content === "string" ? content : JSON.stringify(content);
}

/**
 * A run tool's result as Agno builds it ("trimmed" mode): one text block with the run's content, and
 * structuredContent `{run_id, session_id, status, content, agent_id|team_id|workflow_id,
 * requirements (paused only)}`. A paused run with no text says how many requirements wait, and,
 * when continue_run is not served, where to resume it. A run that failed is an error result.
 */
export function runToolResult(run: FinishedRun, { continueRunServed }: { continueRunServed: boolean }): ToolAnswer {
  const { final } = run;
  const status = statusOfFinalEvent(String(final.event));
  let text = contentText(final.content);
  if (status === "ERROR" && !text) text = contentText(final.error) || "Run failed";
  if (status === "CANCELLED" && !text) text = contentText(final.reason) || "Run cancelled";
  const structured: Record<string, unknown> = { run_id: run.runId, session_id: run.sessionId, status, content: text };
  for (const key of ["agent_id", "team_id", "workflow_id"] as const) {
    if (typeof final[key] === "string") structured[key] = final[key];
  }
  if (status === "PAUSED") {
    // A paused run's requirements are the unresolved ones (a workflow's are its step requirements).
    structured.requirements = final.requirements ?? final.step_requirements ?? [];
    if (!text) {
      text = `Run paused: ${(structured.requirements as unknown[]).length} requirement(s) awaiting resolution.`;
      if (!continueRunServed) {
        text +=
          ' The continue_run tool is not registered on this server; resume this run over the REST API, or re-enable the run-lifecycle tools (lifecycle_tools=True, and do not exclude the "lifecycle" tag).';
      }
      structured.content = text;
    }
  }
  return { content: [{ type: "text", text }], structuredContent: structured, ...(status === "ERROR" ? { isError: true } : {}) };
}

/** A JSON result: the text block holds the JSON, structuredContent the object (a list is wrapped as `{result: [...]}`, as FastMCP does). */
export function jsonToolResult(value: unknown): ToolAnswer {
  const structured = value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : { result: value };
  return { content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: structured };
}

/** A tool's failure: an error result whose text is the reason (Agno raises a plain Exception). */
export function errorToolResult(error: unknown): ToolAnswer {
  const message = error instanceof Error ? error.message : String(error);
  return { content: [{ type: "text", text: message }], isError: true };
}
