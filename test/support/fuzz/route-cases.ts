import fc from "fast-check";
import type { AnyRoute } from "@/lib/http/route.ts";
import { matchTemplate } from "@/lib/http/path-template.ts";
import { templateForPath } from "@/lib/http/route-table.ts";
import { RawJson, hostileFormValue, hostileJsonValue, hostilePathSegment, hostileQueryValue, jsonSchemaOf, propertiesOf, validValue } from "./schema-values.ts";

/**
 * Fuzz cases for the route table: each case is one route, one principal kind and one spoiled part
 * of an otherwise valid request (a path id, a query value, a JSON body field or the whole body, a
 * form field, or the credentials). `serverView` computes, independently of the dispatcher, what the
 * request means to the route's own schemas and to the storage rules every route enforces at the
 * edge (no NUL, no lone surrogate, bounded nesting and size), so the suite knows which cases are
 * bad input — only those are sent, and each must be refused with a 4xx that changes nothing.
 */

/** `no_sub`: a valid token without a `sub` claim (non-admin: refused wherever data is owned). */
export type PrincipalKind = "admin" | "member" | "scopeless" | "service_account" | "no_sub" | "anonymous" | "forged";

export type Spoil =
  | { part: "path"; param: string; value: string }
  /** `field` and `value` are raw (already percent-encoded) query text. */
  | { part: "query"; field: string; value: string | string[] }
  | { part: "body"; field: string | null; value: unknown }
  | { part: "raw-body"; contentType: string; text: string }
  | { part: "form"; field: string; value: string | string[]; multipart: boolean; withFile: boolean }
  | { part: "credentials" };

export interface FuzzCase {
  /** The route, `METHOD /template` (a key, so a failing case prints short). */
  routeKey: string;
  principal: PrincipalKind;
  /** Index into the suite's forged credentials, for `forged`. */
  forged: number;
  /** Path ids of rows that exist (the member's own, shared, Agno-shaped), instead of ids that match nothing. */
  existingIds: boolean;
  /** Which of the existing rows, for each path id. */
  pick: number;
  spoil: Spoil;
}

export interface FuzzLimits {
  maxJsonBytes: number;
  maxFormFieldBytes: number;
  maxUploadBytes: number;
}

/** Form fields whose text the run routes decode as JSON (their decoded content is checked too). */
export const JSON_FORM_FIELDS = new Set([
  "session_state",
  "dependencies",
  "metadata",
  "knowledge_filters",
  "output_schema",
  "tools",
  "requirements",
  "images",
  "audio",
  "videos",
  "files",
  "input_files",
  "files_metadata",
]);

export const MAX_DEPTH = 64;

/** Who sends a case that spoils an input (credentials cases send forged or no credentials). */
export const principalArb: fc.Arbitrary<PrincipalKind> = fc.oneof(
  { arbitrary: fc.constant<PrincipalKind>("admin"), weight: 5 },
  { arbitrary: fc.constant<PrincipalKind>("member"), weight: 5 },
  { arbitrary: fc.constant<PrincipalKind>("service_account"), weight: 2 },
  { arbitrary: fc.constant<PrincipalKind>("scopeless"), weight: 1 },
  { arbitrary: fc.constant<PrincipalKind>("no_sub"), weight: 1 },
);
const badCredentialsArb = fc.constantFrom<PrincipalKind>("anonymous", "forged");

/** How often each kind of spoil is drawn: inputs mostly, credentials now and then. */
const PART_WEIGHTS: Record<Spoil["part"], number> = { path: 3, query: 5, body: 5, "raw-body": 1, form: 4, credentials: 1 };

function paramNames(template: string): string[] {
  return [...template.matchAll(/\{(\w+)\*?\}/g)].map((m) => m[1]);
}

