"use client";

import { cronProblem, describeCron, isValidTimezone, nextRuns } from "@/lib/scheduler/cron.ts";
import { useViewerTimeZone } from "./local-time.tsx";
import { formatZoned } from "./zoned-time.ts";

const PREVIEW_COUNT = 5;

/**
 * The live preview of a schedule's timing: the expression in words and its next five fire times
 * in the viewer's time zone (and in the schedule's, when that is another), computed in the
 * browser by lib/scheduler/cron.ts — the same code the scheduler fires by. Rendered only in the
 * browser: the server knows neither the viewer's zone nor the moment the page is read.
 */
export function CronPreview({ cron, timezone }: { cron: string; timezone: string }) {
  const viewer = useViewerTimeZone();
  const expression = cron.trim().split(/\s+/).filter(Boolean).join(" ");
  const zone = timezone.trim() || "UTC";
  const box = "rounded border border-slate-200 bg-slate-50 p-3 text-sm dark:border-slate-800 dark:bg-slate-950";
  if (viewer === null) return <div className={box} data-testid="cron-preview" />;
  if (expression === "") {
    return (
      <div className={box} data-testid="cron-preview">
        <p className="text-slate-500">Type a cron expression (minute hour day-of-month month day-of-week) to see when it fires.</p>
      </div>
    );
  }
  const problem = isValidTimezone(zone) ? cronProblem(expression, zone) : `Invalid timezone: ${zone}`;
  if (problem) {
    return (
      <div className={box} data-testid="cron-preview">
        <p data-testid="cron-problem" className="text-red-700 dark:text-red-300">
          {isValidTimezone(zone) ? `Not a schedule's cron expression: ${problem}` : `${problem} (use an IANA name such as Europe/Paris or UTC)`}
        </p>
      </div>
    );
  }
  const times = nextRuns(expression, zone, PREVIEW_COUNT);
  return (
    <div className={box} data-testid="cron-preview" aria-live="polite">
      <p className="mb-2">
        <span className="text-slate-500">In words: </span>
        <span data-testid="cron-words" className="font-medium">
          {describeCron(expression)}
        </span>
        <span className="text-slate-500"> ({zone} time)</span>
      </p>
      <p className="text-slate-500">
        Next {PREVIEW_COUNT} fire times, in your time zone ({viewer}):
      </p>
      <ol data-testid="cron-next-runs" className="mt-1 list-decimal pl-6 font-mono text-xs">
        {times.map((t) => (
          <li key={t}>
            {formatZoned(t, viewer, { weekday: true })}
            {zone !== viewer && <span className="text-slate-500"> · {formatZoned(t, zone)}</span>}
          </li>
        ))}
      </ol>
    </div>
  );
}
