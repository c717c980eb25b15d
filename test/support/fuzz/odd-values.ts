import fc from "fast-check";
import { jsonText } from "./route-cases.ts";
import { RawJson, type JsonSchema } from "./schema-values.ts";

/**
 * Values a route's schemas accept but that are unusual: unicode of every kind (astral plane,
 * combining marks, right-to-left, zero-width), characters that mean something to URLs, SQL or
 * LIKE patterns, boundary numbers, every enum value, free-form JSON with odd keys and deep (but
 * allowed) nesting, and valid JSON Schemas of several drafts. Nothing here holds text storage
 * refuses (NUL, lone surrogates): the suite's oracle checks every case anyway.
 */

/** Text that is storable but odd; each one has broken some server somewhere. */
export const ODD_TEXT: readonly string[] = [
  "😀",
  "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝕿𝖊𝖝𝖙",
  "👨\u200d👩\u200d👧\u200d👦",
  "🏳\ufe0f\u200d🌈",
  "e\u0301\u0302\u0323",
  "Z\u0351\u0362a\u0338\u0359",
  "שלום עולם",
  "مرحبا",
  "\u202eevil\u202c.txt",
  "\u200b",
  "zero\u200dwidth\u200cjoin",
  "\ufeffbom",
  "a/b",
  "/",
  "%2F",
  "a%2Fb",
  " ",
  "  padded  ",
  "'",
  '"',
  "\\",
  "\\\\",
  "%",
  "_",
  "%_%",
  "100%",
  "a_b",
  "\\%\\_",
  "[abc]",
  "*",
  "?",
  "#frag",
  "a&b=c",
  "+",
  ";",
  "' OR '1'='1",
  '"; DROP TABLE agno_sessions; --',
  "null",
  "None",
  "undefined",
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
  "0",
  "-0",
  "1e400",
  "NaN",
  "\t",
  "\n",
  "line\r\nbreak",
  "\u0001\u001f",
  "\u007f",
  "\u2028\u2029",
  "\ufffd",
  "\uffff",
  "\u{10ffff}",
  "ß",
  "İstanbul",
  "ﬃ",
  "ΣΑΣ",
  "𐐀𐐨",
  "<script>alert(1)</script>",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template placeholder sent as plain text is the odd value.
  "${x}{{x}}",
  "~",
  "...",
];

/** Odd keys for free-form JSON objects. */
const ODD_KEYS: readonly string[] = ["__proto__", "constructor", "prototype", "toString", "", " ", "😀", "ключ", "a.b", "$ref", "$schema", 'a"b', "\\", "0", "length", "e\u0301", "\u200b"];
/** Keys Agno's dicts use (runs, tools, requirements, sessions): odd values under them reach more code. */
const WIRE_KEYS: readonly string[] = [
  "id",
  "run_id",
  "session_id",
  "name",
  "value",
  "type",
  "content",
  "messages",
  "metrics",
  "status",
  "tool_call_id",
  "tool_name",
  "tool_args",
  "tool_execution",
  "confirmed",
  "confirmation",
  "confirmation_note",
  "user_input_schema",
  "result",
  "external_execution_result",
  "requirements",
  "session_name",
  "session_state",
];
const objectKey = fc.oneof(fc.constantFrom(...ODD_KEYS), fc.constantFrom(...WIRE_KEYS), fc.string({ unit: "grapheme", maxLength: 6 }));

/**
 * Text as odd as ODD_TEXT, or random unicode (whole grapheme clusters, never a lone surrogate),
 * at most `longest` bytes of UTF-8 and `maxLength` characters.
 */
export function oddText({ minLength = 0, maxLength, longest }: { minLength?: number; maxLength?: number; longest: number }): fc.Arbitrary<string> {
  const cap = Math.min(maxLength ?? longest, longest);
  const options: fc.WeightedArbitrary<string>[] = [
    { weight: 6, arbitrary: fc.constantFrom(...ODD_TEXT) },
    { weight: 3, arbitrary: fc.string({ unit: "grapheme", minLength: 1, maxLength: 12 }) },
    { weight: 2, arbitrary: fc.array(fc.constantFrom(...ODD_TEXT), { minLength: 2, maxLength: 5 }).map((parts) => parts.join("")) },
    // Long but allowed: `cap` bytes (and characters, unless `maxLength` is the lower), in one-,
    // two- and four-byte characters.
    { weight: 1, arbitrary: fc.constantFrom("x".repeat(cap), "😀".repeat(Math.floor(cap / 4)), "é".repeat(Math.floor(cap / 2)), "%_".repeat(Math.floor(cap / 2))) },
  ];
  return fc
    .oneof(...options)
    .map((text) => (text.length < minLength ? text.padEnd(minLength, "_") : text))
    .filter((text) => maxLength === undefined || [...text].length <= maxLength);
}

