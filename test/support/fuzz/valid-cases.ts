import fc from "fast-check";
import type { z } from "zod";
import type { AnyRoute } from "@/lib/http/route.ts";
import { ODD_TEXT, OUTPUT_SCHEMAS, SPELLINGS, integerSpellings, oddInteger, oddJson, oddJsonObject, oddJsonText, oddText } from "./odd-values.ts";
import { JSON_FORM_FIELDS, MAX_DEPTH, jsonText, principalArb, routeKey, type FuzzContext, type FuzzLimits, type PrincipalKind } from "./route-cases.ts";
import { jsonSchemaOf, propertiesOf, validValue, type JsonSchema } from "./schema-values.ts";

/**
 * Cases for the "valid but odd input" property: each is one route, one principal kind and a whole
 * request whose every part the route's schemas accept, drawn from the route's JSON Schema (input
 * side) so routes added later are covered without touching this file. Text fields whose schema
 * reads them as something else (form booleans, integers, JSON) are recognised by asking the
 * schema itself how it reads a sample. Ids can name rows that exist when the request is built —
 * the seeded ones and those earlier cases created — through the suite's IdPool.
 */

/** An id drawn from the pool when the request is built (what exists then depends on earlier cases). */
export class PoolRef {
  constructor(
    readonly pool: string,
    readonly pick: number,
  ) {}
}

type Text = string | PoolRef;

export interface OddCase {
  routeKey: string;
  principal: PrincipalKind;
  /**
   * One pick for every id of the case, among the seeded rows (whose session and run lists are
   * parallel, so a run and its own session come together); absent, each id is drawn on its own.
   */
  pick?: number;
  path: Record<string, Text>;
  /** Decoded query pairs, in order (a repeated key repeats). */
  query: [string, Text][];
  /** A JSON body; `empty` sends none. */
  body?: { value: unknown } | "empty";
  /** `file`: which of UPLOADS goes along as a `files` part (multipart only). */
  form?: { fields: [string, Text][]; multipart: boolean; file: number | null };
}

