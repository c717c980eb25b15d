import { describe, expect, it } from "vitest";
import { accuracyJudgeInput, accuracyJudgeInstructions, accuracyResult } from "@/lib/evals/accuracy.ts";
import { judgeEvaluation, judgeInput, judgeInstructions, judgeResult } from "@/lib/evals/judge.ts";
import { performanceResult, storedPerformanceData } from "@/lib/evals/performance.ts";
import { evaluateReliability, type ToolExecutionRecord } from "@/lib/evals/reliability.ts";
import { resultFilePath, resultFileTemplateProblem } from "@/lib/evals/result-file.ts";
import { mean, median, percentile, stdDev, summarize } from "@/lib/evals/stats.ts";

describe("eval statistics (as Python's statistics module computes them)", () => {
  // Expected figures printed by CPython 3.11: statistics.mean / stdev / median / quantiles(d, n=100)[49] and [94].
  const cases: [number[], number, number, number, number, number][] = [
    [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 5.5, 3.0276503540974917, 5.5, 5.5, 10.45],
    [[0.5, 0.1], 0.3, 0.282842712474619, 0.3, 0.3, 0.84],
    [[3, 1, 2], 2, 1.0, 2, 2.0, 3.8],
    [[1.0, 2.5, 2.5, 9.75, 4.2, 0.3, 7.7], 3.992857142857143, 3.5114608274701204, 2.5, 2.5, 10.98],
  ];
  it.each(cases)("%j", (data, avg, sd, med, p50, p95) => {
    expect(mean(data)).toBeCloseTo(avg, 12);
    expect(stdDev(data)).toBeCloseTo(sd, 12);
    expect(median(data)).toBeCloseTo(med, 12);
    expect(percentile(data, 50)).toBeCloseTo(p50, 12);
    expect(percentile(data, 95)).toBeCloseTo(p95, 12);
  });

  it("one value has no spread and no percentiles; none gives zeros; a percentile outside 1-99 is refused", () => {
    expect(summarize([4])).toEqual({ avg: 4, min: 4, max: 4, std_dev: 0, median: 4, p50: 0, p95: 0 });
    expect(summarize([])).toEqual({ avg: 0, min: 0, max: 0, std_dev: 0, median: 0, p50: 0, p95: 0 });
    expect(() => percentile([1, 2], 100)).toThrow(RangeError);
  });
});

describe("reliability (Agno's execution matching)", () => {
  const ran = (tool_name: string, tool_args: Record<string, unknown> = {}, extra: Partial<ToolExecutionRecord> = {}): ToolExecutionRecord => ({ tool_name, tool_args, ...extra });

  it("passes when every expected tool ran cleanly and nothing else ran", () => {
    expect(evaluateReliability([ran("multiply", { a: 10, b: 5 }), ran("add")], [], { expectedToolCalls: ["multiply", "add"] })).toEqual({
      eval_status: "PASSED",
      failed_tool_calls: [],
      passed_tool_calls: ["multiply", "add"],
      additional_tool_calls: [],
      missing_tool_calls: [],
      failed_argument_checks: [],
      passed_argument_checks: [],
    });
  });

  it("an unexpected call fails, or is additional when allowed; a missing tool fails; a refused one is annotated", () => {
    const strict = evaluateReliability([ran("multiply"), ran("divide")], [], { expectedToolCalls: ["multiply", "add"] });
    expect(strict).toMatchObject({ eval_status: "FAILED", failed_tool_calls: ["divide"], passed_tool_calls: ["multiply"], missing_tool_calls: ["add"] });
    const lenient = evaluateReliability([ran("multiply"), ran("divide")], [], { expectedToolCalls: ["multiply"], allowAdditionalToolCalls: true });
    expect(lenient).toMatchObject({ eval_status: "PASSED", additional_tool_calls: ["divide"], failed_tool_calls: [] });
    // Requested by the model but never run (refused), and an errored call: missing, annotated.
    const refused = evaluateReliability(
      [ran("add", {}, { tool_call_error: true })],
      [{ tool_calls: [{ function: { name: "multiply" } }, { function: { name: "search" } }] }, { from_history: true, tool_calls: [{ function: { name: "old" } }] }],
      {
        expectedToolCalls: ["multiply", "add"],
      },
    );
    expect(refused).toMatchObject({
      eval_status: "FAILED",
      passed_tool_calls: [],
      failed_tool_calls: ["search"],
      missing_tool_calls: ["multiply (requested but refused/errored — execution matching, new in 2.8.0)", "add (requested but refused/errored — execution matching, new in 2.8.0)"],
    });
  });

  it("each expected argument set must match some clean call of its tool by subset equality", () => {
    const executions = [ran("add", { a: 2, b: 2, note: "x" }), ran("add", { a: 3, b: 3 }), ran("multiply", { a: 10, b: 4 })];
    const result = evaluateReliability(executions, [], {
      expectedToolCalls: ["add", "multiply"],
      expectedToolCallArguments: {
        add: [
          { a: 2, b: 2 },
          { a: 3, b: 3 },
        ],
        multiply: { a: 10, b: 5 },
      },
    });
    expect(result).toMatchObject({ eval_status: "FAILED", passed_argument_checks: ["add"], failed_argument_checks: ["multiply"] });
    // A tool already missing is not checked again.
    expect(evaluateReliability([], [], { expectedToolCalls: ["add"], expectedToolCallArguments: { add: { a: 1 } } })).toMatchObject({ missing_tool_calls: ["add"], failed_argument_checks: [] });
  });
});

