import type { Resolution } from "../../runtime/continue-run.ts";
import { refuseUnsafeText } from "../errors.ts";
import { HttpError, validationError } from "../../errors/http-error.ts";
import { decodeJsonText } from "../input-text.ts";

type Dict = Record<string, unknown>;

function parseList(text: string | undefined, field: "tools" | "requirements"): Dict[] {
  if (text === undefined || text.trim() === "") return [];
  const decoded = decodeJsonText(text);
  if (!decoded.ok && decoded.reason === "too_deep") {
    throw validationError([{ type: "json_too_deep", loc: ["body", field], msg: `${field}: ${decoded.message}` }]);
  }
  if (!decoded.ok) throw new HttpError(400, `Invalid JSON in ${field} field`);
  const parsed = decoded.value;
  refuseUnsafeText(parsed, ["body", field]);
  if (!Array.isArray(parsed) || !parsed.every((item) => item && typeof item === "object")) {
    throw new HttpError(400, `The ${field} field must be a JSON list of objects`);
  }
  return parsed as Dict[];
}

function userInput(schema: unknown): Record<string, unknown> | undefined {
  if (!Array.isArray(schema)) return undefined;
  const values = Object.fromEntries(
    schema
      .filter((f): f is Dict => !!f && typeof f === "object" && typeof (f as Dict).name === "string")
      .filter((f) => f.value !== undefined && f.value !== null)
      .map((f) => [f.name as string, f.value]),
  );
  return Object.keys(values).length > 0 ? values : undefined;
}

/**
 * The human decisions for a paused run, from v3's `requirements` (RunRequirement dicts) or Agno's
 * older `tools` (ToolExecution dicts). Requirement-level fields win over their tool_execution's.
 */
export function parseResolutions({ tools, requirements }: { tools?: string; requirements?: string }): Resolution[] {
  const fromRequirements = parseList(requirements, "requirements").map((requirement): Resolution => {
    const execution = (requirement.tool_execution as Dict | undefined) ?? {};
    return {
      tool_call_id: String(execution.tool_call_id ?? requirement.id ?? ""),
      confirmed: (requirement.confirmation ?? execution.confirmed) as boolean | null | undefined,
      confirmation_note: (requirement.confirmation_note ?? execution.confirmation_note) as string | null | undefined,
      user_input: userInput(requirement.user_input_schema) ?? userInput(execution.user_input_schema),
      external_result: requirement.external_execution_result ?? execution.result ?? undefined,
    };
  });
  const fromTools = parseList(tools, "tools").map(
    (execution): Resolution => ({
      tool_call_id: String(execution.tool_call_id ?? ""),
      confirmed: execution.confirmed as boolean | null | undefined,
      confirmation_note: execution.confirmation_note as string | null | undefined,
      user_input: userInput(execution.user_input_schema),
      external_result: execution.result ?? undefined,
    }),
  );
  return [...fromRequirements, ...fromTools].filter((r) => r.tool_call_id);
}
