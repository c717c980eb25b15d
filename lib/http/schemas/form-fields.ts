import { z } from "zod";

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

/** A JSON object in a form field; bad JSON or a non-object is a 422 naming the field. */
export const formJsonObject = () =>
  z
    .string()
    .optional()
    .transform((value, ctx): Record<string, unknown> | null | undefined => {
      if (value === undefined || value.trim() === "") return undefined;
      if (NULLS.has(value.trim().toLowerCase())) return null;
      try {
        const parsed: unknown = JSON.parse(value);
        if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
        ctx.addIssue({ code: "custom", message: "must be a JSON object" });
      } catch (error) {
        ctx.addIssue({ code: "custom", message: `is not valid JSON (${(error as Error).message})` });
      }
      return z.NEVER;
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