describe("accuracy (Agno's judge prompt and AccuracyResult)", () => {
  it("appends the guidelines (one per line) and the context to the judge's instructions", () => {
    const bare = accuracyJudgeInstructions();
    expect(bare).toContain("Treat the reference (expected_output) as correct");
    expect(bare).not.toContain("Additional");
    const full = accuracyJudgeInstructions({ guidelines: ["Be strict", "Ignore case"], context: "Math homework" });
    expect(full.endsWith("\nAdditional guidelines:\n- Be strict\n- Ignore case\n\nAdditional context:\nMath homework\n")).toBe(true);
    expect(accuracyJudgeInstructions({ guidelines: "Be strict" })).toContain("\nAdditional guidelines:\nBe strict\n");
  });

  it("puts the input, the expected output and the agent's output in tags", () => {
    expect(accuracyJudgeInput({ input: "2+2", expectedOutput: "4", output: "four" })).toBe(
      "<agent_input>\n2+2\n</agent_input>\n\n<expected_output>\n4\n</expected_output>\n\n<agent_output>\nfour\n</agent_output>",
    );
  });

  it("computes the scores' average, min, max and sample standard deviation; none scored gives zeros", () => {
    const at = (score: number) => ({ input: "q", output: "a", expected_output: "a", score, reason: "r" });
    expect(accuracyResult("run-1", [at(8), at(6), at(10)])).toEqual({ run_id: "run-1", results: [at(8), at(6), at(10)], avg_score: 8, mean_score: 8, min_score: 6, max_score: 10, std_dev_score: 2 });
    expect(accuracyResult("run-2", [])).toEqual({ run_id: "run-2", results: [], avg_score: 0, mean_score: 0, min_score: 0, max_score: 0, std_dev_score: 0 });
  });
});