/** The ways a route's request can be spoiled, given the parts its definition declares. */
function spoilArbs(route: AnyRoute, limits: FuzzLimits): { part: Spoil["part"]; arb: fc.Arbitrary<Spoil> }[] {
  const arbs: fc.Arbitrary<Spoil>[] = [];
  for (const param of paramNames(route.path)) {
    arbs.push(hostilePathSegment.map((value) => ({ part: "path", param, value })));
  }
  const query = propertiesOf(jsonSchemaOf(route.query));
  for (const [field, schema] of query) {
    arbs.push(hostileQueryValue(schema, 8 * 1024).map((value) => ({ part: "query", field: encodeURIComponent(field), value })));
  }
  // A parameter no route declares is ignored, unless its name is text no database stores.
  if (query.length > 0) arbs.push(fc.constantFrom("%00", "key%00", "%00page").map((field) => ({ part: "query", field, value: "1" })));
  const body = jsonSchemaOf(route.body);
  if (route.body) {
    for (const [field, schema] of propertiesOf(body)) {
      arbs.push(hostileJsonValue(schema, limits.maxJsonBytes).map((value) => ({ part: "body", field, value })));
    }
    arbs.push(hostileJsonValue({}, limits.maxJsonBytes).map((value) => ({ part: "body", field: null, value })));
    arbs.push(
      fc
        .constantFrom<[string, string]>(
          ["application/json", "{"],
          ["application/json", '{"a":1,}'],
          ["application/json", "nul"],
          ["application/json", '{"a":"\\ud800"}'],
          ["application/json", '"\\u0000"'],
          ["application/json", "\u00ff\u00fe"],
          ["text/plain", "{}"],
          ["application/x-www-form-urlencoded", "a=1"],
          ["application/json; charset=utf-8", "[".repeat(20_000)],
        )
        .map(([contentType, text]) => ({ part: "raw-body", contentType, text })),
    );
  }
  if (route.form) {
    const fields = propertiesOf(jsonSchemaOf(route.form)).map(([name]) => name);
    if (fields.length > 0) {
      arbs.push(
        fc
          .record({ field: fc.constantFrom(...fields), value: hostileFormValue(limits.maxFormFieldBytes + 1), multipart: fc.boolean(), withFile: fc.boolean() })
          .map((spoil) => ({ part: "form", ...spoil })),
      );
    }
    arbs.push(
      fc
        .constantFrom<[string, string]>(
          ["application/json", '{"message":"hi"}'],
          ["multipart/form-data; boundary=zz", '--zz\r\nContent-Disposition: form-data; name="message"\r\n\r\nhi'],
          ["multipart/form-data", "no boundary"],
          ["text/plain", "message=hi"],
        )
        .map(([contentType, text]) => ({ part: "raw-body", contentType, text })),
    );
  }
  if (!("public" in route.access)) arbs.push(fc.constant({ part: "credentials" }));
  return arbs.map((arb) => ({ part: partOf(arb), arb }));
}

/** The part an arbitrary spoils (each one spoils exactly one kind). */
function partOf(arb: fc.Arbitrary<Spoil>): Spoil["part"] {
  return fc.sample(arb, { numRuns: 1, seed: 0 })[0].part;
}

export const routeKey = (route: AnyRoute) => `${route.method} ${route.path}`;

const byKey = new Map<string, AnyRoute>();
/** The route a case is for. */
export function routeOf(fuzz: FuzzCase): AnyRoute {
  const route = byKey.get(fuzz.routeKey);
  if (!route) throw new Error(`unknown route ${fuzz.routeKey}`);
  return route;
}

/**
 * Every case the route table allows: a kind of spoil (weighted), then a route that has that part,
 * then the spoiled value. Routes with nothing to spoil are left out.
 */
export function fuzzCaseArb(routes: readonly AnyRoute[], limits: FuzzLimits): fc.Arbitrary<FuzzCase> {
  const byPart = new Map<Spoil["part"], { route: AnyRoute; arb: fc.Arbitrary<Spoil> }[]>();
  for (const route of routes) {
    byKey.set(routeKey(route), route);
    for (const { part, arb } of spoilArbs(route, limits)) byPart.set(part, [...(byPart.get(part) ?? []), { route, arb }]);
  }
  const parts = [...byPart].map(([part, options]) => ({
    weight: PART_WEIGHTS[part],
    arbitrary: fc.constantFrom(...options).chain(({ route, arb }) =>
      fc.record({
        routeKey: fc.constant(routeKey(route)),
        principal: part === "credentials" ? badCredentialsArb : principalArb,
        forged: fc.nat(100),
        existingIds: fc.boolean(),
        pick: fc.nat(),
        spoil: arb,
      }),
    ),
  }));
  return fc.oneof(...parts);
}

// ── building the request ──────────────────────────────────────────────────────────────────────

export interface FuzzContext {
  baseUrl: string;
  limits: FuzzLimits;
  /**
   * Ids for path params: existing rows (the member's, shared ones and rows shaped the way Agno
   * writes them), and the configured agent / database. `session_id` and `run_id` are parallel:
   * the i-th run is in the i-th session.
   */
  ids: { existing: Record<string, readonly string[]>; agentId: string; dbId: string };
  credentials: Record<Exclude<PrincipalKind, "anonymous" | "forged">, string>;
  forged: string[];
}

const MARK = "\u0001raw-json-";

/** JSON text of a value holding RawJson pieces (deep nesting, huge numbers) spliced in verbatim. */
export function jsonText(value: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(value, (_key, v: unknown) => (v instanceof RawJson ? `${MARK}${raws.push(v.text) - 1}` : v)) ?? "null";
  return raws.length === 0 ? text : text.replace(/"\\u0001raw-json-(\d+)"/g, (_m, i: string) => raws[Number(i)]);
}

