/**
 * A reliability eval's verdict on one run's tool calls, classified as Agno's ReliabilityEval
 * classifies them (execution matching): each executed call of an unexpected tool is additional
 * (with `allowAdditionalToolCalls`) or failed; each clean call of an expected tool passed; a tool
 * the model asked for that never ran (refused) counts like an unexpected call unless expected; an
 * expected tool without a clean execution is missing (annotated when it was requested or errored);
 * each expected argument set must match at least one clean call of its tool by subset equality.
 * PASSED when nothing failed, nothing is missing and every argument check passed.
 */

/** One tool call as the run stored it (Agno's ToolExecution fields that matter here). */
export interface ToolExecutionRecord {
  tool_name?: string | null;
  tool_args?: Record<string, unknown> | null;
  tool_call_error?: boolean | null;
  is_paused?: boolean | null;
}

/** One stored message (its requested tool calls; history messages are not this run's). */
export interface MessageRecord {
  tool_calls?: readonly { function?: { name?: string | null } | null }[] | null;
  from_history?: boolean | null;
}

export interface ReliabilityExpectation {
  expectedToolCalls: readonly string[] | null;
  allowAdditionalToolCalls?: boolean;
  /** Per tool, one argument set or several (each must match some call). */
  expectedToolCallArguments?: Record<string, Record<string, unknown> | readonly Record<string, unknown>[]> | null;
}

/** Agno's ReliabilityResult, key for key. */
export interface ReliabilityResult {
  eval_status: "PASSED" | "FAILED";
  failed_tool_calls: string[];
  passed_tool_calls: string[];
  additional_tool_calls: string[];
  missing_tool_calls: string[];
  failed_argument_checks: string[];
  passed_argument_checks: string[];
}

const isClean = (e: ToolExecutionRecord) => Boolean(e.tool_name) && !e.tool_call_error && !e.is_paused;

/** Deep equality of JSON values (argument values are JSON). */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b as object, k) && sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

export function evaluateReliability(executions: readonly ToolExecutionRecord[], messages: readonly MessageRecord[], expectation: ReliabilityExpectation): ReliabilityResult {
  const expected = expectation.expectedToolCalls;
  const allowAdditional = expectation.allowAdditionalToolCalls ?? false;
  const result: ReliabilityResult = {
    eval_status: "PASSED",
    failed_tool_calls: [],
    passed_tool_calls: [],
    additional_tool_calls: [],
    missing_tool_calls: [],
    failed_argument_checks: [],
    passed_argument_checks: [],
  };
  const requested = new Set<string>();
  for (const message of messages) {
    if (message.from_history) continue;
    for (const call of message.tool_calls ?? []) if (call.function?.name) requested.add(call.function.name);
  }
  const executed = new Set(executions.map((e) => e.tool_name).filter((n): n is string => Boolean(n)));
  const clean = executions.filter(isClean);
  const attempted = new Set([...executed, ...requested]);

  for (const execution of executions) {
    const name = execution.tool_name;
    if (!name) continue;
    if (expected !== null && !expected.includes(name)) (allowAdditional ? result.additional_tool_calls : result.failed_tool_calls).push(name);
    else if (!execution.tool_call_error && !execution.is_paused) result.passed_tool_calls.push(name);
  }
  for (const name of [...requested].filter((n) => !executed.has(n)).sort()) {
    if (expected?.includes(name)) continue;
    (allowAdditional ? result.additional_tool_calls : result.failed_tool_calls).push(name);
  }
  const missing = new Set<string>();
  for (const name of expected ?? []) {
    if (clean.some((e) => e.tool_name === name)) continue;
    missing.add(name);
    result.missing_tool_calls.push(attempted.has(name) ? `${name} (requested but refused/errored — execution matching, new in 2.8.0)` : name);
  }
  for (const [tool, spec] of Object.entries(expectation.expectedToolCallArguments ?? {})) {
    if (missing.has(tool)) continue;
    const specs = Array.isArray(spec) ? spec : [spec as Record<string, unknown>];
    const calls = clean.filter((e) => e.tool_name === tool).map((e) => ({ ...(e.tool_args ?? {}) }));
    const matches = calls.length > 0 && specs.every((want) => calls.some((actual) => Object.entries(want).every(([k, v]) => Object.hasOwn(actual, k) && sameJson(actual[k], v))));
    (matches ? result.passed_argument_checks : result.failed_argument_checks).push(tool);
  }
  result.eval_status = result.failed_tool_calls.length === 0 && result.missing_tool_calls.length === 0 && result.failed_argument_checks.length === 0 ? "PASSED" : "FAILED";
  return result;
}
