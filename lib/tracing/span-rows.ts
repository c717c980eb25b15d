import { SpanKind, SpanStatusCode, type HrTime } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { traceTime, type SpanRow, type TraceRow } from "../db/traces/trace-rows.ts";

/**
 * Finished spans as `agno_spans` rows, and each batch's `agno_traces` rows, by the rules Agno's
 * exporter follows: one trace row per trace id in the batch, its start and end the batch's
 * earliest and latest, ERROR if any span errored, its name and context from a root span (one with
 * no parent) in the batch — the highest-level root when there are several. lib/db/traces merges
 * the row into the stored one.
 */

const hrMs = ([seconds, nanos]: HrTime): number => seconds * 1000 + nanos / 1e6;

const STATUS: Record<SpanStatusCode, SpanRow["status_code"]> = { [SpanStatusCode.UNSET]: "UNSET", [SpanStatusCode.OK]: "OK", [SpanStatusCode.ERROR]: "ERROR" };

/** A span's attributes as stored: scalars kept, arrays of scalars kept as lists. */
export function toSpanRow(span: ReadableSpan, createdAt: string): SpanRow {
  const context = span.spanContext();
  const start = hrMs(span.startTime);
  const end = hrMs(span.endTime);
  return {
    span_id: context.spanId,
    trace_id: context.traceId,
    parent_span_id: span.parentSpanContext?.spanId ?? null,
    name: span.name,
    span_kind: SpanKind[span.kind] ?? "INTERNAL",
    status_code: STATUS[span.status.code] ?? "UNSET",
    status_message: span.status.message ?? null,
    start_time: traceTime(start),
    end_time: traceTime(end),
    duration_ms: Math.trunc(end - start),
    attributes: { ...span.attributes },
    created_at: createdAt,
  };
}

const str = (value: unknown): string | null => (typeof value === "string" && value !== "" ? value : null);

/** 3 for a workflow's run, 2 a team's, 1 an agent's, 0 anything else (Agno's rule for a trace's name). */
export function rootLevel(name: string, attributes: Record<string, unknown>): number {
  if (!name.includes(".run") && !name.includes(".arun")) return 0;
  if (attributes["agno.workflow.id"]) return 3;
  if (attributes["agno.team.id"]) return 2;
  return 1;
}

/** The trace rows of one batch of span rows. */
export function traceRowsOf(spans: readonly SpanRow[], createdAt: string): TraceRow[] {
  const byTrace = new Map<string, SpanRow[]>();
  for (const span of spans) {
    const group = byTrace.get(span.trace_id);
    if (group) group.push(span);
    else byTrace.set(span.trace_id, [span]);
  }
  const rows: TraceRow[] = [];
  for (const [traceId, group] of byTrace) {
    let start = group[0]!.start_time;
    let end = group[0]!.end_time;
    for (const span of group) {
      if (span.start_time < start) start = span.start_time;
      if (span.end_time > end) end = span.end_time;
    }
    const roots = group.filter((s) => s.parent_span_id === null);
    const root = roots.reduce<SpanRow | null>((best, s) => (!best || rootLevel(s.name, s.attributes) > rootLevel(best.name, best.attributes) ? s : best), null);
    const a = root?.attributes ?? {};
    rows.push({
      trace_id: traceId,
      name: root?.name ?? group[0]!.name,
      status: group.some((s) => s.status_code === "ERROR") ? "ERROR" : "OK",
      start_time: start,
      end_time: end,
      duration_ms: Math.max(0, Math.trunc(Date.parse(end) - Date.parse(start))),
      run_id: root ? str(a.run_id ?? a["agno.run.id"]) : null,
      session_id: root ? str(a.session_id ?? a["agno.session.id"] ?? a["session.id"]) : null,
      user_id: root ? str(a.user_id ?? a["agno.user.id"] ?? a["user.id"]) : null,
      agent_id: root ? str(a.agent_id ?? a["agno.agent.id"]) : null,
      team_id: root ? str(a.team_id ?? a["agno.team.id"]) : null,
      workflow_id: root ? str(a.workflow_id ?? a["agno.workflow.id"]) : null,
      created_at: createdAt,
    });
  }
  return rows;
}