/** Files a client may attach, by name and declared type (an empty type leaves it to the extension). */
const UPLOADS: readonly { name: string; type: string; bytes: number[] }[] = [
  { name: "notes 😀.txt", type: "text/plain", bytes: [0x68, 0x69, 0x0a] },
  { name: "data.csv", type: "text/csv", bytes: [0x61, 0x2c, 0x62, 0x0a] },
  { name: "readme.md", type: "", bytes: [0x23, 0x20, 0x68, 0x69] },
  { name: "pixel.png", type: "image/png", bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  { name: "doc.pdf", type: "application/pdf", bytes: [0x25, 0x50, 0x44, 0x46, 0x2d, 0x31, 0x2e, 0x34] },
  { name: "clip.ogg", type: "audio/ogg", bytes: [0x4f, 0x67, 0x67, 0x53] },
  { name: "bytes.json", type: "application/json", bytes: [0x7b, 0x7d] },
];

/** Field names that hold an id of a known kind, and the pool each draws from. */
const POOL_OF: Record<string, string> = {
  session_id: "session_id",
  run_id: "run_id",
  memory_id: "memory_id",
  learning_id: "learning_id",
  trace_id: "trace_id",
  span_id: "span_id",
  service_account_id: "service_account_id",
  job_id: "job_id",
  user_id: "user_id",
  agent_id: "agent_id",
  component_id: "component_id",
  db_id: "db_id",
  table: "table",
};

/** Pools an id an answer names also belongs to: a durable run's job has the run's id. */
const ALSO_IN: Record<string, string[]> = { run_id: ["job_id"] };

function poolOf(field: string): string | undefined {
  return POOL_OF[field] ?? (field.endsWith("_ids") ? POOL_OF[field.slice(0, -1)] : undefined);
}

/**
 * The ids a case can name: the seeded rows (FuzzContext.ids.existing), the configured agent and
 * database, and every id an earlier answer named (`learn`).
 */
export class IdPool {
  private readonly created = new Map<string, string[]>();
  constructor(private readonly ctx: FuzzContext) {}

  ids(pool: string): readonly string[] {
    if (pool === "agent_id") return [this.ctx.ids.agentId];
    if (pool === "db_id") return [this.ctx.ids.dbId];
    return [...(this.ctx.ids.existing[pool] ?? []), ...(this.created.get(pool) ?? [])];
  }

  /** The id a reference names; with `shared`, the seeded one at that pick (see OddCase.pick). */
  resolve(ref: PoolRef, shared?: number): string {
    const seeded = this.ctx.ids.existing[ref.pool] ?? [];
    if (shared !== undefined && seeded.length > 0) return seeded[shared % seeded.length];
    const ids = this.ids(ref.pool);
    return ids.length > 0 ? ids[ref.pick % ids.length] : `fuzz-none-${ref.pool}`;
  }

  /** Remembers the ids an answer names (its own fields, and those of the items of a `data` list). */
  learn(body: unknown): void {
    const items = body && typeof body === "object" && Array.isArray((body as { data?: unknown }).data) ? (body as { data: unknown[] }).data : [body];
    for (const item of items.slice(0, 20)) {
      if (!item || typeof item !== "object") continue;
      for (const [field, value] of Object.entries(item)) {
        const pool = POOL_OF[field];
        if (!pool || pool === "agent_id" || pool === "db_id" || pool === "table" || typeof value !== "string") continue;
        for (const name of [pool, ...(ALSO_IN[pool] ?? [])]) {
          const list = this.created.get(name) ?? [];
          if (!list.includes(value) && !this.ctx.ids.existing[name]?.includes(value)) this.created.set(name, [...list, value].slice(-100));
        }
      }
    }
  }
}

/** Copies a value with every PoolRef replaced by its id (own `__proto__` keys kept). */
export function resolveRefs(value: unknown, pool: IdPool, shared?: number): unknown {
  if (value instanceof PoolRef) return pool.resolve(value, shared);
  if (Array.isArray(value)) return value.map((v) => resolveRefs(v, pool, shared));
  if (!value || typeof value !== "object" || value.constructor !== Object) return value;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    Object.defineProperty(out, key, { value: resolveRefs(child, pool, shared), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

// ── field values ──────────────────────────────────────────────────────────────────────────────

function primaryType(schema: JsonSchema): string | undefined {
  return Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
}

/** A text value for an id field: mostly one that exists, sometimes odd text no row has. */
function idOrText(pool: string | undefined, text: fc.Arbitrary<string>): fc.Arbitrary<Text> {
  if (!pool) return text;
  return fc.oneof({ weight: 4, arbitrary: fc.nat().map((pick) => new PoolRef(pool, pick)) }, { weight: 1, arbitrary: text });
}

/**
 * How a route's schema reads a text field (form fields and query values arrive as text; their
 * JSON Schema says only "string"): parsed with sample values in an otherwise minimal input, the
 * output says whether it is a boolean, an integer, JSON, JSON that must be a schema, or text.
 */
type FieldKind = "bool" | "int" | "json" | "json-schema" | "text" | "constants";

function probe(schema: z.ZodType, base: Record<string, unknown>, field: string, value: string): { ok: boolean; out: unknown } {
  const result = schema.safeParse({ ...base, [field]: value });
  return { ok: result.success, out: result.success ? (result.data as Record<string, unknown>)[field] : undefined };
}

function fieldKind(schema: z.ZodType, base: Record<string, unknown>, field: string): FieldKind {
  if (probe(schema, base, field, "true").out === true && probe(schema, base, field, "off").out === false) return "bool";
  if (probe(schema, base, field, "7").out === 7) return "int";
  const object = probe(schema, base, field, '{"type": "object"}').out;
  if (object && typeof object === "object" && !Array.isArray(object)) return probe(schema, base, field, '{"odd": [1]}').ok ? "json" : "json-schema";
  return probe(schema, base, field, "odd text ✓").ok ? "text" : "constants";
}

/** Values for a text field of the given kind; `accepted` keeps the constants the schema takes. */
function textFieldValues({
  kind,
  pool,
  longest,
  accepted,
  json = false,
}: {
  kind: FieldKind;
  pool: string | undefined;
  longest: number;
  accepted: (value: string) => boolean;
  /** The field holds JSON text its route decodes (route-cases.ts JSON_FORM_FIELDS). */
  json?: boolean;
}): fc.Arbitrary<Text> {
  const constants = (values: readonly string[]) => {
    const kept = values.filter(accepted);
    return kept.length > 0 ? fc.constantFrom(...kept) : fc.constant(values[0]);
  };
  const text = oddText({ longest });
  switch (kind) {
    case "bool":
      return constants([...SPELLINGS.bool, ...SPELLINGS.nullish]);
    case "int":
      return constants(SPELLINGS.int);
    case "json":
      return fc.oneof({ weight: 5, arbitrary: oddJsonText(MAX_DEPTH - 1) }, { weight: 1, arbitrary: constants(SPELLINGS.nullish) }, { weight: 1, arbitrary: text });
    case "json-schema":
      return fc.oneof({ weight: 5, arbitrary: constants(OUTPUT_SCHEMAS.map((s) => jsonText(s))) }, { weight: 1, arbitrary: constants([...SPELLINGS.nullish, "{}"]) });
    case "text":
      // A text field the route decodes as JSON itself (tools, requirements…) gets JSON text too.
      return json ? fc.oneof(idOrText(pool, text), oddJsonText(MAX_DEPTH - 1)) : idOrText(pool, text);
    case "constants":
      return constants([...ODD_TEXT, ...SPELLINGS.bool, ...SPELLINGS.int]);
  }
}

/** Raw query text for one query field (a list: more than one value repeats the key). */
function queryFieldValues(route: AnyRoute, field: string, schema: JsonSchema, base: Record<string, unknown>): fc.Arbitrary<Text[]> {
  const options = schema.anyOf ?? schema.oneOf;
  const array = options?.find((o) => o.type === "array");
  const single = options?.find((o) => o.type !== "array" && o.type !== "null") ?? schema;
  const one = queryScalar(route, field, single, base);
  if (!array) return one.map((v) => [v]);
  return fc.oneof(
    one.map((v) => [v]),
    fc.array(queryScalar(route, field, array.items ?? single, base), { minLength: 2, maxLength: 4 }),
  );
}

function queryScalar(route: AnyRoute, field: string, schema: JsonSchema, base: Record<string, unknown>): fc.Arbitrary<Text> {
  if (schema.enum) return fc.constantFrom(...schema.enum.map(String));
  const type = primaryType(schema);
  if (type === "integer" || type === "number") {
    return oddInteger(schema.minimum, schema.maximum).chain((n) => fc.constantFrom(...integerSpellings(n)));
  }
  if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern));
  const kind = fieldKind(route.query!, base, field);
  const text = textFieldValues({ kind, pool: poolOf(field), longest: 2000, accepted: (v) => probe(route.query!, base, field, v).ok });
  return schema.minLength ? text.filter((v) => typeof v !== "string" || v.length >= schema.minLength!) : text;
}

/** A value of a JSON body (or part of one) that its JSON Schema accepts, as odd as it allows. */
function bodyValue(schema: JsonSchema, field: string | undefined, depth: number, limits: FuzzLimits): fc.Arbitrary<unknown> {
  const options = schema.anyOf ?? schema.oneOf;
  if (options) return fc.oneof(...options.map((o) => bodyValue(o, field, depth, limits)));
  if (Array.isArray(schema.type)) return fc.oneof(...schema.type.map((type) => bodyValue({ ...schema, type }, field, depth, limits)));
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const longest = Math.floor(limits.maxJsonBytes / 4);
  switch (schema.type) {
    case "null":
      return fc.constant(null);
    case "boolean":
      return fc.boolean();
    case "integer":
      return oddInteger(schema.minimum, schema.maximum);
    case "number":
      return fc.oneof(oddInteger(schema.minimum, schema.maximum), fc.double({ min: schema.minimum, max: schema.maximum, noNaN: true, noDefaultInfinity: true }));
    case "string": {
      if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern));
      const text = oddText({ minLength: schema.minLength, maxLength: schema.maxLength, longest }).filter((t) => t.length >= (schema.minLength ?? 0));
      return idOrText(field ? poolOf(field) : undefined, text);
    }
    case "array":
      return fc.array(bodyValue(schema.items ?? {}, field, depth + 1, limits), { minLength: schema.minItems ?? 0, maxLength: Math.max(schema.minItems ?? 0, 4) });
    case "object": {
      const properties = Object.entries(schema.properties ?? {});
      // A record (free-form object): odd keys, odd values, nested as deep as the edge allows.
      if (properties.length === 0) return oddJsonObject(MAX_DEPTH - depth);
      return objectValue(schema, properties, depth, limits);
    }
    default:
      return oddJson(Math.min(8, MAX_DEPTH - depth - 1));
  }
}

