import { SignJWT } from "jose";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi, type MockInstance } from "vitest";
import type { AgentDefinition } from "@/lib/config/define.ts";
import { principalForUser } from "@/lib/auth/dashboard/user-principal.ts";
import { createMemoryAction } from "@/lib/http/dashboard/memory-actions.ts";
import { dispatch } from "@/lib/http/dispatch.ts";
import { ROUTES } from "@/lib/http/route-table.ts";
import { MAX_JSON_DEPTH, jsonNestsDeeperThan, unsafeCharacterIn, unsafeTextIn } from "@/lib/http/input-text.ts";
import { outputSchemaProblem } from "@/lib/http/schemas/output-schema.ts";
import { truncateName } from "@/lib/http/views/session-views.ts";
import { startModelServer, type ModelServer } from "../../e2e/fixtures/model-server.ts";
import { createUser } from "../auth/dashboard-support.ts";
import { ACTION_ORIGIN, formOf } from "../support/dashboard-actions.ts";
import { DIALECTS, sqliteDialect, type TestDialect } from "../support/databases.ts";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { templateFor } from "../support/api.ts";

type Json = Record<string, unknown>;
type Item = { type: string; loc: (string | number)[]; msg: string };

const NUL = "\u0000";
const LONE = "\ud800";
const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;
const nestedObject = (depth: number) => `${'{"a":'.repeat(depth - 1)}{}${"}".repeat(depth - 1)}`;

function agents(server: ModelServer): AgentDefinition[] {
  return [{ id: "helper", name: "Helper", model: { provider: "openai-compatible", id: "scripted", baseUrl: server.url, apiKey: "test" } }];
}

/**
 * The response is the 4xx expected, JSON with a `detail`, and names no internal class, carries
 * no error id (it is not an unexpected failure).
 */
async function refused(response: Response, status: number): Promise<Json> {
  expect(response.status).toBe(status);
  expect(response.headers.get("content-type")).toContain("application/json");
  const body = (await response.json()) as Json;
  expect(body.detail).toBeDefined();
  expect(JSON.stringify(body)).not.toMatch(/RangeError|TypeError|SyntaxError|URIError|HttpError|ZodError|Prisma|DatabaseError|error_id|Internal server error/);
  return body;
}

const locs = (body: Json) => (body.detail as Item[]).map((item) => item.loc);

/** Posts JSON text as it is (the test app's `json` would re-encode it). */
function postJsonText(app: TestApp, path: string, text: string): Promise<Response> {
  const url = new URL(path, "http://127.0.0.1:7777");
  const template = templateFor(url.pathname);
  const request = new Request(url, { method: "POST", headers: { "content-type": "application/json" }, body: text });
  return dispatch(request, template, { settings: app.settings, routes: ROUTES.filter((r) => r.path === template) });
}

