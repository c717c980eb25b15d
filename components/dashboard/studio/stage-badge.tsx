const STAGE_TONES: Record<string, string> = {
  published: "bg-emerald-100 text-emerald-800 dark:bg-emerald-900/60 dark:text-emerald-200",
  draft: "bg-amber-100 text-amber-800 dark:bg-amber-900/60 dark:text-amber-200",
  archived: "bg-zinc-200 text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300",
};

/** A component's or a version's stage as a label (the text carries the meaning, not the colour). */
export function StageBadge({ stage }: { stage: "published" | "draft" | "archived" }) {
  return <span className={`inline-block rounded px-1.5 py-0.5 text-xs font-medium whitespace-nowrap ${STAGE_TONES[stage]}`}>{stage}</span>;
}

/** A component's type: agent, team or workflow. */
export function TypeBadge({ type }: { type: string }) {
  return <span className="inline-block rounded border border-slate-300 px-1.5 py-0.5 text-xs whitespace-nowrap text-slate-700 dark:border-slate-700 dark:text-slate-300">{type}</span>;
}
