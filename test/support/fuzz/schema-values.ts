import fc from "fast-check";
import { z } from "zod";

/**
 * Values for the route fuzz suite, derived from a route's own zod schemas (through their JSON
 * Schema, input side): a minimal valid value for every required field, so a request is refused
 * for the one part a case spoils, and hostile values for each kind of field and each place an
 * input arrives (path, query string, JSON body, form field).
 */

export interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minItems?: number;
  default?: unknown;
}

export function jsonSchemaOf(schema: z.ZodType | undefined): JsonSchema | null {
  if (!schema) return null;
  return z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as JsonSchema;
}

/** The first non-null alternative of a union, or the schema itself. */
function primary(schema: JsonSchema): JsonSchema {
  const options = schema.anyOf ?? schema.oneOf;
  if (!options) return schema;
  return options.find((o) => o.type !== "null") ?? options[0];
}

function typeOf(schema: JsonSchema): string | undefined {
  const s = primary(schema);
  if (s.enum) return "enum";
  return Array.isArray(s.type) ? s.type.find((t) => t !== "null") : s.type;
}

/** Strings for the patterns the route schemas use (a generic "x" would not match them). */
const PATTERN_EXAMPLES: [RegExp, string][] = [
  [/\\d\+\\\.\\d\+\\\.\\d\+/, "3.0.0"],
  [/^\^\[a-z\]\[a-z_\]\*/, "sessions:read"],
];

/** A minimal value the schema accepts (only required object properties are filled). */
export function validValue(schema: JsonSchema): unknown {
  const s = primary(schema);
  if (s.const !== undefined) return s.const;
  if (s.enum) return s.enum[0];
  switch (typeOf(s)) {
    case "string": {
      if (s.pattern) return PATTERN_EXAMPLES.find(([p]) => p.test(s.pattern!))?.[1] ?? "x";
      return "x".repeat(Math.max(1, s.minLength ?? 1));
    }
    case "integer":
    case "number":
      return Math.min(Math.max(1, s.minimum ?? 1), s.maximum ?? Number.MAX_SAFE_INTEGER);
    case "boolean":
      return false;
    case "array":
      return Array.from({ length: s.minItems ?? 0 }, () => validValue(s.items ?? {}));
    case "object": {
      const out: Record<string, unknown> = {};
      for (const key of s.required ?? []) out[key] = validValue(s.properties?.[key] ?? {});
      return out;
    }
    default:
      return "x";
  }
}

/** The property schemas of an object schema (empty for anything else). */
export function propertiesOf(schema: JsonSchema | null): [string, JsonSchema][] {
  return schema ? Object.entries(primary(schema).properties ?? {}) : [];
}

// ── hostile values ──────────────────────────────────────────────────────────────────────────

export const NUL = "nul\u0000byte";
export const LONE_HIGH = "lone\ud800";
export const LONE_LOW = "\udc00lone";

/** JSON text nested `depth` levels deep (arrays or objects), built as text: no recursion. */
export function deepJsonText(depth: number, kind: "array" | "object"): string {
  return kind === "array" ? "[".repeat(depth) + "]".repeat(depth) : '{"a":'.repeat(depth) + "1" + "}".repeat(depth);
}

/** A stand-in for raw JSON text inside a JSON body (replaced after JSON.stringify). */
export class RawJson {
  constructor(readonly text: string) {}
}

const depthArb = fc.constantFrom(65, 200, 10_000);
const hugeNumbers = ["1e400", "-1e400", "99999999999999999999999", "9007199254740993", "-9223372036854775809"];

