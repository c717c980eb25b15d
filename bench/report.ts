/** Formatting shared by the benchmarks' printed tables. */

export function fmtBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 * 1024) return `${(bytes / 1024 / 1024 / 1024).toFixed(1)} GiB`;
  if (bytes >= 1024 * 1024) return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${Math.round(bytes)} B`;
}

/** A plain-text table: first column left-aligned, the rest right-aligned. */
export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ");
  return [line(headers), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}

/** Milliseconds: 2 decimals below 10, 1 below 100, none above (by magnitude); "n/a" when not finite. */
export const ms = (x: number) => (!Number.isFinite(x) ? "n/a" : Math.abs(x) >= 100 ? x.toFixed(0) : Math.abs(x) >= 10 ? x.toFixed(1) : x.toFixed(2));
/** Milliseconds with their sign: "+1.23", "-0.50". */
export const signed = (x: number) => `${x < 0 ? "-" : "+"}${ms(Math.abs(x))}`;
/** A ratio to 3 decimals: "1.023x". */
export const ratio = (x: number) => (Number.isFinite(x) ? `${x.toFixed(3)}x` : "n/a");
/** A whole number with thousands separators: "10,000". */
export const int = (n: number) => Math.round(n).toLocaleString("en-US");
export const verdict = (ok: boolean) => (ok ? "PASS" : "FAIL");
/** A load average (os.loadavg()): "0.52 0.61 0.70". */
export const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(" ");
