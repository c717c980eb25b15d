import Ajv07 from "ajv";
import Ajv2019 from "ajv/dist/2019.js";
import Ajv2020 from "ajv/dist/2020.js";

/**
 * Checks a caller's `output_schema` before any model sees it: valid against the meta-schema of
 * the draft it names (`$schema`: draft-07, 2019-09 or 2020-12; none means 2020-12), every `$ref`
 * resolvable inside the document (nothing is fetched), and an object at the root — the run
 * answers with one JSON object. Never throws: every problem is a sentence for a 422.
 */

type AjvClass = typeof Ajv2020;

const DRAFTS: { name: string; pattern: RegExp; Ajv: AjvClass }[] = [
  { name: "2020-12", pattern: /^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/, Ajv: Ajv2020 },
  { name: "2019-09", pattern: /^https?:\/\/json-schema\.org\/draft\/2019-09\/schema#?$/, Ajv: Ajv2019 as unknown as AjvClass },
  { name: "draft-07", pattern: /^https?:\/\/json-schema\.org\/draft-07\/schema#?$/, Ajv: Ajv07 as unknown as AjvClass },
];

// Shared per draft: validateSchema only reads the meta-schema, it registers nothing of the caller's.
const metaValidators = new Map(DRAFTS.map((d) => [d.name, new d.Ajv({ strict: false, validateFormats: false })]));

/** A throwaway compiler per schema, so a caller's `$id`s never reach shared state (~0.5 ms). */
const compiler = (Ajv: AjvClass) => new Ajv({ strict: false, validateFormats: false, meta: false, validateSchema: false, addUsedSchema: false });

/** The draft a schema names, or the problem with its `$schema`. */
function draftOf(schema: Record<string, unknown>): (typeof DRAFTS)[number] | string {
  const named = schema.$schema;
  if (named === undefined) return DRAFTS[0];
  if (typeof named !== "string") return "$schema must be a string naming a JSON Schema draft";
  return DRAFTS.find((d) => d.pattern.test(named)) ?? `$schema '${named.slice(0, 200)}' is not a supported draft (use draft-07, 2019-09 or 2020-12)`;
}

/** Why a schema cannot be used as an output schema, or null when it can. */
export function outputSchemaProblem(schema: Record<string, unknown>): string | null {
  const draft = draftOf(schema);
  if (typeof draft === "string") return draft;
  // The meta-schema is matched against a copy without `$schema`: the draft is already chosen, and
  // ajv would otherwise look the URI up itself (and throw for one it does not hold).
  const { $schema: _named, ...rest } = schema;
  try {
    const meta = metaValidators.get(draft.name)!;
    if (!meta.validateSchema(rest)) {
      const first = meta.errors?.[0];
      const where = first?.instancePath ? `${first.instancePath} ` : "";
      const allowed = (first?.params as { allowedValues?: unknown[] } | undefined)?.allowedValues;
      return `is not a valid JSON Schema (${draft.name}): ${where}${first?.message ?? "does not match the meta-schema"}${allowed ? ` (${allowed.join(", ")})` : ""}`;
    }
    compiler(draft.Ajv).compile(rest);
  } catch (error) {
    return `is not a usable JSON Schema: ${(error as Error).message.slice(0, 300)}`;
  }
  if (schema.type !== "object") return `must describe a JSON object (type "object" at the root)`;
  return null;
}

/** Why `value` does not match `schema` (a JSON Schema, draft as `$schema` names, 2020-12 by default), or null when it does. */
export function valueProblem(schema: Record<string, unknown>, value: unknown): string | null {
  const draft = draftOf(schema);
  if (typeof draft === "string") return draft;
  const { $schema: _named, ...rest } = schema;
  try {
    const validate = compiler(draft.Ajv).compile(rest);
    if (validate(value)) return null;
    const first = validate.errors?.[0];
    return `${first?.instancePath || "the input"} ${first?.message ?? "does not match"}`;
  } catch (error) {
    return `the input_schema is not usable: ${(error as Error).message.slice(0, 300)}`;
  }
}
