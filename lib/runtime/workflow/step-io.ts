import type { StepInput, StepOutput, StepResult } from "../../config/workflow.ts";

/** StepInput and StepOutput as Agno builds and reads them. */

/** A StepOutput with Agno's defaults for the fields not given. */
export function stepOutput(fields: Partial<StepOutput> & { step_name: string }): StepOutput {
  return {
    content: null,
    step_id: null,
    step_type: "Step",
    executor_type: null,
    executor_name: null,
    step_run_id: null,
    images: null,
    videos: null,
    audio: null,
    files: null,
    metrics: null,
    success: true,
    error: null,
    stop: false,
    is_paused: false,
    ...fields,
  };
}

/** The content a step's output ends with: a container's last child's, down to a leaf. */
export function deepestContent(output: StepOutput | undefined): unknown {
  let current = output;
  while (current?.steps && current.steps.length > 0 && current.step_type !== "Parallel") current = current.steps[current.steps.length - 1];
  return current?.content ?? null;
}

/** A step's output by name, among `outputs` and their nested steps. */
function findOutput(outputs: Iterable<StepOutput>, name: string): StepOutput | undefined {
  for (const output of outputs) {
    if (output.step_name === name) return output;
    const nested = output.steps ? findOutput(output.steps, name) : undefined;
    if (nested) return nested;
  }
  return undefined;
}

/** The content as a step's agent reads it: text as it is, anything else as JSON. */
export const asText = (content: unknown): string => (typeof content === "string" ? content : content === null || content === undefined ? "" : JSON.stringify(content, null, 2));

/** Agno's StepInput, with its helpers. */
export function stepInput(fields: Pick<StepInput, "input" | "previous_step_content" | "previous_step_outputs" | "additional_data" | "session_state">): StepInput {
  return {
    ...fields,
    getStepContent(name) {
      const output = findOutput(Object.values(fields.previous_step_outputs), name);
      if (!output) return null;
      if (output.step_type === "Parallel") return Object.fromEntries((output.steps ?? []).map((s) => [s.step_name, asText(s.content)]));
      return deepestContent(output);
    },
    getLastStepContent() {
      const outputs = Object.values(fields.previous_step_outputs);
      return deepestContent(outputs[outputs.length - 1]);
    },
    getAllPreviousContent() {
      return Object.values(fields.previous_step_outputs)
        .map((o) => `=== ${o.step_name} ===\n${asText(o.content)}`)
        .join("\n\n");
    },
  };
}

const OUTPUT_KEYS = new Set(["content", "stop", "success", "error", "metrics", "images", "videos", "audio", "files"]);

/** A function step's return value as its StepOutput: a StepOutput's fields taken as given, any other value as the content. */
export function fromFunctionResult(result: StepResult, base: Partial<StepOutput> & { step_name: string }): StepOutput {
  if (result && typeof result === "object" && !Array.isArray(result) && Object.keys(result).length > 0 && Object.keys(result).every((k) => OUTPUT_KEYS.has(k) || k in stepOutput({ step_name: "" }))) {
    const given = result as Partial<StepOutput>;
    return stepOutput({ ...base, content: given.content ?? null, stop: !!given.stop, success: given.success ?? true, error: given.error ?? null, metrics: given.metrics ?? null });
  }
  return stepOutput({ ...base, content: result === undefined ? null : result });
}

/** The content of a Parallel step: each child's result under its name, as Agno writes it. */
export function parallelContent(children: StepOutput[]): string {
  return children
    .map((c) => `### ${c.success ? "✅ SUCCESS" : "❌ FAILURE"}: ${c.step_name}\n${c.content === null || c.content === undefined || c.content === "" ? "*(No content)*" : asText(c.content)}\n\n`)
    .join("")
    .replace(/^/, "## Parallel Execution Results\n\n")
    .trim();
}
