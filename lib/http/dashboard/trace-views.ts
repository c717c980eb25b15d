// The Traces pages' server side, pure of Next.js (the pages call it after reading the URL; tests
// call it with a scope): the list's filters and its two views, one trace's timeline, a run's trace.
import { z } from "zod";
import type { ModelPrice, Settings } from "../../config/settings.ts";
import type { Db } from "../../db/open-database.ts";
import type { DataScope } from "../../db/scope.ts";
import {
  getTrace,
  getTraceOfRun,
  getTraceSpans,
  listTraceRowsForDashboard,
  sumDroppedSpans,
  traceSessionStats,
  traceTimeFromMicros,
  type DashboardTraceRow,
  type TraceSessionStatsRow,
} from "../../db/traces/traces.ts";
import { TRACE_CONTEXT_METADATA_KEY } from "../../runtime/run-trace.ts";
import { traceTimeline, type TraceTimeline } from "../../tracing/trace-timeline.ts";
import { day, filterControls, oneOf, text, type FilterValues } from "./list-filters.ts";
import type { FilterOption } from "./list-view.ts";

/** The time presets: how far back each reaches, in seconds. */
export const TRACE_TIME_PRESETS = { "1h": 3600, "24h": 86_400, "7d": 7 * 86_400 } as const;

const COMPONENT = /^(agent|team|workflow):(.+)$/s;

/**
 * The "Agent, team or workflow" select: `agent:<id>`, `team:<id>` or `workflow:<id>`, parsed to
 * the trace column it filters on.
 */
function componentFilter() {
  return z
    .string()
    .transform((raw, ctx) => {
      const match = COMPONENT.exec(raw);
      if (!match) {
        ctx.addIssue({ code: "custom", message: `must name an agent, a team or a workflow (agent:<id>, team:<id>, workflow:<id>), got "${raw}"` });
        return z.NEVER;
      }
      return { [`${match[1]}_id`]: match[2] } as { agent_id?: string; team_id?: string; workflow_id?: string };
    })
    .register(filterControls, { control: "select", label: "Agent, team or workflow" });
}

/** What both views filter on: the component and the time (a preset, and/or whole UTC days). */
const sharedFilters = {
  component: componentFilter(),
  since: oneOf(["1h", "24h", "7d"], { label: "Time", labels: { "1h": "Last hour", "24h": "Last 24 hours", "7d": "Last 7 days" } }),
  from: day({ label: "From (UTC)" }),
  to: day({ label: "To (UTC)", endOfDay: true }),
};

/** "By run": one row per trace. */
export const TRACE_RUN_FILTERS = z.object({
  status: oneOf(["OK", "ERROR"], { label: "Status" }),
  ...sharedFilters,
  session: text({ label: "Session", placeholder: "session id", trim: true }),
  run: text({ label: "Run", placeholder: "run id", trim: true }),
  name: text({ label: "Name contains", trim: true }),
});

/** "By session": one row per session with traces (the trace-level filters do not apply). */
export const TRACE_SESSION_FILTERS = z.object(sharedFilters);

export type TraceRunFilters = FilterValues<typeof TRACE_RUN_FILTERS.shape>;
export type TraceSessionFilters = FilterValues<typeof TRACE_SESSION_FILTERS.shape>;

/** The configured agents (external ones after them: their runs are traced as agents'), teams and workflows as the component filter's choices. */
export function componentChoices(settings: Pick<Settings, "agents" | "externalAgents" | "teams" | "workflows">): FilterOption[] {
  const of = (kind: string, label: string, items: readonly { id: string; name?: string }[]) => items.map((c) => ({ value: `${kind}:${c.id}`, label: `${label}: ${c.name ?? c.id}` }));
  return [...of("agent", "Agent", [...settings.agents, ...settings.externalAgents]), ...of("team", "Team", settings.teams), ...of("workflow", "Workflow", settings.workflows)];
}

/**
 * The time filters as stored-format bounds: from the later of the preset's start and the `from`
 * day; to the `to` day's end (exclusive midnight).
 */
export function traceTimeBounds(filters: Pick<TraceRunFilters, "since" | "from" | "to">, nowMs = Date.now()): { start_time?: string; end_time?: string } {
  const starts = [filters.since ? nowMs / 1000 - TRACE_TIME_PRESETS[filters.since] : undefined, filters.from].filter((s): s is number => s !== undefined);
  const toStored = (seconds: number) => traceTimeFromMicros(Math.floor(seconds * 1_000_000));
  return {
    ...(starts.length > 0 ? { start_time: toStored(Math.max(...starts)) } : {}),
    ...(filters.to !== undefined ? { end_time: toStored(filters.to) } : {}),
  };
}

/** The longest input preview a list row carries to the browser. */
const PREVIEW_CHARS = 200;

function preview(text: string | null): string | null {
  if (text === null) return null;
  const chars = Array.from(text);
  return chars.length > PREVIEW_CHARS ? `${chars.slice(0, PREVIEW_CHARS - 1).join("")}…` : text;
}

export interface NumberedQuery<F> {
  db: Db;
  scope: DataScope;
  filters: F;
  page: number;
  limit: number;
}