/** Hostile values for a field of a JSON body. `overLimit` is a length that passes the body cap. */
export function hostileJsonValue(schema: JsonSchema, overLimit: number): fc.Arbitrary<unknown> {
  const s = primary(schema);
  const type = typeOf(s);
  const common: fc.Arbitrary<unknown>[] = [
    fc.constantFrom<unknown>(123, -1, 0, 1.5, true, false, null, [], {}, "", "bogus", [1, "two"], { nested: { x: 1 } }),
    fc.constantFrom(NUL, LONE_HIGH, LONE_LOW, { [NUL]: 1 }, { key: LONE_HIGH }, [NUL]),
    fc.tuple(depthArb, fc.constantFrom<"array" | "object">("array", "object")).map(([d, k]) => new RawJson(deepJsonText(d, k))),
    fc.constantFrom(...hugeNumbers).map((n) => new RawJson(n)),
    fc.constant("a".repeat(overLimit)),
  ];
  if (type === "string" && s.minLength) common.push(fc.constant("x".repeat(Math.max(0, s.minLength - 1))));
  if (type === "string" && s.maxLength) common.push(fc.constant("x".repeat(s.maxLength + 1)));
  if ((type === "integer" || type === "number") && s.minimum !== undefined) common.push(fc.constant(s.minimum - 1));
  if ((type === "integer" || type === "number") && s.maximum !== undefined) common.push(fc.constant(s.maximum + 1));
  if (type === "array") common.push(fc.constant([123, null, {}]), fc.constant([NUL]));
  if (type === "enum") common.push(fc.constantFrom("BOGUS", "asc ", `${String(s.enum?.[0])}\u0000`));
  if (type === "object") {
    for (const [key, child] of propertiesOf(s).slice(0, 8)) {
      common.push(hostileJsonValue(child, overLimit).map((v) => ({ ...(validValue(s) as object), [key]: v })));
    }
  }
  return fc.oneof(...common);
}

/** Hostile raw (already percent-encoded) query values. */
export function hostileQueryValue(schema: JsonSchema, overLimit: number): fc.Arbitrary<string | string[]> {
  const type = typeOf(schema);
  const values: fc.Arbitrary<string | string[]>[] = [
    fc.constantFrom("abc", "", "-1", "0", "1.5", "0x10", "NaN", "Infinity", "true", "null", ...hugeNumbers),
    fc.constantFrom("%00", "a%00b", "%ED%A0%80", "%", "%zz", "%E0%A4", "%C0%80", "%F4%90%80%80"),
    fc.constantFrom<string[]>(["a", "b"], ["1", "2"], ["", ""]),
    fc.constant("a".repeat(overLimit)),
    fc.string({ unit: "binary", maxLength: 12 }).map((s) => encodeURIComponentLoose(s)),
  ];
  if (type === "enum") values.push(fc.constantFrom("BOGUS", "ASC", "Desc", "agent%00"));
  return fc.oneof(...values);
}

/** Hostile raw (already percent-encoded) path segments: malformed or missing ids. */
export const hostilePathSegment: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "%00",
    "id%00x",
    "%ED%A0%80",
    "%",
    "%zz",
    "%E0%A4",
    "..",
    "%2E%2E",
    "a%2Fb",
    "%20",
    "%27%3B%20DROP%20TABLE%20agno_sessions%3B%20--",
    "%F0%9F%98%80",
    "null",
    "undefined",
    "-1",
    "9".repeat(400),
  ),
  fc.constant("x".repeat(5000)),
  fc.string({ unit: "binary", minLength: 1, maxLength: 16 }).map((s) => encodeURIComponentLoose(s) || "x"),
);

/** Hostile form-field text (form values are strings; JSON fields hold JSON text). */
export function hostileFormValue(overLimit: number): fc.Arbitrary<string | string[]> {
  return fc.oneof(
    fc.constantFrom("", "maybe", "abc", "-1", "1.5", "1e400", "{bad", "[1,2]", '"text"', "123", "null", "{}"),
    fc.constantFrom(NUL, LONE_HIGH, LONE_LOW, '{"a":"\\u0000"}', '{"a":"\\ud800"}', '{"\\u0000":1}', '"\\udc00"'),
    fc.tuple(depthArb, fc.constantFrom<"array" | "object">("array", "object")).map(([d, k]) => deepJsonText(d, k)),
    fc.constant("m".repeat(overLimit)),
    fc.constantFrom<string[]>(["a", "b"], ["true", "false"], ["{}", "{}"]),
  );
}

/**
 * Percent-encodes what encodeURIComponent can, and encodes a lone surrogate as the (invalid)
 * UTF-8 bytes a careless client would send, where encodeURIComponent itself throws.
 */
export function encodeURIComponentLoose(text: string): string {
  let out = "";
  for (const ch of text) {
    try {
      out += encodeURIComponent(ch);
    } catch {
      const code = ch.charCodeAt(0);
      out += `%${(0xe0 | (code >> 12)).toString(16)}%${(0x80 | ((code >> 6) & 0x3f)).toString(16)}%${(0x80 | (code & 0x3f)).toString(16)}`.toUpperCase();
    }
  }
  return out;
}
