import Ajv2020 from "ajv/dist/2020.js";

/**
 * Checks a caller's `output_schema` before any model sees it: valid against the JSON Schema
 * 2020-12 meta-schema, every `$ref` resolvable inside the document (nothing is fetched), and an
 * object at the root — the run answers with one JSON object.
 */

// Shared: validateSchema only reads the meta-schema, it registers nothing of the caller's.
const metaValidator = new Ajv2020({ strict: false, validateFormats: false });

/** A throwaway compiler per schema, so a caller's `$id`s never reach shared state (~0.5 ms). */
const compiler = () => new Ajv2020({ strict: false, validateFormats: false, meta: false, validateSchema: false, addUsedSchema: false });

/** Why a schema cannot be used as an output schema, or null when it can. */
export function outputSchemaProblem(schema: Record<string, unknown>): string | null {
  if (!metaValidator.validateSchema(schema)) {
    const first = metaValidator.errors?.[0];
    const where = first?.instancePath ? `${first.instancePath} ` : "";
    const allowed = (first?.params as { allowedValues?: unknown[] } | undefined)?.allowedValues;
    return `is not a valid JSON Schema: ${where}${first?.message ?? "does not match the meta-schema"}${allowed ? ` (${allowed.join(", ")})` : ""}`;
  }
  try {
    compiler().compile(schema);
  } catch (error) {
    return `is not a usable JSON Schema: ${(error as Error).message}`;
  }
  if (schema.type !== "object") return `must describe a JSON object (type "object" at the root)`;
  return null;
}
