import type { ModelSpec } from "../config/define.ts";
import { callModelStep, outputSpec } from "../runtime/model-step.ts";
import { providerOptionsFor, resolveModel } from "../models/resolve-model.ts";
import { endModelSpan, NEW_TRACE, startModelSpan } from "../runtime/run-trace.ts";

/** The judge's answer could not be read as the structured answer it was asked for. */
export class JudgeAnswerError extends Error {
  override readonly name = "JudgeAnswerError";
}

/** One judge call's answer (the object its schema describes) and the tokens it took. */
export interface JudgeAnswer {
  answer: Record<string, unknown>;
  total_tokens: number;
}

/** The answer object from the SDK's parsed output, or from the text when the server ignored the response format but answered JSON. */
function answerObject(output: unknown, text: string): Record<string, unknown> | null {
  if (output && typeof output === "object" && !Array.isArray(output)) return output as Record<string, unknown>;
  const json = text.trim().replace(/^```(?:json)?\s*|\s*```$/g, "");
  try {
    const parsed = JSON.parse(json);
    return parsed && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * Asks the judge model once for a structured answer (a JSON schema; the provider is told to answer
 * in it), with the runtime's retries for provider failures. `check` turns the raw object into the
 * answer or says what is wrong with it (JudgeAnswerError names it).
 */
export async function callJudge<T>({
  spec,
  instructions,
  input,
  schema,
  check,
  signal,
}: {
  spec: ModelSpec;
  instructions: string;
  input: string;
  schema: Record<string, unknown>;
  check: (answer: Record<string, unknown>) => T | string;
  signal: AbortSignal;
}): Promise<{ answer: T; total_tokens: number }> {
  const messages = [{ role: "user" as const, content: input }];
  // A judge's call is an LLM span in a trace of its own.
  const span = startModelSpan(spec, { messages, system: instructions, stream: false, tools: [], parent: NEW_TRACE });
  const step = await callModelStep({
    model: resolveModel("eval-judge", spec),
    system: instructions,
    messages,
    tools: {},
    signal,
    onDelta: () => undefined,
    output: outputSpec(schema),
    providerOptions: providerOptionsFor(spec),
    stream: false,
  }).catch((error: unknown) => {
    endModelSpan(span, null, error);
    throw error;
  });
  endModelSpan(span, step);
  const object = answerObject(step.output, step.text);
  if (!object) throw new JudgeAnswerError(`The judge model (${spec.id}) did not answer with the JSON object it was asked for: ${step.text.slice(0, 200) || "(no text)"}`);
  const checked = check(object);
  if (typeof checked === "string") throw new JudgeAnswerError(`The judge model (${spec.id}) answered ${JSON.stringify(object).slice(0, 200)}: ${checked}`);
  return { answer: checked, total_tokens: step.usage.inputTokens + step.usage.outputTokens };
}
