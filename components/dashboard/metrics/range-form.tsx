import type { MetricsRange } from "@/lib/http/dashboard/metrics-range.ts";

const control = "mt-1 block rounded border border-slate-300 bg-white px-2 py-1 dark:border-slate-700 dark:bg-slate-950";

/**
 * The date range as a plain GET form (the range lives in the URL: shareable, back works) with
 * presets; `keep` carries the page's other parameters (an admin's user filter, a sort).
 */
export function RangeForm({ action, range, keep = {}, children }: { action: string; range: MetricsRange; keep?: Record<string, string | undefined>; children?: React.ReactNode }) {
  const kept = Object.entries(keep).filter((entry): entry is [string, string] => !!entry[1]);
  const preset = (days: number) => `${action}?${new URLSearchParams([...kept, ["days", String(days)]]).toString()}`;
  return (
    // biome-ignore lint/a11y/useSemanticElements: as ListFilters: role="search" on the form is announced everywhere
    <form method="get" action={action} role="search" className="mb-4 flex flex-wrap items-end gap-3 rounded border border-slate-200 bg-white p-3 text-sm dark:border-slate-800 dark:bg-slate-900">
      {kept.map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      <label className="block">
        <span className="text-slate-600 dark:text-slate-400">From</span>
        <input name="from" type="date" defaultValue={range.from} className={control} />
      </label>
      <label className="block">
        <span className="text-slate-600 dark:text-slate-400">To</span>
        <input name="to" type="date" defaultValue={range.to} className={control} />
      </label>
      {children}
      <button type="submit" className="rounded bg-slate-900 px-3 py-1.5 text-white hover:bg-slate-700 dark:bg-slate-100 dark:text-slate-900">
        Apply
      </button>
      <span className="flex gap-2 py-1.5 text-slate-600 dark:text-slate-400">
        Last
        {[7, 30, 90].map((days) => (
          <a key={days} href={preset(days)} className="underline" aria-current={range.days === days && range.to === new Date().toISOString().slice(0, 10) ? "true" : undefined}>
            {days} days
          </a>
        ))}
      </span>
    </form>
  );
}
