import { z } from "zod";
import { log } from "../../log.ts";
import { decodeJsonText, unsafeTextIn } from "../input-text.ts";
import { outputSchemaProblem } from "./output-schema.ts";

/**
 * Form-field types as Agno's clients send them: everything arrives as a string. Booleans accept
 * "true"/"false" (and 1/0, yes/no); "null"/"none" mean null; JSON fields hold JSON text.
 */
const NULLS = new Set(["null", "none"]);

export const formBool = (fallback: boolean) =>
  z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value === "") return fallback;
      const v = value.trim().toLowerCase();
      if (["true", "1", "yes", "on"].includes(v)) return true;
      if (["false", "0", "no", "off"].includes(v)) return false;
      ctx.addIssue({ code: "custom", message: `must be true or false, got '${value}'` });
      return z.NEVER;
    });

type Ctx = z.RefinementCtx;

const isObject = (value: unknown): value is Record<string, unknown> => !!value && typeof value === "object" && !Array.isArray(value);

/**
 * Decodes JSON text from a form field. Nesting past MAX_JSON_DEPTH and text storage cannot hold
 * (NUL, a lone surrogate) are issues on the field (422); text that does not decode is returned
 * as such for the caller's rule.
 */
function decodeField(value: string, ctx: Ctx): { decoded: true; value: unknown } | { decoded: false; message: string } | null {
  const result = decodeJsonText(value);
  if (!result.ok && result.reason === "too_deep") {
    ctx.addIssue({ code: "custom", message: result.message });
    return null;
  }
  if (!result.ok) return { decoded: false, message: result.message };
  const unsafe = unsafeTextIn(result.value);
  for (const { path, message } of unsafe) ctx.addIssue({ code: "custom", message, path });
  return unsafe.length > 0 ? null : { decoded: true, value: result.value };
}

/**
 * A JSON form field as Agno's run endpoints read one: "" is absent, "null"/"none" null, and
 * text that does not decode is dropped with a logged warning (not refused). The decoded value
 * is returned as it is (the route applies any shape rule).
 */
export const formJson = (field: string) =>
  z
    .string()
    .optional()
    .transform((value, ctx): unknown => {
      if (value === undefined || value.trim() === "") return undefined;
      if (NULLS.has(value.trim().toLowerCase())) return null;
      const result = decodeField(value, ctx);
      if (result === null) return z.NEVER;
      if (!result.decoded) {
        log.warn(`Invalid ${field} parameter couldn't be loaded (dropped): ${result.message}`);
        return undefined;
      }
      return result.value;
    });

/** `formJson` for a field the run can use only as an object: anything else is dropped with a warning too. */
export const formJsonObject = (field: string) =>
  formJson(field).transform((value): Record<string, unknown> | null | undefined => {
    if (value === undefined || value === null || isObject(value)) return value;
    log.warn(`Invalid ${field} parameter (dropped): expected a JSON object, got ${Array.isArray(value) ? "an array" : typeof value}`);
    return undefined;
  });

/**
 * An output schema in a form field: a JSON object that is a usable JSON Schema for an object
 * (see outputSchemaProblem). Unlike the other JSON fields, anything else is a 422 naming the
 * field, before any model call.
 */
export const formOutputSchema = () =>
  z
    .string()
    .optional()
    .transform((value, ctx): Record<string, unknown> | undefined => {
      if (value === undefined || value.trim() === "" || NULLS.has(value.trim().toLowerCase())) return undefined;
      const result = decodeField(value, ctx);
      if (result === null) return z.NEVER;
      if (!result.decoded) {
        ctx.addIssue({ code: "custom", message: result.message });
        return z.NEVER;
      }
      if (!isObject(result.value)) {
        ctx.addIssue({ code: "custom", message: "must be a JSON object (a JSON Schema)" });
        return z.NEVER;
      }
      const problem = outputSchemaProblem(result.value);
      if (problem) {
        ctx.addIssue({ code: "custom", message: problem });
        return z.NEVER;
      }
      return result.value;
    });

/** An optional string where "" means absent (agent-ui sends `session_id: ""` for a new session). */
export const formOptionalString = () =>
  z
    .string()
    .optional()
    .transform((value) => (value === undefined || value === "" || NULLS.has(value.toLowerCase()) ? undefined : value));

export const formInt = () =>
  z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value === "") return undefined;
      const n = Number(value);
      if (!Number.isInteger(n)) {
        ctx.addIssue({ code: "custom", message: `must be an integer, got '${value}'` });
        return z.NEVER;
      }
      return n;
    });