/** Required properties always, optional ones now and then, and sometimes keys no schema names. */
function objectValue(schema: JsonSchema, properties: [string, JsonSchema][], depth: number, limits: FuzzLimits): fc.Arbitrary<Record<string, unknown>> {
  const required = new Set(schema.required ?? []);
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, child] of properties) record[name] = bodyValue(child, name, depth + 1, limits);
  const extras = fc.array(fc.tuple(fc.constantFrom("unknown_field", "__proto__", "constructor", "😀", ""), oddJson(3)), { maxLength: 2 });
  return fc
    .tuple(fc.record(record, { requiredKeys: [...required].filter((k) => k in record) }), fc.oneof({ weight: 4, arbitrary: fc.constant([] as [string, unknown][]) }, { weight: 1, arbitrary: extras }))
    .map(([value, extra]) => {
      const out: Record<string, unknown> = { ...value };
      for (const [key, v] of extra) if (!(key in record)) Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
      return out;
    });
}

// ── cases ─────────────────────────────────────────────────────────────────────────────────────

const optional = <T>(arb: fc.Arbitrary<T>, weight: number): fc.Arbitrary<T | undefined> => fc.oneof({ weight, arbitrary: arb }, { weight: 10 - weight, arbitrary: fc.constant(undefined) });

function paramNames(template: string): { name: string; catchAll: boolean }[] {
  return [...template.matchAll(/\{(\w+)(\*)?\}/g)].map((m) => ({ name: m[1], catchAll: m[2] === "*" }));
}