/** An object holding `__proto__` (and any other key) as an own property, as JSON.parse makes it. */
function ownObject(entries: readonly (readonly [string, unknown])[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of entries) Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  return out;
}

const ODD_NUMBERS = [0, -0, 1, -1, 1.5, 2 ** 53 - 1, -(2 ** 53 - 1), 2 ** 63, 1e308, 5e-324, 123456.789];

/** JSON nested `depth` levels deep below its root (alternating objects and arrays, odd keys). */
function nestedJson(depth: number): unknown {
  let value: unknown = {};
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? ownObject([[ODD_KEYS[i % ODD_KEYS.length], value]]) : [value];
  return value;
}

/**
 * Free-form JSON (a record's values, `metadata`, `session_state`): scalars of every kind, empty
 * and nested containers, odd keys, and chains up to `maxDepth` levels below the value itself.
 */
export function oddJson(maxDepth: number): fc.Arbitrary<unknown> {
  const scalar = fc.oneof(
    fc.constantFrom<unknown>(null, true, false, "", ...ODD_NUMBERS),
    fc.constantFrom(...ODD_TEXT),
    fc.constantFrom("1e400", "-1e400", "12345678901234567890123", "1.0", "-0.0").map((n) => new RawJson(n)),
  );
  const { value } = fc.letrec<{ value: unknown; object: Record<string, unknown>; array: unknown[] }>((tie) => ({
    value: fc.oneof({ depthSize: "small", withCrossShrink: true }, scalar, tie("object"), tie("array")),
    object: fc.array(fc.tuple(objectKey, tie("value")), { maxLength: 4 }).map(ownObject),
    array: fc.array(tie("value"), { maxLength: 4 }),
  }));
  return fc.oneof(
    { weight: 5, arbitrary: value },
    { weight: 1, arbitrary: fc.constantFrom<unknown>({}, [], [[]], { a: {} }, [{}], { a: [] }) },
    { weight: 1, arbitrary: fc.integer({ min: Math.max(1, maxDepth - 3), max: Math.max(1, maxDepth) }).map(nestedJson) },
  );
}

/** A free-form JSON object (never an array or scalar at its root). */
export function oddJsonObject(maxDepth: number): fc.Arbitrary<Record<string, unknown>> {
  return fc.oneof(
    fc.array(fc.tuple(objectKey, oddJson(maxDepth - 1)), { maxLength: 5 }).map(ownObject),
    fc.integer({ min: Math.max(1, maxDepth - 2), max: Math.max(1, maxDepth) }).map((d) => ownObject([["deep", nestedJson(d - 1)]])),
  );
}

/** Valid output schemas: an object at the root, in draft-07, 2019-09 and 2020-12, with `$defs`/`$ref`. */
export const OUTPUT_SCHEMAS: readonly Record<string, unknown>[] = [
  { $schema: "http://json-schema.org/draft-07/schema#", type: "object", properties: { answer: { type: "string" } }, required: ["answer"], additionalProperties: false },
  { $schema: "http://json-schema.org/draft-07/schema", type: "object", definitions: { x: { type: "string", enum: ["a", "b"] } }, properties: { x: { $ref: "#/definitions/x" } }, required: ["x"] },
  {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    $defs: { item: { type: "object", properties: { n: { type: "integer", minimum: 0 } }, required: ["n"] } },
    properties: { items: { type: "array", items: { $ref: "#/$defs/item" } } },
    required: ["items"],
  },
  { $schema: "https://json-schema.org/draft/2019-09/schema", type: "object", $defs: { a: { type: "number" } }, properties: { a: { $ref: "#/$defs/a" } } },
  { $defs: { node: { type: "object", properties: { child: { $ref: "#/$defs/node" }, name: { type: "string" } } } }, $ref: "#/$defs/node", type: "object" },
  { type: "object" },
  { type: "object", title: "Odd Title 😀", description: "שלום", properties: {} },
  { $id: "https://example.com/odd.schema.json", type: "object", properties: { "ключ": { type: ["string", "null"] } } },
  { type: "object", properties: { a: { type: "string" }, b: { type: "string" } }, anyOf: [{ required: ["a"] }, { required: ["b"] }] },
  { type: "object", patternProperties: { "^x": { type: "string" } }, "x-unknown-keyword": true, $comment: "odd" },
  { type: "object", properties: { nested: { type: "object", properties: { deeper: { type: "object", properties: { deepest: { type: "boolean" } } } } } } },
  ownObject([
    ["type", "object"],
    [
      "properties",
      ownObject([
        ["__proto__", { type: "string" }],
        ["constructor", { type: "integer" }],
      ]),
    ],
  ]),
];

