import { summarize } from "./stats.ts";

/**
 * The performance eval's figures in Agno's PerformanceResult shape — run times in seconds and
 * memory in MiB per measured iteration, each with its average, min, max, sample standard
 * deviation, median and p95 — plus Agentry's p50 and, when known, tokens per run. Agno stores
 * `{result: {the figures}, runs: [{runtime, memory}]}` and answers the POST with the flat shape;
 * both are built here.
 */

export interface PerformanceResult {
  run_times: number[];
  avg_run_time: number;
  min_run_time: number;
  max_run_time: number;
  std_dev_run_time: number;
  median_run_time: number;
  p95_run_time: number;
  /** Beyond Agno. */
  p50_run_time: number;
  memory_usages: number[];
  avg_memory_usage: number;
  min_memory_usage: number;
  max_memory_usage: number;
  std_dev_memory_usage: number;
  median_memory_usage: number;
  p95_memory_usage: number;
  /** Beyond Agno. */
  p50_memory_usage: number;
  /** Beyond Agno: total tokens of each measured run (absent when the model reported none). */
  tokens_per_run?: number[];
  avg_tokens_per_run?: number;
}

export function performanceResult({ runTimes, memoryUsages, tokens }: { runTimes: readonly number[]; memoryUsages: readonly number[]; tokens?: readonly number[] }): PerformanceResult {
  const t = summarize(runTimes);
  const m = summarize(memoryUsages);
  const result: PerformanceResult = {
    run_times: [...runTimes],
    avg_run_time: t.avg,
    min_run_time: t.min,
    max_run_time: t.max,
    std_dev_run_time: t.std_dev,
    median_run_time: t.median,
    p95_run_time: t.p95,
    p50_run_time: t.p50,
    memory_usages: [...memoryUsages],
    avg_memory_usage: m.avg,
    min_memory_usage: m.min,
    max_memory_usage: m.max,
    std_dev_memory_usage: m.std_dev,
    median_memory_usage: m.median,
    p95_memory_usage: m.p95,
    p50_memory_usage: m.p50,
  };
  if (tokens && tokens.length > 0) {
    result.tokens_per_run = [...tokens];
    result.avg_tokens_per_run = summarize(tokens).avg;
  }
  return result;
}

/** The stored `eval_data`: the figures under `result`, and one `{runtime, memory}` per measured run. */
export function storedPerformanceData(result: PerformanceResult): { result: Record<string, number>; runs: { runtime: number; memory: number; tokens?: number }[] } {
  const { run_times, memory_usages, tokens_per_run, ...figures } = result;
  return {
    result: figures as Record<string, number>,
    runs: run_times.map((runtime, i) => ({ runtime, memory: memory_usages[i] ?? 0, ...(tokens_per_run ? { tokens: tokens_per_run[i]! } : {}) })),
  };
}

/**
 * The flat PerformanceResult (run_times and memory_usages lists beside the figures) from the stored
 * `{result, runs}` — what Agno's `POST /eval-runs` answers for a performance eval. Anything else
 * (a row of another shape) comes back as it is.
 */
export function flatPerformanceData(stored: Record<string, unknown>): Record<string, unknown> {
  const result = stored.result;
  const runs = stored.runs;
  if (!result || typeof result !== "object" || !Array.isArray(runs)) return stored;
  const list = runs as { runtime?: number; memory?: number; tokens?: number }[];
  const flat: Record<string, unknown> = {
    run_times: list.map((r) => r.runtime ?? 0),
    memory_usages: list.map((r) => r.memory ?? 0),
    ...(result as Record<string, unknown>),
  };
  if (list.some((r) => r.tokens !== undefined)) flat.tokens_per_run = list.map((r) => r.tokens ?? 0);
  return flat;
}