function pathFor(fuzz: FuzzCase, ctx: FuzzContext): string {
  return routeOf(fuzz).path.replace(/\{(\w+)(\*)?\}/g, (_m, name: string) => {
    if (fuzz.spoil.part === "path" && fuzz.spoil.param === name) return fuzz.spoil.value;
    if (name === "agent_id") return ctx.ids.agentId;
    if (name === "db_id") return ctx.ids.dbId;
    const existing = ctx.ids.existing[name];
    if (fuzz.existingIds && existing?.length) return encodeURIComponent(existing[fuzz.pick % existing.length]);
    return `fuzz-missing-${name}`;
  });
}

function queryFor(fuzz: FuzzCase): string {
  const pairs: string[] = [];
  const schema = jsonSchemaOf(routeOf(fuzz).query);
  const base = (schema ? validValue(schema) : {}) as Record<string, unknown>;
  for (const [key, value] of Object.entries(base)) {
    if (fuzz.spoil.part === "query" && fuzz.spoil.field === key) continue;
    pairs.push(`${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`);
  }
  if (fuzz.spoil.part === "query") {
    const values = Array.isArray(fuzz.spoil.value) ? fuzz.spoil.value : [fuzz.spoil.value];
    for (const value of values) pairs.push(`${fuzz.spoil.field}=${value}`);
  }
  return pairs.length > 0 ? `?${pairs.join("&")}` : "";
}

function formFieldsFor(fuzz: FuzzCase): [string, string][] {
  const schema = jsonSchemaOf(routeOf(fuzz).form);
  const base = (schema ? validValue(schema) : {}) as Record<string, unknown>;
  const entries: [string, string][] = Object.entries(base).map(([k, v]) => [k, String(v)]);
  // A run that somehow got through would answer as one JSON body, not a stream.
  if (routeOf(fuzz).path.endsWith("/runs") && !("stream" in base)) entries.push(["stream", "false"]);
  if (fuzz.spoil.part !== "form") return entries;
  const { field, value } = fuzz.spoil;
  const kept = entries.filter(([k]) => k !== field);
  for (const v of Array.isArray(value) ? value : [value]) kept.push([field, v]);
  return kept;
}

/** The Request a case sends (a fresh one each call: bodies are read once). */
export function requestFor(fuzz: FuzzCase, ctx: FuzzContext): Request {
  const url = `${ctx.baseUrl}${pathFor(fuzz, ctx)}${queryFor(fuzz)}`;
  const headers = new Headers();
  const credential =
    fuzz.principal === "anonymous" ? null : fuzz.principal === "forged" || fuzz.spoil.part === "credentials" ? ctx.forged[fuzz.forged % ctx.forged.length] : ctx.credentials[fuzz.principal];
  if (credential) headers.set("authorization", credential);
  let body: BodyInit | undefined;
  const { spoil } = fuzz;
  const route = routeOf(fuzz);
  if (spoil.part === "raw-body") {
    headers.set("content-type", spoil.contentType);
    body = spoil.text;
  } else if (route.body) {
    const schema = jsonSchemaOf(route.body);
    let value: unknown = schema ? validValue(schema) : {};
    if (spoil.part === "body") value = spoil.field === null ? spoil.value : { ...(value as object), [spoil.field]: spoil.value };
    headers.set("content-type", "application/json");
    body = jsonText(value);
  } else if (route.form) {
    const fields = formFieldsFor(fuzz);
    if (spoil.part === "form" && spoil.multipart) {
      const form = new FormData();
      for (const [k, v] of fields) form.append(k, v);
      if (spoil.withFile) form.append("files", new File([Uint8Array.of(0, 0xff, 0xd8, 0x00, 0x7f)], "binary.bin", { type: "application/octet-stream" }));
      body = form;
    } else {
      headers.set("content-type", "application/x-www-form-urlencoded");
      body = new URLSearchParams(fields).toString();
    }
  }
  return new Request(url, { method: route.method, headers, body });
}

// ── what the request means ────────────────────────────────────────────────────────────────────

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const unsafe = (text: string) => text.includes("\u0000") || LONE_SURROGATE.test(text);

/** Whether any string (or object key) in a value holds NUL or a lone surrogate. Iterative. */
export function holdsUnsafeText(value: unknown): boolean {
  const stack = [value];
  while (stack.length > 0) {
    const current = stack.pop();
    if (typeof current === "string") {
      if (unsafe(current)) return true;
    } else if (Array.isArray(current)) stack.push(...current);
    else if (current && typeof current === "object") {
      for (const [key, child] of Object.entries(current)) {
        if (unsafe(key)) return true;
        stack.push(child);
      }
    }
  }
  return false;
}

