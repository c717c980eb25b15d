import { mean, stdDev } from "./stats.ts";

/**
 * The accuracy eval's judge and figures: the judge's instructions (Agentry's wording; the optional
 * guidelines and context appended as their own sections), the input it scores (the agent's input,
 * the expected output and the agent's output in tags, as Agno's judge receives them), and the
 * result in Agno's AccuracyResult shape — each scored iteration, and the average (twice, as
 * `avg_score` and `mean_score`), min, max and sample standard deviation of the scores, with the
 * eval run's id first.
 */

const JUDGE_INSTRUCTIONS = `You grade an AI agent's answer against a reference answer that the user wrote and vouches for.
Treat the reference (expected_output) as correct, even where you would answer differently: your task is to measure how well the agent's answer (agent_output) matches it, not to judge the reference.

You receive:
- agent_input: the task the agent was given;
- expected_output: the reference answer;
- agent_output: the agent's answer.

Judge two things:
- accuracy: does agent_output say what expected_output says?
- completeness: does it contain every key element of expected_output?

In your reason, name what the two answers share and where they differ (facts left out or added, errors, changes of meaning or structure), and refer to accuracy and completeness explicitly. Apply any additional guidelines below.

Give a whole-number score from 1 to 10:
- 1-2: wrong or unrelated;
- 3-4: major errors or key information missing;
- 5-6: partly right, with significant problems;
- 7-8: mostly accurate and complete, with small problems;
- 9-10: accurate and complete, closely matching the reference and the guidelines.
`;

/** The judge's instructions, with the guidelines (a string, or one per line) and the context when given. */
export function accuracyJudgeInstructions({ guidelines, context }: { guidelines?: string | readonly string[] | null; context?: string | null } = {}): string {
  const guidelineText = guidelines === undefined || guidelines === null || guidelines.length === 0 ? "" : typeof guidelines === "string" ? guidelines : guidelines.map((g) => `- ${g}`).join("\n");
  const guidelineBlock = guidelineText ? `\nAdditional guidelines:\n${guidelineText}\n` : "";
  const contextBlock = context ? `\nAdditional context:\n${context}\n` : "";
  return `${JUDGE_INSTRUCTIONS}${guidelineBlock}${contextBlock}`;
}

/** What the judge is asked to score. */
export function accuracyJudgeInput({ input, expectedOutput, output }: { input: string; expectedOutput: string; output: string }): string {
  return `<agent_input>\n${input}\n</agent_input>\n\n<expected_output>\n${expectedOutput}\n</expected_output>\n\n<agent_output>\n${output}\n</agent_output>`;
}

/** The judge's structured answer (Agno's AccuracyAgentResponse), as a JSON schema for the model. */
export const ACCURACY_JUDGE_SCHEMA = {
  type: "object",
  properties: {
    accuracy_score: { type: "integer", description: "The answer's score, a whole number from 1 to 10." },
    accuracy_reason: { type: "string", description: "Why the answer got this score." },
  },
  required: ["accuracy_score", "accuracy_reason"],
  additionalProperties: false,
} as const;

export interface AccuracyEvaluation {
  input: string;
  output: string;
  expected_output: string;
  score: number;
  reason: string;
}

/** Agno's AccuracyResult (v3: the eval run's id first). No scored iteration: every figure 0. */
export interface AccuracyResult {
  run_id: string;
  results: AccuracyEvaluation[];
  avg_score: number;
  mean_score: number;
  min_score: number;
  max_score: number;
  std_dev_score: number;
}

export function accuracyResult(runId: string, results: readonly AccuracyEvaluation[]): AccuracyResult {
  const scores = results.map((r) => r.score);
  const avg = mean(scores);
  return {
    run_id: runId,
    results: [...results],
    avg_score: avg,
    mean_score: avg,
    min_score: scores.length === 0 ? 0 : Math.min(...scores),
    max_score: scores.length === 0 ? 0 : Math.max(...scores),
    std_dev_score: stdDev(scores),
  };
}
