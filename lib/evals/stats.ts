/**
 * The summary statistics of an eval's measurements, computed as Python's `statistics` module
 * computes them (Agno's evals use it): sample standard deviation, the median of the two middle
 * values for an even count, and percentiles by the "exclusive" method of `statistics.quantiles`.
 * One value: its standard deviation and percentiles are 0; no values: every figure is 0.
 */

export interface Summary {
  avg: number;
  min: number;
  max: number;
  std_dev: number;
  median: number;
  p50: number;
  p95: number;
}

export function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((sum, v) => sum + v, 0) / values.length;
}

/** Sample standard deviation (n − 1), as `statistics.stdev`; 0 for fewer than two values. */
export function stdDev(values: readonly number[]): number {
  if (values.length < 2) return 0;
  const m = mean(values);
  return Math.sqrt(values.reduce((sum, v) => sum + (v - m) ** 2, 0) / (values.length - 1));
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * The p-th percentile (1–99) as `statistics.quantiles(data, n=100)[p - 1]` with its default
 * "exclusive" method: the (p/100)·(n+1)-th smallest value, interpolated, clamped to the first and
 * last pairs. 0 for fewer than two values.
 */
export function percentile(values: readonly number[], p: number): number {
  if (!Number.isInteger(p) || p < 1 || p > 99) throw new RangeError(`percentile must be an integer from 1 to 99, got ${p}`);
  const n = values.length;
  if (n < 2) return 0;
  const data = [...values].sort((a, b) => a - b);
  const m = n + 1;
  const j = Math.min(n - 1, Math.max(1, Math.floor((p * m) / 100)));
  const delta = p * m - j * 100;
  return (data[j - 1]! * (100 - delta) + data[j]! * delta) / 100;
}

export function summarize(values: readonly number[]): Summary {
  if (values.length === 0) return { avg: 0, min: 0, max: 0, std_dev: 0, median: 0, p50: 0, p95: 0 };
  return {
    avg: mean(values),
    min: Math.min(...values),
    max: Math.max(...values),
    std_dev: stdDev(values),
    median: median(values),
    p50: percentile(values, 50),
    p95: percentile(values, 95),
  };
}
