import { mean, stdDev } from "./stats.ts";

/**
 * The agent-as-judge eval: a judge model checks an output against the user's criteria, either as
 * a score from 1 to 10 that passes at `threshold` (numeric) or as pass/fail (binary, the
 * default). Its figures are Agno's AgentAsJudgeResult: each evaluation, the score statistics over
 * the scored ones (null in binary mode, or with nothing scored), and the pass rate as a
 * percentage.
 */

export type ScoringStrategy = "numeric" | "binary";

const SCALE = `Score the output with a whole number from 1 to 10:
- 1-2: it does not meet the criteria at all;
- 3-4: it has major problems;
- 5-6: it partly meets them, with significant problems;
- 7-8: it mostly meets them, with small problems;
- 9-10: it fully meets or exceeds them.
In your reason, point at the parts of the output your score rests on.`;

const VERDICT = `Decide whether the output passes (true) or fails (false) the criteria.
In your reason, point at the parts of the output your verdict rests on.`;

/** The judge's instructions for the criteria, the strategy and the guidelines (a string, or one per line). */
export function judgeInstructions({ criteria, strategy, guidelines }: { criteria: string; strategy: ScoringStrategy; guidelines?: string | readonly string[] | null }): string {
  const parts = ["You evaluate an AI agent's output against the criteria below, objectively and thoroughly.", "", "Criteria:", criteria, "", strategy === "numeric" ? SCALE : VERDICT];
  if (guidelines !== undefined && guidelines !== null && guidelines.length > 0) {
    parts.push("", "Additional guidelines:", ...(typeof guidelines === "string" ? [guidelines] : guidelines.map((g) => `- ${g}`)));
  }
  return parts.join("\n");
}

/** What the judge is asked to evaluate (tagged as Agno's judge receives it). */
export function judgeInput({ input, output }: { input: string; output: string }): string {
  return `<input>\n${input}\n</input>\n\n<output>\n${output}\n</output>\n`;
}

/** The judge's structured answer per strategy (Agno's NumericJudgeResponse / BinaryJudgeResponse fields). */
export const JUDGE_SCHEMAS = {
  numeric: {
    type: "object",
    properties: { score: { type: "integer", minimum: 1, maximum: 10, description: "The score, from 1 to 10." }, reason: { type: "string", description: "Why the output got this score." } },
    required: ["score", "reason"],
    additionalProperties: false,
  },
  binary: {
    type: "object",
    properties: { passed: { type: "boolean", description: "Whether the output passes the criteria." }, reason: { type: "string", description: "Why it passes or fails." } },
    required: ["passed", "reason"],
    additionalProperties: false,
  },
} as const;

export interface JudgeEvaluation {
  input: string;
  output: string;
  criteria: string;
  /** Null in binary mode. */
  score: number | null;
  reason: string;
  passed: boolean;
}

/** One evaluation from the judge's answer: numeric passes at score ≥ threshold. */
export function judgeEvaluation(
  { input, output, criteria, strategy, threshold }: { input: string; output: string; criteria: string; strategy: ScoringStrategy; threshold: number },
  answer: { score?: number; passed?: boolean; reason: string },
): JudgeEvaluation {
  if (strategy === "numeric") {
    const score = Number(answer.score);
    return { input, output, criteria, score, reason: answer.reason, passed: score >= threshold };
  }
  return { input, output, criteria, score: null, reason: answer.reason, passed: answer.passed === true };
}

/** Agno's AgentAsJudgeResult (the eval run's id first). */
export interface JudgeResult {
  run_id: string;
  results: JudgeEvaluation[];
  avg_score: number | null;
  min_score: number | null;
  max_score: number | null;
  std_dev_score: number | null;
  /** Percentage of evaluations that passed, 0-100. */
  pass_rate: number;
}

export function judgeResult(runId: string, results: readonly JudgeEvaluation[]): JudgeResult {
  const scores = results.map((r) => r.score).filter((s): s is number => s !== null);
  const pass_rate = results.length === 0 ? 0 : (results.filter((r) => r.passed).length / results.length) * 100;
  if (scores.length === 0) return { run_id: runId, results: [...results], avg_score: null, min_score: null, max_score: null, std_dev_score: null, pass_rate };
  return { run_id: runId, results: [...results], avg_score: mean(scores), min_score: Math.min(...scores), max_score: Math.max(...scores), std_dev_score: stdDev(scores), pass_rate };
}
