const TONES: Record<string, string> = {
  success: "bg-emerald-100 text-emerald-800 dark:bg-emerald-900/60 dark:text-emerald-200",
  running: "bg-sky-100 text-sky-800 dark:bg-sky-900/60 dark:text-sky-200",
  paused: "bg-amber-100 text-amber-800 dark:bg-amber-900/60 dark:text-amber-200",
  failed: "bg-red-100 text-red-800 dark:bg-red-900/60 dark:text-red-200",
  timeout: "bg-red-100 text-red-800 dark:bg-red-900/60 dark:text-red-200",
  cancelled: "bg-zinc-200 text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300",
  skipped: "bg-zinc-200 text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300",
};
const NEUTRAL = "bg-slate-100 text-slate-700 dark:bg-slate-800 dark:text-slate-200";

/** A schedule run's status (success, failed, paused, …) as a coloured label; the text carries the meaning. */
export function ScheduleRunStatus({ status }: { status: string }) {
  return (
    <span data-testid="status" className={`inline-block rounded px-1.5 py-0.5 text-xs font-medium whitespace-nowrap ${TONES[status] ?? NEUTRAL}`}>
      {status}
    </span>
  );
}

/** Whether a schedule is on, as a label. */
export function EnabledBadge({ enabled }: { enabled: boolean }) {
  return (
    <span
      data-testid="enabled"
      className={`inline-block rounded px-1.5 py-0.5 text-xs font-medium whitespace-nowrap ${enabled ? "bg-emerald-100 text-emerald-800 dark:bg-emerald-900/60 dark:text-emerald-200" : NEUTRAL}`}
    >
      {enabled ? "enabled" : "disabled"}
    </span>
  );
}