/** The nesting depth of JSON text (string contents skipped). */
export function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "[" || c === "{") max = Math.max(max, ++depth);
    else if (c === "]" || c === "}") depth--;
  }
  return max;
}

async function accepts(schema: AnyRoute["query"], value: unknown): Promise<boolean> {
  if (!schema) return true;
  return (await schema.safeParseAsync(value)).success;
}

/** The query as the dispatcher groups it, computed here on its own so the oracle does not share its bugs. */
function queryObject(url: URL): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const key of new Set(url.searchParams.keys())) {
    const values = url.searchParams.getAll(key);
    out[key] = values.length === 1 ? values[0] : values;
  }
  return out;
}

/**
 * Why the request is bad input, or null when its schemas and the edge rules accept it (such a
 * case is not sent: it would be a valid request). "route" means it no longer reaches this route
 * (URL normalisation moved it), which is not sent either.
 */
export async function badInputReason(fuzz: FuzzCase, ctx: FuzzContext): Promise<string | null | "route"> {
  const request = requestFor(fuzz, ctx);
  const route = routeOf(fuzz);
  if (templateForPath(new URL(request.url).pathname) !== route.path) return "route";
  const isPublic = "public" in route.access;
  if (!isPublic && (fuzz.principal === "anonymous" || fuzz.principal === "forged" || fuzz.spoil.part === "credentials")) return "credentials";
  if (fuzz.spoil.part === "path") return "path id that matches no row";
  if (fuzz.spoil.part === "raw-body") return (await inputProblem(request, route, ctx)) ?? "malformed body";
  return inputProblem(request, route, ctx);
}

/**
 * What the route's own schemas and the edge rules (no NUL or lone surrogate, bounded nesting and
 * size) refuse in a request, or null when they accept all of it; "route" when the URL no longer
 * reaches `route`. Computed on its own, so the oracle does not share the dispatcher's bugs.
 */
export async function inputProblem(request: Request, route: AnyRoute, ctx: FuzzContext): Promise<string | null | "route"> {
  const url = new URL(request.url);
  if (templateForPath(url.pathname) !== route.path) return "route";
  const params = matchTemplate(route.path, url.pathname) ?? {};
  if (holdsUnsafeText(params) || !(await accepts(route.params, params))) return "path";
  const query = queryObject(url);
  if (holdsUnsafeText(query) || !(await accepts(route.query, query))) return "query";
  if (route.body) {
    const text = await request.clone().text();
    if (Buffer.byteLength(text) > ctx.limits.maxJsonBytes) return "body over the size limit";
    if (jsonDepth(text) > MAX_DEPTH) return "body nested too deep";
    let value: unknown;
    try {
      value = text === "" ? undefined : JSON.parse(text);
    } catch {
      return "malformed body";
    }
    const type = (request.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
    if (type && type !== "application/json" && !type.endsWith("+json")) return "malformed body";
    if (holdsUnsafeText(value) || !(await accepts(route.body, value))) return "body";
  }
  if (route.form) {
    const bytes = new Uint8Array(await request.clone().arrayBuffer());
    if (bytes.byteLength > ctx.limits.maxUploadBytes) return "form over the upload limit";
    let form: FormData;
    try {
      form = await request.clone().formData();
    } catch {
      return "malformed body";
    }
    const grouped = new Map<string, string[]>();
    for (const [name, value] of form.entries()) {
      if (typeof value !== "string") continue;
      if (Buffer.byteLength(value) > ctx.limits.maxFormFieldBytes) return "form field over the size limit";
      if (unsafe(value)) return "form field text";
      if (JSON_FORM_FIELDS.has(name)) {
        if (jsonDepth(value) > MAX_DEPTH) return "form JSON field nested too deep";
        try {
          if (holdsUnsafeText(JSON.parse(value))) return "form JSON field text";
        } catch {
          // Not JSON: the field's own rule decides.
        }
      }
      grouped.set(name, [...(grouped.get(name) ?? []), value]);
    }
    const fields = Object.fromEntries([...grouped].map(([k, v]) => [k, v.length === 1 ? v[0] : v]));
    if (!(await accepts(route.form, fields))) return "form";
  }
  return null;
}

export function describeCase(fuzz: FuzzCase, ctx: FuzzContext): string {
  const request = requestFor(fuzz, ctx);
  const spoil = JSON.stringify(fuzz.spoil, (_k, v: unknown) =>
    typeof v === "string" && v.length > 200 ? `${v.slice(0, 60)}…(${v.length} chars)` : v instanceof RawJson ? `RawJson(${v.text.slice(0, 40)}…${v.text.length})` : v,
  );
  return `${routeOf(fuzz).method} ${request.url.slice(0, 300)} as ${fuzz.principal}${fuzz.existingIds ? " (existing ids)" : ""}; spoiled ${spoil}`;
}