/** A JSON Schema's simplest instance (required properties filled, `$ref`s into the document followed). */
export function instanceOf(schema: unknown, root: unknown = schema, depth = 0): unknown {
  if (!schema || typeof schema !== "object" || depth > 20) return null;
  const s = schema as JsonSchema & { $ref?: string; allOf?: unknown[]; [key: string]: unknown };
  if (typeof s.$ref === "string" && s.$ref.startsWith("#/")) {
    const target = s.$ref
      .slice(2)
      .split("/")
      .reduce<unknown>((node, key) => (node && typeof node === "object" ? (node as Record<string, unknown>)[key] : undefined), root);
    const resolved = instanceOf(target, root, depth + 1);
    if (s.type !== "object" || (resolved && typeof resolved === "object")) return resolved;
  }
  if (s.const !== undefined) return s.const;
  if (s.enum) return s.enum[0];
  const options = s.anyOf ?? s.oneOf;
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  if (options && type === undefined) return instanceOf(options[0], root, depth + 1);
  switch (type) {
    case "string":
      return "x";
    case "integer":
    case "number":
      return Math.max(0, s.minimum ?? 0);
    case "boolean":
      return false;
    case "array":
      return [];
    case "null":
      return null;
    default: {
      const required = new Set([...(s.required ?? []), ...((options?.[0] as JsonSchema | undefined)?.required ?? [])]);
      return ownObject([...required].map((key) => [key, instanceOf(s.properties?.[key] ?? { type: "string" }, root, depth + 1)]));
    }
  }
}

/** Spellings a text field may accept, by kind. The route's schema decides which it does. */
export const SPELLINGS = {
  bool: ["true", "false", "True", "FALSE", " yes ", "No", "on", "OFF", "1", "0", ""],
  nullish: ["null", "None", "NULL", " none ", ""],
  int: ["0", "-1", "1", "+5", "1e1", "0x10", "007", " 3 ", "3.0", "2147483648", "9007199254740991", "-9007199254740991", ""],
};

/** Text of odd JSON for a JSON form field: compact, pretty-printed, padded, and scalars. */
export function oddJsonText(maxDepth: number): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: oddJsonObject(maxDepth).map((value) => jsonText(value)) },
    { weight: 1, arbitrary: oddJsonObject(Math.min(maxDepth, 6)).map((value) => `  ${JSON.stringify(value, null, 2)}\n`) },
    { weight: 1, arbitrary: oddJson(3).map((value) => jsonText(value)) },
    { weight: 2, arbitrary: fc.array(oddJsonObject(4), { maxLength: 3 }).map((list) => jsonText(list)) },
    { weight: 1, arbitrary: fc.constantFrom("{}", "[]", '""', '"text"', "0", "true", "{ }", '{"a":null}') },
  );
}

/** Boundary and ordinary integers within [min, max] (safe integers only). */
export function oddInteger(min = -(2 ** 53 - 1), max = 2 ** 53 - 1): fc.Arbitrary<number> {
  const edges = [min, max, min + 1, max - 1, 0, 1, -1, 1000, 1001, 2 ** 31 - 1, 2 ** 31, 2 ** 32, -(2 ** 31) - 1].filter((n) => n >= min && n <= max);
  return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...edges) }, { weight: 1, arbitrary: fc.integer({ min: Math.max(min, -(2 ** 31)), max: Math.min(max, 2 ** 31 - 1) }) });
}

/** Ways to spell an integer in a query string that `z.coerce.number()` reads as that integer. */
export function integerSpellings(n: number): string[] {
  const out = [String(n), ` ${n} `, `${n}.0`];
  if (n >= 0) out.push(`+${n}`, `0x${n.toString(16)}`);
  if (n !== 0 && Number.isInteger(Math.log10(Math.abs(n)))) out.push(`${Math.sign(n) < 0 ? "-" : ""}1e${Math.log10(Math.abs(n))}`);
  return out;
}