/** "By run": the scope's traces, newest start first, with their spans' counts, tokens and input preview. */
export async function traceRunPage({ db, scope, filters, page, limit }: NumberedQuery<TraceRunFilters>, nowMs = Date.now()): Promise<{ rows: DashboardTraceRow[]; totalCount: number }> {
  const { rows, totalCount } = await listTraceRowsForDashboard(db, {
    scope,
    filters: { status: filters.status, session_id: filters.session, run_id: filters.run, name: filters.name, ...filters.component, ...traceTimeBounds(filters, nowMs) },
    page,
    limit,
  });
  return { rows: rows.map((row) => ({ ...row, input: preview(row.input) })), totalCount };
}

/** "By session": the scope's sessions with traces, latest activity first (the time filters read traces' creation). */
export async function traceSessionPage({ db, scope, filters, page, limit }: NumberedQuery<TraceSessionFilters>, nowMs = Date.now()): Promise<{ rows: TraceSessionStatsRow[]; totalCount: number }> {
  return traceSessionStats(db, { scope, filters: { ...filters.component, ...traceTimeBounds(filters, nowMs) }, page, limit });
}

/** Spans dropped (the exporter's queue was full) over the last `days` UTC days, today included. */
export function droppedSpansRecently(db: Db, { days = 7, nowMs = Date.now() }: { days?: number; nowMs?: number } = {}): Promise<number> {
  return sumDroppedSpans(db, { since: new Date(nowMs - (days - 1) * 86_400_000).toISOString().slice(0, 10) });
}

/** One trace's timeline in the scope (a member's own; an admin's anyone's), or null: the page's 404. */
export async function loadTraceTimeline(db: Db, { scope, traceId, prices }: { scope: DataScope; traceId: string; prices?: Readonly<Record<string, ModelPrice>> }): Promise<TraceTimeline | null> {
  const trace = await getTrace(db, { scope, traceId });
  if (!trace) return null;
  return traceTimeline(trace, await getTraceSpans(db, { traceId }), prices);
}

/**
 * A run's trace for its page: the trace its run span roots, or — a team member's or a workflow
 * step's run, whose span is inside its parent's trace — the parent run's. Null until the root span
 * is stored (the exporter writes spans as they end, the root last).
 */
export async function loadRunTimeline(
  db: Db,
  { scope, runId, parentRunId, prices }: { scope: DataScope; runId: string; parentRunId?: string | null; prices?: Readonly<Record<string, ModelPrice>> },
): Promise<TraceTimeline | null> {
  const trace = (await getTraceOfRun(db, { scope, runId })) ?? (parentRunId ? await getTraceOfRun(db, { scope, runId: parentRunId }) : null);
  if (!trace) return null;
  return traceTimeline(trace, await getTraceSpans(db, { traceId: trace.trace_id }), prices);
}

/**
 * How long after a run last changed its page waits for its trace (refreshing itself): the exporter
 * writes spans in batches a second apart, the root when the run ends.
 */
export const TRACE_EXPORT_WAIT_SECONDS = 120;

export interface RunTrace {
  timeline: TraceTimeline | null;
  /**
   * Its trace is still expected to change: none stored yet while the run is going or ended moments
   * ago, or — a paused run continued moments ago — the continuation's root not stored yet.
   */
  awaiting: boolean;
  tracing: boolean;
}

type RunForTrace = { run_id: string; parent_run_id: string | null; status: string | null; created_at: number; updated_at: number | null; run_data?: Record<string, unknown> };

/** A run that paused and has been continued since: its trace gains a root per continuation. */
function continuedRun(run: RunForTrace): boolean {
  const metadata = run.run_data?.metadata;
  return run.status !== "PAUSED" && typeof metadata === "object" && metadata !== null && TRACE_CONTEXT_METADATA_KEY in metadata;
}

/** A run page's trace (loadRunTimeline), and whether to keep waiting for it. */
export async function loadRunTrace(
  db: Db,
  { scope, run, settings, nowMs = Date.now() }: { scope: DataScope; run: RunForTrace; settings: Pick<Settings, "tracing" | "metrics">; nowMs?: number },
): Promise<RunTrace> {
  const timeline = await loadRunTimeline(db, { scope, runId: run.run_id, parentRunId: run.parent_run_id, prices: settings.metrics.prices });
  const going = run.status === "PENDING" || run.status === "RUNNING";
  const changedAt = run.updated_at ?? run.created_at;
  const recent = nowMs / 1000 - changedAt < TRACE_EXPORT_WAIT_SECONDS;
  let awaiting: boolean;
  if (!timeline) awaiting = going || recent;
  // While the run goes the page refreshes anyway.
  else if (going || !recent || !continuedRun(run)) awaiting = false;
  else {
    // Continued: the trace lacks the continuation's root, or its last root ended before the run last changed.
    const lastRoot = timeline.spans.filter((s) => s.depth === 0).at(-1);
    const lastEnd = (Date.parse(timeline.startTime) + (lastRoot ? lastRoot.offsetMs + lastRoot.durationMs : timeline.durationMs)) / 1000;
    awaiting = timeline.roots < 2 || lastEnd + 1 < changedAt;
  }
  return { timeline, awaiting: settings.tracing.enabled && awaiting, tracing: settings.tracing.enabled };
}
