// Pure (no server imports): how the Traces pages write times, durations and span types.

/** A stored trace time (UTC ISO-8601) as `YYYY-MM-DD HH:MM:SS`, the dashboard's UTC format. */
export function formatTraceTime(stored: string | null | undefined): string {
  if (!stored) return "—";
  const ms = Date.parse(stored);
  return Number.isNaN(ms) ? stored : new Date(ms).toISOString().slice(0, 19).replace("T", " ");
}

/** Milliseconds on the time axis: "0", "850ms", "1.2s", "3m 05s". */
export function formatAxisMs(ms: number): string {
  if (ms <= 0) return "0";
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${Number((ms / 1000).toFixed(ms < 10_000 ? 2 : 1))}s`;
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 60) return `${minutes}m ${String(Math.round((ms % 60_000) / 1000)).padStart(2, "0")}s`;
  return `${Math.floor(minutes / 60)}h ${String(minutes % 60).padStart(2, "0")}m`;
}

/** Each span type's colours: its badge and its bar. */
const TYPE_TONES: Record<string, { badge: string; bar: string }> = {
  AGENT: { badge: "bg-sky-100 text-sky-800 dark:bg-sky-900/60 dark:text-sky-200", bar: "bg-sky-500" },
  TEAM: { badge: "bg-indigo-100 text-indigo-800 dark:bg-indigo-900/60 dark:text-indigo-200", bar: "bg-indigo-500" },
  WORKFLOW: { badge: "bg-violet-100 text-violet-800 dark:bg-violet-900/60 dark:text-violet-200", bar: "bg-violet-500" },
  LLM: { badge: "bg-amber-100 text-amber-800 dark:bg-amber-900/60 dark:text-amber-200", bar: "bg-amber-500" },
  TOOL: { badge: "bg-emerald-100 text-emerald-800 dark:bg-emerald-900/60 dark:text-emerald-200", bar: "bg-emerald-500" },
  RETRIEVER: { badge: "bg-teal-100 text-teal-800 dark:bg-teal-900/60 dark:text-teal-200", bar: "bg-teal-500" },
};
const OTHER = { badge: "bg-slate-100 text-slate-700 dark:bg-slate-800 dark:text-slate-300", bar: "bg-slate-400" };
const ERROR_BAR = "bg-red-500";

export function typeBadgeClass(type: string): string {
  return (TYPE_TONES[type] ?? OTHER).badge;
}

/** A span's bar: its type's colour, red when it failed. */
export function barClass(type: string, status: string): string {
  return status === "ERROR" ? ERROR_BAR : (TYPE_TONES[type] ?? OTHER).bar;
}

/** A stored attribute value for the JSON view: JSON text as the value it holds, other text as it is. */
export function jsonOrText(value: string | null): unknown {
  if (value === null) return null;
  const trimmed = value.trim();
  if (!(trimmed.startsWith("{") || trimmed.startsWith("[") || trimmed.startsWith('"'))) return value;
  try {
    return JSON.parse(trimmed) as unknown;
  } catch {
    return value;
  }
}