function pathArb(route: AnyRoute): fc.Arbitrary<Record<string, Text>> {
  const record: Record<string, fc.Arbitrary<Text>> = {};
  for (const { name } of paramNames(route.path)) record[name] = idOrText(poolOf(name), oddText({ minLength: 1, longest: 300 }));
  return fc.record(record);
}

function queryArb(route: AnyRoute): fc.Arbitrary<[string, Text][]> {
  const schema = jsonSchemaOf(route.query);
  if (!schema) return fc.constant([]);
  const base = validValue(schema) as Record<string, unknown>;
  const required = new Set(schema.required ?? []);
  const fields = propertiesOf(schema).map(([field, child]) => {
    const values = queryFieldValues(route, field, child, base).map((list) => list.map((v) => [field, v] as [string, Text]));
    return required.has(field) ? values : optional(values, 4);
  });
  const unknown = optional(
    fc.tuple(fc.constantFrom("unknown_param", "__proto__", "constructor", "😀", "a[b]"), oddText({ longest: 100 })).map((pair) => [pair as [string, Text]]),
    1,
  );
  return fc.tuple(fc.tuple(...fields), unknown).map(([lists, extra]) => [...lists.flatMap((l) => l ?? []), ...(extra ?? [])]);
}

function bodyArb(route: AnyRoute, limits: FuzzLimits): fc.Arbitrary<OddCase["body"]> {
  const schema = jsonSchemaOf(route.body);
  if (!schema) return fc.constant(undefined);
  return fc.oneof(
    { weight: 19, arbitrary: bodyValue(schema, undefined, 1, limits).map((value) => ({ value })) },
    // An empty body: valid where the schema has a default for it.
    { weight: 1, arbitrary: fc.constant<"empty">("empty") },
  );
}

function formArb(route: AnyRoute, limits: FuzzLimits): fc.Arbitrary<OddCase["form"]> {
  const schema = jsonSchemaOf(route.form);
  if (!schema) return fc.constant(undefined);
  const base = validValue(schema) as Record<string, unknown>;
  const required = new Set(schema.required ?? []);
  const fields = propertiesOf(schema).map(([field]) => {
    const kind = fieldKind(route.form!, base, field);
    const values = textFieldValues({
      kind,
      pool: poolOf(field),
      longest: limits.maxFormFieldBytes,
      accepted: (v) => probe(route.form!, base, field, v).ok,
      json: JSON_FORM_FIELDS.has(field),
    }).map((v) => [field, v] as [string, Text]);
    return required.has(field) ? values : optional(values, 4);
  });
  const unknown = optional(
    fc.tuple(fc.constantFrom("unknown_field", "__proto__", "😀"), oddText({ longest: 100 })).map((pair) => pair as [string, Text]),
    1,
  );
  return fc.record({ fields: fc.tuple(...fields), unknown, multipart: fc.boolean(), file: optional(fc.nat(UPLOADS.length - 1), 5) }).map(({ fields: list, unknown: extra, multipart, file }) => ({
    fields: [...list.filter((f): f is [string, Text] => f !== undefined), ...(extra ? [extra] : [])],
    multipart,
    file: multipart && file !== undefined ? file : null,
  }));
}

/** How many inputs a route declares: routes with more are drawn more often. */
function inputCount(route: AnyRoute): number {
  return [route.params, route.query, route.body, route.form].reduce((n, schema) => n + propertiesOf(jsonSchemaOf(schema)).length, 0);
}

const byKey = new Map<string, AnyRoute>();
export function routeOfCase(c: OddCase): AnyRoute {
  const route = byKey.get(c.routeKey);
  if (!route) throw new Error(`unknown route ${c.routeKey}`);
  return route;
}