describe("the input text rules", () => {
  it("names NUL and lone surrogates and passes paired surrogates", () => {
    expect(unsafeCharacterIn(`a${NUL}b`)).toMatch(/NUL/);
    expect(unsafeCharacterIn(`a${LONE}`)).toMatch(/lone/);
    expect(unsafeCharacterIn("\udc00a")).toMatch(/lone/);
    expect(unsafeCharacterIn("emoji 😀 ok, é, 中文")).toBeNull();
    expect(unsafeTextIn({ ok: ["fine", { [`k${NUL}`]: 1, deep: [`x${LONE}`] }] }).map((p) => p.path)).toEqual([
      ["ok", 1],
      ["ok", 1, "deep", 0],
    ]);
  });

  it("measures JSON nesting without counting brackets inside strings", () => {
    expect(jsonNestsDeeperThan(nested(MAX_JSON_DEPTH), MAX_JSON_DEPTH)).toBe(false);
    expect(jsonNestsDeeperThan(nested(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH)).toBe(true);
    expect(jsonNestsDeeperThan(JSON.stringify({ text: "[".repeat(10_000), quoted: '\\"[[[[' }), MAX_JSON_DEPTH)).toBe(false);
    expect(jsonNestsDeeperThan(nested(10_000), MAX_JSON_DEPTH)).toBe(true);
  });

  it("cuts a derived session name to 120 code points, never inside a surrogate pair", () => {
    expect(truncateName("short")).toBe("short");
    const ascii = truncateName("x".repeat(5_000_000));
    expect(ascii).toBe(`${"x".repeat(119)}…`);
    const emoji = truncateName(`a${"😀".repeat(300)}`);
    expect([...emoji]).toHaveLength(120);
    expect(emoji.endsWith("😀…")).toBe(true);
    expect(unsafeCharacterIn(emoji)).toBeNull();
    // 120 emoji are 240 code units but 120 characters: nothing to cut.
    expect(truncateName("😀".repeat(120))).toBe("😀".repeat(120));
  });

  it("accepts an object JSON Schema and names what is wrong with others", () => {
    expect(outputSchemaProblem({ type: "object", properties: { a: { type: "string" } }, required: ["a"] })).toBeNull();
    expect(outputSchemaProblem({ type: "nope" })).toMatch(/not a valid JSON Schema \(2020-12\): \/type must be equal to one of the allowed values/);
    // Each draft is checked against its own meta-schema; one ajv does not hold is named, never thrown.
    expect(outputSchemaProblem({ $schema: "http://json-schema.org/draft-07/schema#", type: "object", definitions: { a: { type: "string" } } })).toBeNull();
    expect(outputSchemaProblem({ $schema: "http://json-schema.org/draft-06/schema#", type: "object" })).toMatch(/not a supported draft/);
    expect(outputSchemaProblem({ $schema: { id: 1 }, type: "object" })).toMatch(/\$schema must be a string/);
    expect(outputSchemaProblem({ type: "object", properties: { a: { $ref: "#/$defs/missing" } } })).toMatch(/can't resolve reference/);
    expect(outputSchemaProblem({ type: "string" })).toMatch(/must describe a JSON object/);
    // A caller's $id reaches no shared state: the same one twice is fine.
    const withId = { $id: "https://example.test/weather", type: "object" };
    expect(outputSchemaProblem(withId)).toBeNull();
    expect(outputSchemaProblem(withId)).toBeNull();
  });
});

describe.each(DIALECTS)("bad input never gets a 5xx on $name", (dialect: TestDialect) => {
  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    let server: ModelServer;
    let app: TestApp;
    let warn: MockInstance<typeof console.warn>;

    beforeAll(async () => {
      warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
      server = await startModelServer();
      app = await startTestApp({ dialect, agents: agents(server) });
    });
    afterAll(async () => {
      await app?.close();
      await server?.close();
      warn.mockRestore();
    });
    afterEach(() => warn?.mockClear());

    /** Rows in the tables a refused request could have written. */
    async function counts() {
      const db = await app.db();
      const count = async (table: string) => Number((await db.sql.query<{ n: unknown }>(`SELECT COUNT(*) AS n FROM ${table}`))[0].n);
      return { sessions: await count("agno_sessions"), runs: await count("agno_runs"), memories: await count("agno_memories") };
    }
    /** Runs `request`, expecting it refused with nothing written and no model call. */
    async function refusedUnchanged(request: () => Promise<Response>, status: number): Promise<Json> {
      const before = await counts();
      const modelCalls = server.requests.length;
      const body = await refused(await request(), status);
      expect(await counts()).toEqual(before);
      expect(server.requests.length).toBe(modelCalls);
      return body;
    }
    const run = (form: Record<string, string> | FormData) => app.call("POST", "/agents/helper/runs", { form });

    it("refuses a NUL in a path id with a 422 naming the parameter", async () => {
      for (const [method, path, json] of [
        ["GET", "/sessions/a%00b", undefined],
        ["DELETE", "/sessions/a%00b", undefined],
        ["POST", "/sessions/a%00b/rename", { session_name: "renamed" }],
        ["PATCH", "/memories/m%00", { memory: "x" }],
        ["GET", "/agents/helper/runs/r%00?session_id=s", undefined],
      ] as const) {
        const body = await refusedUnchanged(() => app.call(method, path, { json }), 422);
        expect(locs(body)[0][0], path).toBe("path");
        expect((body.detail as Item[])[0].msg).toMatch(/NUL/);
      }
    });

    it("refuses a NUL in a query filter, value or key, with a 422 naming it", async () => {
      const name = await refusedUnchanged(() => app.call("GET", "/sessions?session_name=a%00b"), 422);
      expect(locs(name)).toEqual([["query", "session_name"]]);
      const user = await refusedUnchanged(() => app.call("GET", "/memories?user_id=%00"), 422);
      expect(locs(user)).toEqual([["query", "user_id"]]);
      const key = await refusedUnchanged(() => app.call("GET", "/sessions?x%00=1"), 422);
      expect((key.detail as Item[])[0].msg).toMatch(/a key must not contain a NUL/);
      const repeated = await refusedUnchanged(() => app.call("GET", "/sessions?session_name=a&session_name=%00"), 422);
      expect(locs(repeated)).toEqual([["query", "session_name", 1]]);
    });

    it("refuses a NUL or a lone surrogate anywhere in a JSON body with a 422 naming the path", async () => {
      const nul = await refusedUnchanged(() => app.call("POST", "/sessions", { json: { session_id: "s-nul", session_name: `a${NUL}b` } }), 422);
      expect(locs(nul)).toEqual([["body", "session_name"]]);
      const lone = await refusedUnchanged(() => postJsonText(app, "/sessions", '{"session_id":"s-lone","session_name":"\\ud800"}'), 422);
      expect(locs(lone)).toEqual([["body", "session_name"]]);
      expect((lone.detail as Item[])[0].msg).toMatch(/lone UTF-16 surrogate/);
      const deep = await refusedUnchanged(() => app.call("POST", "/sessions", { json: { session_id: "s-deep", session_state: { list: [{ [`k${NUL}`]: 1 }] } } }), 422);
      expect(locs(deep)).toEqual([["body", "session_state", "list", 0]]);
      const memory = await refusedUnchanged(() => app.call("POST", "/memories", { json: { memory: `likes${NUL}tea`, user_id: "u1" } }), 422);
      expect(locs(memory)).toEqual([["body", "memory"]]);
    });

    it("refuses a NUL in a text form field, urlencoded or multipart, with a 422 and stores no run", async () => {
      for (const field of ["message", "session_id", "user_id"]) {
        const body = await refusedUnchanged(() => run({ message: "hi", stream: "false", [field]: `x${NUL}y` }), 422);
        expect(locs(body)).toEqual([["body", field]]);
      }
      const multipart = new FormData();
      multipart.set("message", `hello${NUL}`);
      multipart.set("stream", "false");
      expect(locs(await refusedUnchanged(() => run(multipart), 422))).toEqual([["body", "message"]]);
      const named = new FormData();
      named.set("message", "look");
      named.append("files", new File(["text"], `notes${NUL}.txt`, { type: "text/plain" }));
      expect(locs(await refusedUnchanged(() => run(named), 422))).toEqual([["body", "files", 0, "filename"]]);
      // A file part's field name is text too.
      const field = new FormData();
      field.set("message", "look");
      field.append(`files${NUL}`, new File(["text"], "notes.txt", { type: "text/plain" }));
      expect((await refusedUnchanged(() => run(field), 422)).detail).toEqual([expect.objectContaining({ loc: ["body"], msg: expect.stringMatching(/key must not contain a NUL/) })]);
    });

    it("refuses a NUL or lone surrogate inside a JSON-string form field's decoded content (422)", async () => {
      const cases: [Record<string, string>, (string | number)[]][] = [
        [{ session_state: '{"a":"\\u0000"}' }, ["body", "session_state", "a"]],
        [{ metadata: '{"k":["ok","\\ud800"]}' }, ["body", "metadata", "k", 1]],
        [{ dependencies: '{"\\u0000":1}' }, ["body", "dependencies"]],
        [{ knowledge_filters: '[{"op":"EQ","key":"\\u0000"}]' }, ["body", "knowledge_filters", 0, "key"]],
        [{ output_schema: '{"type":"object","description":"\\u0000"}' }, ["body", "output_schema", "description"]],
      ];
      for (const [fields, loc] of cases) {
        const body = await refusedUnchanged(() => run({ message: "hi", stream: "false", ...fields }), 422);
        expect(locs(body)).toEqual([loc]);
      }
      const resolution = await refused(await app.call("POST", "/agents/helper/runs/r1/continue", { form: { session_id: "s1", tools: '[{"tool_call_id":"\\u0000"}]' } }), 422);
      expect(locs(resolution)).toEqual([["body", "tools", 0, "tool_call_id"]]);
    });

    it("leaves binary file parts alone: a NUL-filled image larger than the text-field cap runs", async () => {
      server.script([{ text: "A picture." }]);
      const bytes = new Uint8Array(1536 * 1024);
      bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
      const upload = new FormData();
      upload.set("message", "what is this?");
      upload.set("stream", "false");
      upload.append("files", new File([bytes], "dark.png", { type: "image/png" }));
      const response = await run(upload);
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ status: "COMPLETED", content: "A picture." });
    });

    it("refuses JSON nested 10,000 levels deep (20 KB) with a 422 naming the limit, body and form fields alike", async () => {
      const limit = new RegExp(`nested deeper than the limit of ${MAX_JSON_DEPTH} levels`);
      const body = await refusedUnchanged(() => postJsonText(app, "/sessions", nested(10_000)), 422);
      expect(body.detail).toEqual([expect.objectContaining({ type: "json_too_deep", loc: ["body"], msg: expect.stringMatching(limit) })]);
      for (const field of ["session_state", "dependencies", "metadata", "knowledge_filters", "output_schema"]) {
        const form = await refusedUnchanged(() => run({ message: "hi", stream: "false", [field]: nested(10_000) }), 422);
        expect(locs(form), field).toEqual([["body", field]]);
        expect((form.detail as Item[])[0].msg).toMatch(limit);
      }
      const tools = await refused(await app.call("POST", "/agents/helper/runs/r1/continue", { form: { session_id: "s1", tools: nested(10_000) } }), 422);
      expect(locs(tools)).toEqual([["body", "tools"]]);
      // At the limit the state is accepted and kept.
      server.script([{ text: "ok" }]);
      const atLimit = await run({ message: "hi", stream: "false", session_state: nestedObject(MAX_JSON_DEPTH) });
      expect(atLimit.status).toBe(200);
      expect(JSON.stringify(((await atLimit.json()) as Json).session_state)).toBe(nestedObject(MAX_JSON_DEPTH));
    });

    it("refuses a 5 MiB form message with a 413 naming the field, and stores nothing", async () => {
      const body = await refusedUnchanged(() => run({ message: "x".repeat(5 * 1024 * 1024), stream: "false" }), 413);
      expect(body.detail).toBe(`Form field 'message' is larger than the limit of ${1024 * 1024} bytes`);
      const multipart = new FormData();
      multipart.set("message", "hi");
      multipart.set("session_state", JSON.stringify({ blob: "é".repeat(600 * 1024) }));
      expect((await refusedUnchanged(() => run(multipart), 413)).detail).toMatch(/'session_state' is larger than the limit/);
    });

    it("names a session after its first message cut to 120 characters", async () => {
      server.script([{ text: "noted" }]);
      const message = `${"😀".repeat(100)}${"y".repeat(5000)}`;
      const output = (await (await run({ message, stream: "false" })).json()) as Json;
      const expected = `${"😀".repeat(100)}${"y".repeat(19)}…`;
      const listed = (await (await app.call("GET", "/sessions?type=agent")).json()) as { data: Json[] };
      const mine = listed.data.find((s) => s.session_id === output.session_id);
      expect(mine?.session_name).toBe(expected);
      const detail = (await (await app.call("GET", `/sessions/${output.session_id}`)).json()) as Json;
      expect(detail.session_name).toBe(expected);
      // The message itself is kept whole.
      expect((output.input as Json).input_content).toBe(message);
    });

    it("refuses an output_schema that is not a usable JSON Schema with a 422 before any model call", async () => {
      for (const [schema, problem] of [
        ['{"type":"nope"}', /not a valid JSON Schema \(2020-12\): \/type must be equal to one of the allowed values/],
        // A `$schema` ajv does not hold made it throw: a 500, not an answer.
        ['{"$schema":"http://json-schema.org/draft-04/schema#","type":"object"}', /\$schema 'http:\/\/json-schema.org\/draft-04\/schema#' is not a supported draft/],
        ['{"$schema":5,"type":"object"}', /\$schema must be a string/],
        ['{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"type":"nope"}}}', /not a valid JSON Schema \(draft-07\)/],
        ['{"type":"object","properties":{"a":{"$ref":"#/$defs/none"}}}', /can't resolve reference/],
        ['{"type":"string"}', /must describe a JSON object/],
        ["[1]", /must be a JSON object/],
        ["{oops", /invalid JSON/],
      ] as const) {
        const body = await refusedUnchanged(() => run({ message: "hi", stream: "false", output_schema: schema }), 422);
        expect(locs(body), schema).toEqual([["body", "output_schema"]]);
        expect((body.detail as Item[])[0].msg, schema).toMatch(problem);
      }
    });

    it("accepts an output_schema that names draft-07, 2019-09 or 2020-12 in $schema", async () => {
      for (const draft of ["http://json-schema.org/draft-07/schema#", "https://json-schema.org/draft/2019-09/schema", "https://json-schema.org/draft/2020-12/schema"]) {
        server.script([{ text: '{"answer":"yes"}' }]);
        const schema = { $schema: draft, type: "object", properties: { answer: { type: "string" } }, required: ["answer"] };
        const response = await run({ message: "hi", stream: "false", output_schema: JSON.stringify(schema) });
        expect(response.status, `${draft}: ${await response.clone().text()}`).toBe(200);
      }
    });

    it("drops session_state, dependencies, metadata and knowledge_filters that do not decode, with a logged warning", async () => {
      for (const field of ["session_state", "dependencies", "metadata", "knowledge_filters"]) {
        server.script([{ text: "fine" }]);
        const response = await run({ message: "hi", stream: "false", [field]: "{not json" });
        expect(response.status, field).toBe(200);
        const output = (await response.json()) as Json;
        expect(output.status).toBe("COMPLETED");
        if (field === "session_state" || field === "metadata") expect(output[field]).toBeNull();
        expect(warn.mock.calls.flat().join("\n")).toContain(`Invalid ${field} parameter couldn't be loaded`);
        warn.mockClear();
      }
      // session_state and dependencies that decode to a non-object cannot be used: dropped too.
      server.script([{ text: "fine" }]);
      const listState = await run({ message: "hi", stream: "false", session_state: "[1,2]" });
      expect(listState.status).toBe(200);
      expect(((await listState.json()) as Json).session_state).toBeNull();
      expect(warn.mock.calls.flat().join("\n")).toContain("Invalid session_state parameter (dropped): expected a JSON object");
    });

    it("answers metadata that decodes to a non-object with a 400 naming the field, storing nothing", async () => {
      for (const metadata of ["[1]", '"text"', "5", "true"]) {
        const body = await refusedUnchanged(() => run({ message: "hi", stream: "false", metadata }), 400);
        expect(body.detail, metadata).toBe("Invalid metadata parameter: expected a JSON object");
      }
      server.script([{ text: "fine" }]);
      const kept = await run({ message: "hi", stream: "false", metadata: '{"source":"test"}' });
      expect(((await kept.json()) as Json).metadata).toEqual({ source: "test" });
    });

    it("refuses a dashboard action's form text holding a NUL (422) and writes nothing", async () => {
      const db = await app.db();
      const member = principalForUser(await createUser(db), app.settings);
      const before = await counts();
      const result = await createMemoryAction.run({ principal: member, formData: formOf({ memory: `tea${NUL}`, topics: "drinks" }), db, settings: app.settings, origin: ACTION_ORIGIN });
      expect(result).toMatchObject({ ok: false, status: 422, error: expect.stringMatching(/^memory: must not contain a NUL character/) });
      expect(await counts()).toEqual(before);
      const large = await createMemoryAction.run({ principal: member, formData: formOf({ memory: "x".repeat(1024 * 1024 + 1) }), db, settings: app.settings, origin: ACTION_ORIGIN });
      expect(large).toMatchObject({ ok: false, status: 413 });
      expect(await counts()).toEqual(before);
    });

    it("refuses a token whose subject or session_id holds a NUL with a 401", async () => {
      const secret = "bad-input-secret-of-sufficient-length-32";
      const jwtApp = await startTestApp({ dialect, agents: agents(server), env: { JWT_VERIFICATION_KEY: secret } });
      try {
        const key = new TextEncoder().encode(secret);
        const mint = (claims: Json, sub: string) => new SignJWT(claims).setProtectedHeader({ alg: "HS256" }).setSubject(sub).setExpirationTime("10m").sign(key);
        for (const token of [await mint({ scopes: ["sessions:read"] }, `user${NUL}`), await mint({ scopes: ["sessions:read"], session_id: `s${NUL}` }, "user")]) {
          const body = await refused(await jwtApp.call("GET", "/sessions", { headers: { authorization: `Bearer ${token}` } }), 401);
          expect(body.detail).toMatch(/^Invalid token: its (user id|session_id) contains a NUL character/);
        }
        const fine = await jwtApp.call("GET", "/sessions", { headers: { authorization: `Bearer ${await mint({ scopes: ["sessions:read"] }, "user")}` } });
        expect(fine.status).toBe(200);
      } finally {
        await jwtApp.close();
      }
    });
  });
});

describe("the text form-field cap is configurable", () => {
  let server: ModelServer;
  let app: TestApp;
  beforeAll(async () => {
    server = await startModelServer();
    app = await startTestApp({ dialect: sqliteDialect, agents: agents(server), env: { AGENTRY_MAX_FORM_FIELD_BYTES: "1000" } });
  });
  afterAll(async () => {
    await app?.close();
    await server?.close();
  });

  it("answers a field one byte past AGENTRY_MAX_FORM_FIELD_BYTES with a 413 and one at it with the run", async () => {
    const over = await refused(await app.call("POST", "/agents/helper/runs", { form: { message: "x".repeat(1001), stream: "false" } }), 413);
    expect(over.detail).toBe("Form field 'message' is larger than the limit of 1000 bytes");
    // Bytes, not characters: 500 two-byte characters are 1000 bytes.
    server.script([{ text: "ok" }]);
    expect((await app.call("POST", "/agents/helper/runs", { form: { message: "é".repeat(500), stream: "false" } })).status).toBe(200);
    expect((await app.call("POST", "/agents/helper/runs", { form: { message: "é".repeat(501), stream: "false" } })).status).toBe(413);
  });
});
