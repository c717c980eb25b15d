import type { StoredEvalRun } from "../db/evals/eval-runs.ts";

/**
 * What one eval run comes to, in a line and a number, for lists and trends (pure; reads any row,
 * Agno's too): accuracy its average score (of 10), agent as judge its average score (numeric) or
 * pass rate (binary), performance its mean run time, reliability PASSED or FAILED. `value` is the
 * number a trend plots (reliability: 1 passed, 0 failed); null while there is no result.
 */
export interface EvalHeadline {
  label: string;
  value: number | null;
  /** What `value` measures, for a chart's axis. */
  unit: "score" | "percent" | "seconds" | "pass";
  /** Whether the run passed, where the kind says (reliability; agent as judge: every evaluation passed). */
  passed: boolean | null;
}

const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);
const round = (v: number, digits: number) => Number(v.toFixed(digits));

/** Seconds as the dashboard shows them: ms below one second. */
export function formatSeconds(seconds: number): string {
  return seconds < 1 ? `${round(seconds * 1000, 1)} ms` : `${round(seconds, 2)} s`;
}

export function evalHeadline(run: Pick<StoredEvalRun, "eval_type" | "eval_data" | "eval_input">): EvalHeadline {
  const data = run.eval_data ?? {};
  switch (run.eval_type) {
    case "accuracy": {
      const avg = num(data.avg_score);
      return { label: avg === null ? "—" : `${round(avg, 2)} / 10`, value: avg, unit: "score", passed: null };
    }
    case "agent_as_judge": {
      const avg = num(data.avg_score);
      const rate = num(data.pass_rate);
      const passed = rate === null ? null : rate >= 100;
      if (avg !== null) return { label: `${round(avg, 2)} / 10 · ${round(rate ?? 0, 1)}% passed`, value: avg, unit: "score", passed };
      return { label: rate === null ? "—" : `${round(rate, 1)}% passed`, value: rate, unit: "percent", passed };
    }
    case "performance": {
      const result = data.result && typeof data.result === "object" ? (data.result as Record<string, unknown>) : data;
      const avg = num(result.avg_run_time);
      return { label: avg === null ? "—" : `${formatSeconds(avg)} mean`, value: avg, unit: "seconds", passed: null };
    }
    case "reliability": {
      const status = data.eval_status;
      if (status !== "PASSED" && status !== "FAILED") return { label: "—", value: null, unit: "pass", passed: null };
      return { label: status, value: status === "PASSED" ? 1 : 0, unit: "pass", passed: status === "PASSED" };
    }
  }
}

/** A headline value as its unit reads: a score, a percentage, a time, PASSED/FAILED. */
export function formatEvalValue(value: number, unit: EvalHeadline["unit"]): string {
  if (unit === "seconds") return formatSeconds(value);
  if (unit === "percent") return `${round(value, 1)}%`;
  if (unit === "pass") return value >= 1 ? "PASSED" : "FAILED";
  return String(round(value, 2));
}