/** Every valid-but-odd case the route table allows (the oracle drops any a schema still refuses). */
export function oddCaseArb(routes: readonly AnyRoute[], limits: FuzzLimits): fc.Arbitrary<OddCase> {
  return fc.oneof(
    ...routes.map((route) => {
      byKey.set(routeKey(route), route);
      return {
        weight: 1 + Math.min(6, inputCount(route)),
        arbitrary: fc.record({
          routeKey: fc.constant(routeKey(route)),
          principal: principalArb,
          pick: optional(fc.nat(), 4),
          path: pathArb(route),
          query: queryArb(route),
          body: bodyArb(route, limits),
          form: formArb(route, limits),
        }),
      };
    }),
  );
}

// ── requests ──────────────────────────────────────────────────────────────────────────────────

function text(value: Text, pool: IdPool, shared: number | undefined): string {
  return value instanceof PoolRef ? pool.resolve(value, shared) : value;
}

/** The Request a case sends (a fresh one each call). */
export function oddRequestFor(c: OddCase, ctx: FuzzContext, pool: IdPool): Request {
  const route = routeOfCase(c);
  const path = route.path.replace(/\{(\w+)(\*)?\}/g, (_m, name: string, catchAll: string | undefined) => {
    const value = text(c.path[name], pool, c.pick);
    return catchAll ? value.split("/").map(encodeURIComponent).join("/") : encodeURIComponent(value);
  });
  const query = c.query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(text(v, pool, c.pick))}`).join("&");
  const headers = new Headers();
  const credential = c.principal === "anonymous" || c.principal === "forged" ? null : ctx.credentials[c.principal];
  if (credential) headers.set("authorization", credential);
  let body: BodyInit | undefined;
  if (c.body && c.body !== "empty") {
    headers.set("content-type", "application/json");
    body = jsonText(resolveRefs(c.body.value, pool, c.pick));
  } else if (c.form) {
    const fields = c.form.fields.map(([k, v]) => [k, text(v, pool, c.pick)] as [string, string]);
    if (c.form.multipart) {
      const form = new FormData();
      for (const [k, v] of fields) form.append(k, v);
      const upload = c.form.file === null ? undefined : UPLOADS[c.form.file];
      if (upload) form.append("files", new File([Uint8Array.from(upload.bytes)], upload.name, { type: upload.type }));
      body = form;
    } else {
      headers.set("content-type", "application/x-www-form-urlencoded");
      body = new URLSearchParams(fields).toString();
    }
  }
  return new Request(`${ctx.baseUrl}${path}${query ? `?${query}` : ""}`, { method: route.method, headers, body });
}

export function describeOddCase(c: OddCase, ctx: FuzzContext, pool: IdPool): string {
  const request = oddRequestFor(c, ctx, pool);
  const short = (s: string) => (s.length > 300 ? `${s.slice(0, 200)}…(${s.length} chars)` : s);
  const body =
    c.body && c.body !== "empty"
      ? `; body ${short(jsonText(resolveRefs(c.body.value, pool, c.pick)))}`
      : c.form
        ? `; form ${short(JSON.stringify(c.form.fields.map(([k, v]) => [k, text(v, pool, c.pick)])))}${c.form.multipart ? " (multipart)" : ""}${c.form.file === null ? "" : ` + file ${JSON.stringify(UPLOADS[c.form.file].name)} (${UPLOADS[c.form.file].type || "no type"})`}`
        : "";
  return `${request.method} ${short(request.url)} as ${c.principal}${body}`;
}

/**
 * One GET per route and pooled id (each path id and required query id walks its pool), as admin
 * and as member: what the state every earlier case left behind must still answer without a 5xx.
 */
export function sweepCases(routes: readonly AnyRoute[], pool: IdPool): OddCase[] {
  const cases: OddCase[] = [];
  for (const route of routes.filter((r) => r.method === "GET")) {
    byKey.set(routeKey(route), route);
    const query = jsonSchemaOf(route.query);
    const required = Object.entries((query ? validValue(query) : {}) as Record<string, unknown>);
    const pooled = [...paramNames(route.path).map((p) => p.name), ...required.map(([k]) => k)].map(poolOf).filter((p): p is string => !!p);
    const rounds = Math.max(1, ...pooled.map((p) => pool.ids(p).length));
    for (let i = 0; i < rounds; i++) {
      const ref = (name: string, fallback: string): Text => (poolOf(name) ? new PoolRef(poolOf(name)!, i) : fallback);
      const path = Object.fromEntries(paramNames(route.path).map(({ name }) => [name, ref(name, "x")]));
      const pairs = required.map(([k, v]) => [k, ref(k, String(v))] as [string, Text]);
      for (const principal of ["admin", "member"] as const) cases.push({ routeKey: routeKey(route), principal, path, query: pairs });
    }
  }
  return cases;
}
