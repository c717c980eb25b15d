const TONES: Record<string, string> = {
  COMPLETED: "bg-emerald-100 text-emerald-800 dark:bg-emerald-900/60 dark:text-emerald-200",
  completed: "bg-emerald-100 text-emerald-800 dark:bg-emerald-900/60 dark:text-emerald-200",
  // A trace's or a span's status.
  OK: "bg-emerald-100 text-emerald-800 dark:bg-emerald-900/60 dark:text-emerald-200",
  RUNNING: "bg-sky-100 text-sky-800 dark:bg-sky-900/60 dark:text-sky-200",
  running: "bg-sky-100 text-sky-800 dark:bg-sky-900/60 dark:text-sky-200",
  processing: "bg-sky-100 text-sky-800 dark:bg-sky-900/60 dark:text-sky-200",
  PENDING: "bg-slate-100 text-slate-700 dark:bg-slate-800 dark:text-slate-200",
  queued: "bg-slate-100 text-slate-700 dark:bg-slate-800 dark:text-slate-200",
  PAUSED: "bg-amber-100 text-amber-800 dark:bg-amber-900/60 dark:text-amber-200",
  paused: "bg-amber-100 text-amber-800 dark:bg-amber-900/60 dark:text-amber-200",
  ERROR: "bg-red-100 text-red-800 dark:bg-red-900/60 dark:text-red-200",
  failed: "bg-red-100 text-red-800 dark:bg-red-900/60 dark:text-red-200",
  CANCELLED: "bg-zinc-200 text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300",
  cancelled: "bg-zinc-200 text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300",
  pending: "bg-amber-100 text-amber-800 dark:bg-amber-900/60 dark:text-amber-200",
  approved: "bg-emerald-100 text-emerald-800 dark:bg-emerald-900/60 dark:text-emerald-200",
  rejected: "bg-red-100 text-red-800 dark:bg-red-900/60 dark:text-red-200",
  expired: "bg-zinc-200 text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300",
};

/** A run's or a job's status as a coloured label (the text carries the meaning, not the colour). */
export function StatusBadge({ status }: { status: string | null }) {
  const label = status ?? "unknown";
  return (
    <span data-testid="status" className={`inline-block rounded px-1.5 py-0.5 text-xs font-medium whitespace-nowrap ${TONES[label] ?? TONES.PENDING}`}>
      {label}
    </span>
  );
}
