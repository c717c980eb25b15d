"use client";

import { useMemo, useState, type ReactNode } from "react";
import type { TimelineSpan, TraceTimeline } from "@/lib/tracing/trace-timeline.ts";
import { SpanPanel } from "./span-panel.tsx";
import { barClass, formatAxisMs, typeBadgeClass } from "./trace-format.ts";

const TICKS = [0, 0.25, 0.5, 0.75, 1];
/** The name column, the time track and the duration column: the header's and every row's. */
const COLUMNS = "grid grid-cols-[minmax(0,1fr)_minmax(0,1.2fr)_4rem] items-center gap-3";
const INDENT_PX = 16;

/** The spans to show: a collapsed span's subtree is hidden (the list is in tree order, with depths). */
function visibleSpans(spans: readonly TimelineSpan[], collapsed: ReadonlySet<string>): TimelineSpan[] {
  const shown: TimelineSpan[] = [];
  let hideBelow = Number.POSITIVE_INFINITY;
  for (const span of spans) {
    if (span.depth > hideBelow) continue;
    hideBelow = collapsed.has(span.id) ? span.depth : Number.POSITIVE_INFINITY;
    shown.push(span);
  }
  return shown;
}

function TimeAxis({ totalMs }: { totalMs: number }) {
  return (
    <div className="relative h-4 text-[11px] text-slate-500" aria-hidden>
      {TICKS.map((f) => (
        <span key={f} className={`absolute top-0 ${f === 0 ? "" : f === 1 ? "-translate-x-full" : "-translate-x-1/2"}`} style={{ left: `${f * 100}%` }}>
          {formatAxisMs(totalMs * f)}
        </span>
      ))}
    </div>
  );
}

function SpanRow({
  span,
  totalMs,
  selected,
  hasChildren,
  collapsed,
  compact,
  onSelect,
  onToggle,
}: {
  span: TimelineSpan;
  totalMs: number;
  selected: boolean;
  hasChildren: boolean;
  collapsed: boolean;
  compact: boolean;
  onSelect: () => void;
  onToggle: () => void;
}) {
  const left = Math.min(100, (span.offsetMs / totalMs) * 100);
  const width = Math.max(0.5, Math.min(100 - left, (span.durationMs / totalMs) * 100));
  const failed = span.status === "ERROR";
  return (
    <li className="relative" data-testid="trace-span" data-span-type={span.type} data-span-status={span.status}>
      <button
        type="button"
        onClick={onSelect}
        aria-pressed={selected}
        title={`${span.name} · ${span.duration} · starts at +${formatAxisMs(span.offsetMs)}`}
        className={`${COLUMNS} w-full px-2 text-left ${compact ? "py-0.5" : "py-1"} ${selected ? "bg-sky-50 dark:bg-sky-950/50" : "hover:bg-slate-50 dark:hover:bg-slate-800/50"}`}
      >
        <span className="flex min-w-0 items-center gap-1.5" style={{ paddingLeft: span.depth * INDENT_PX + 18 }}>
          <span className={`shrink-0 rounded px-1 text-[10px] font-semibold tracking-wide ${typeBadgeClass(span.type)}`}>{span.type}</span>
          <span className={`truncate font-mono text-xs ${failed ? "text-red-700 dark:text-red-300" : ""}`} data-testid="span-name">
            {span.name}
          </span>
          {failed && <span className="shrink-0 text-[10px] font-semibold text-red-700 dark:text-red-300">ERROR</span>}
        </span>
        <span className="relative block h-3.5 rounded-sm bg-slate-100 dark:bg-slate-800">
          <span className={`absolute inset-y-0 rounded-sm ${barClass(span.type, span.status)}`} style={{ left: `${left}%`, width: `${width}%` }} />
        </span>
        <span className={`text-right font-mono text-xs tabular-nums ${failed ? "text-red-700 dark:text-red-300" : "text-slate-600 dark:text-slate-400"}`} data-testid="span-duration">
          {span.duration}
        </span>
      </button>
      {hasChildren && (
        <button
          type="button"
          onClick={onToggle}
          aria-expanded={!collapsed}
          aria-label={`${collapsed ? "Expand" : "Collapse"} ${span.name}`}
          className="absolute top-1/2 h-4 w-4 -translate-y-1/2 rounded text-[10px] leading-4 text-slate-500 hover:bg-slate-200 dark:hover:bg-slate-700"
          style={{ left: 8 + span.depth * INDENT_PX }}
        >
          {collapsed ? "▸" : "▾"}
        </button>
      )}
    </li>
  );
}

