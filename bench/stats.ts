/** Statistics shared by the benchmarks: nearest-rank percentiles and a latency series' summary. */

/** Nearest rank. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

export const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);

export interface Stats {
  n: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

export function stats(samples: readonly number[]): Stats {
  return { n: samples.length, mean: sum(samples) / samples.length, p50: percentile(samples, 50), p90: percentile(samples, 90), p99: percentile(samples, 99), max: Math.max(...samples) };
}