describe("agent as judge (Agno's AgentAsJudgeResult)", () => {
  const base = { input: "Write a haiku", output: "an old silent pond", criteria: "Is it a haiku?" };

  it("numeric passes at score >= threshold; binary takes the verdict and has no score", () => {
    expect(judgeEvaluation({ ...base, strategy: "numeric", threshold: 7 }, { score: 7, reason: "ok" })).toMatchObject({ score: 7, passed: true });
    expect(judgeEvaluation({ ...base, strategy: "numeric", threshold: 7 }, { score: 6, reason: "meh" })).toMatchObject({ score: 6, passed: false });
    expect(judgeEvaluation({ ...base, strategy: "binary", threshold: 7 }, { passed: true, reason: "yes" })).toEqual({ ...base, score: null, reason: "yes", passed: true });
  });

  it("score statistics cover the scored evaluations; the pass rate is a percentage; binary and empty have null scores", () => {
    const numeric = [8, 4, 9].map((score) => judgeEvaluation({ ...base, strategy: "numeric", threshold: 7 }, { score, reason: "r" }));
    expect(judgeResult("run-1", numeric)).toMatchObject({ run_id: "run-1", avg_score: 7, min_score: 4, max_score: 9, pass_rate: (2 / 3) * 100 });
    expect(judgeResult("run-1", numeric).std_dev_score).toBeCloseTo(Math.sqrt(7), 12);
    const binary = [true, false].map((passed) => judgeEvaluation({ ...base, strategy: "binary", threshold: 7 }, { passed, reason: "r" }));
    expect(judgeResult("run-2", binary)).toMatchObject({ avg_score: null, min_score: null, max_score: null, std_dev_score: null, pass_rate: 50 });
    expect(judgeResult("run-3", [])).toMatchObject({ results: [], avg_score: null, pass_rate: 0 });
  });

  it("asks the judge with the criteria, the strategy's scale and the guidelines; tags the input and output", () => {
    const numeric = judgeInstructions({ criteria: "Is it a haiku?", strategy: "numeric", guidelines: ["Count syllables"] });
    expect(numeric).toContain("Criteria:\nIs it a haiku?\n");
    expect(numeric).toContain("whole number from 1 to 10");
    expect(numeric.endsWith("Additional guidelines:\n- Count syllables")).toBe(true);
    expect(judgeInstructions({ criteria: "c", strategy: "binary" })).toContain("passes (true) or fails (false)");
    expect(judgeInput({ input: "q", output: "a" })).toBe("<input>\nq\n</input>\n\n<output>\na\n</output>\n");
  });
});

describe("performance (Agno's PerformanceResult, stored as result + runs)", () => {
  it("summarizes run times and memory; p50 and tokens beyond Agno; the stored shape pairs each run", () => {
    const result = performanceResult({ runTimes: [0.1, 0.3, 0.2], memoryUsages: [1, 3, 2], tokens: [10, 30, 20] });
    expect(result).toMatchObject({ min_run_time: 0.1, max_run_time: 0.3, median_run_time: 0.2, avg_memory_usage: 2, std_dev_memory_usage: 1, avg_tokens_per_run: 20 });
    expect(result.avg_run_time).toBeCloseTo(0.2, 12);
    expect(result.std_dev_run_time).toBeCloseTo(0.1, 12);
    expect(result.p95_memory_usage).toBeCloseTo(3.8, 12);
    expect(Object.keys(result).slice(0, 7)).toEqual(["run_times", "avg_run_time", "min_run_time", "max_run_time", "std_dev_run_time", "median_run_time", "p95_run_time"]);
    const stored = storedPerformanceData(result);
    expect(stored.runs).toEqual([
      { runtime: 0.1, memory: 1, tokens: 10 },
      { runtime: 0.3, memory: 3, tokens: 30 },
      { runtime: 0.2, memory: 2, tokens: 20 },
    ]);
    expect(stored.result).not.toHaveProperty("run_times");
    expect(stored.result).toMatchObject({ avg_run_time: result.avg_run_time, p95_memory_usage: result.p95_memory_usage });
    expect(performanceResult({ runTimes: [], memoryUsages: [] })).toMatchObject({ avg_run_time: 0, p95_run_time: 0 });
  });
});

describe("storeResultInFile templates", () => {
  it("fills {run_id} and {name}; refuses {eval_id} naming {run_id}, and any other placeholder by name", () => {
    expect(resultFilePath("evals/{name}/{run_id}.json", { runId: "r-1", name: "math" })).toBe("evals/math/r-1.json");
    expect(resultFileTemplateProblem("evals/{eval_id}.json")).toMatch(/\{eval_id\}.*use \{run_id\}/);
    expect(() => resultFilePath("evals/{eval_id}.json", { runId: "r-1" })).toThrow(/use \{run_id\}/);
    expect(resultFileTemplateProblem("evals/{date}.json")).toBe("storeResultInFile: unknown placeholder {date}; use {run_id} or {name}");
    expect(resultFileTemplateProblem("  ")).toBe("storeResultInFile must be a file path");
  });
});