/**
 * A trace's span tree beside its waterfall: each span a row, indented by depth, with its type and
 * a bar placed and sized on the trace's one time axis (red when it failed); a subtree folds away.
 * Clicking a span opens its panel (input, output, error, attributes; a model call's tokens and
 * cost, a tool call's arguments and result). `compact` (the run page) puts the panel under it.
 */
export function TraceWaterfall({ timeline, compact = false, initialSpanId }: { timeline: TraceTimeline; compact?: boolean; initialSpanId?: string }) {
  const [selectedId, setSelectedId] = useState<string | undefined>(initialSpanId);
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(new Set());
  const parents = useMemo(() => new Set(timeline.spans.map((s) => s.parentId).filter((id): id is string => id !== null)), [timeline.spans]);
  const totalMs = Math.max(1, timeline.durationMs, ...timeline.spans.map((s) => s.offsetMs + s.durationMs));
  const shown = visibleSpans(timeline.spans, collapsed);
  const selected = timeline.spans.find((s) => s.id === selectedId);
  const toggle = (id: string) =>
    setCollapsed((current) => {
      const next = new Set(current);
      if (!next.delete(id)) next.add(id);
      return next;
    });

  if (timeline.spans.length === 0) return <p className="text-sm text-slate-500">This trace has no spans stored.</p>;
  return (
    <div className={compact ? "space-y-3" : "grid gap-4 xl:grid-cols-[minmax(0,1fr)_24rem]"}>
      <div className="min-w-0 self-start overflow-x-auto rounded border border-slate-200 dark:border-slate-800" data-testid="trace-waterfall">
        <div className="min-w-[36rem]">
          <div className={`${COLUMNS} border-b border-slate-200 bg-slate-50 px-2 py-1 text-xs font-medium text-slate-600 dark:border-slate-800 dark:bg-slate-800/60 dark:text-slate-300`}>
            <span>Span</span>
            <TimeAxis totalMs={totalMs} />
            <span className="text-right">Duration</span>
          </div>
          <ol aria-label="Spans" className="divide-y divide-slate-100 dark:divide-slate-800/70">
            {shown.map((span) => (
              <SpanRowWithBreak key={span.id} span={span} totalMs={totalMs}>
                <SpanRow
                  span={span}
                  totalMs={totalMs}
                  selected={span.id === selectedId}
                  hasChildren={parents.has(span.id)}
                  collapsed={collapsed.has(span.id)}
                  compact={compact}
                  onSelect={() => setSelectedId(span.id === selectedId ? undefined : span.id)}
                  onToggle={() => toggle(span.id)}
                />
              </SpanRowWithBreak>
            ))}
          </ol>
        </div>
      </div>
      {/* The run page's compact trace shows a panel only once a span is chosen. */}
      {(selected || !compact) && (
        <div className={compact ? "min-w-0" : "min-w-0 xl:sticky xl:top-4 xl:self-start"}>
          {selected ? (
            <SpanPanel span={selected} onClose={() => setSelectedId(undefined)} />
          ) : (
            <p className="rounded border border-dashed border-slate-300 p-4 text-sm text-slate-500 dark:border-slate-700">Select a span to see its input, output and attributes.</p>
          )}
        </div>
      )}
    </div>
  );
}

/** A later root (a paused run continued) starts after a line saying when. */
function SpanRowWithBreak({ span, totalMs, children }: { span: TimelineSpan; totalMs: number; children: ReactNode }) {
  if (span.depth !== 0 || span.rootIndex === 0) return <>{children}</>;
  return (
    <>
      <li className="bg-amber-50 px-2 py-0.5 text-xs text-amber-900 dark:bg-amber-950/40 dark:text-amber-200" data-testid="trace-continuation">
        {span.continuation ? "Continued" : "Another root"} at +{formatAxisMs(span.offsetMs)} (of {formatAxisMs(totalMs)})
      </li>
      {children}
    </>
  );
}
