// Formatting shared by server and client components (pure; no server imports).

/** An epoch-seconds time as `YYYY-MM-DD HH:MM:SS` UTC (stable across server and browser). */
export function formatTime(epochSeconds: number | null | undefined): string {
  if (epochSeconds === null || epochSeconds === undefined) return "—";
  return new Date(epochSeconds * 1000).toISOString().slice(0, 19).replace("T", " ");
}

export function formatDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || Number.isNaN(seconds)) return "—";
  if (seconds < 1) return `${Math.round(seconds * 1000)} ms`;
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const minutes = Math.floor(seconds / 60);
  return minutes < 60 ? `${minutes} min ${Math.round(seconds % 60)} s` : `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

export function formatCount(value: number | null | undefined): string {
  return value === null || value === undefined ? "—" : value.toLocaleString("en");
}

/** An age in seconds as a short phrase ("42 s", "3 min", "2 h"). */
export function formatAge(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return "—";
  if (seconds < 60) return `${Math.round(seconds)} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h`;
  return `${Math.floor(seconds / 86_400)} d`;
}

/** A stored value as text to show: strings as they are, anything else as JSON (pretty on request), nothing as "". */
export function displayText(value: unknown, { pretty = false } = {}): string {
  if (typeof value === "string") return value;
  if (value === null || value === undefined) return "";
  return pretty ? JSON.stringify(value, null, 2) : JSON.stringify(value);
}
