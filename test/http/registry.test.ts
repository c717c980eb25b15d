import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { Principal } from "@/lib/auth/principal.ts";
import { MEMBER_SCOPES } from "@/lib/auth/dashboard/member-scopes.ts";
import { RegistryListSchema } from "@/lib/http/schemas/registry.ts";
import { calculatorToolkit } from "@/lib/runtime/tools/calculator/calculator.ts";
import { hostToolkit } from "@/lib/runtime/tools/host/host.ts";
import { defineTool, defineToolkit } from "@/lib/runtime/tools/types.ts";
import { withScopes } from "../support/api.ts";
import { DIALECTS } from "../support/databases.ts";
import { mintPrincipals } from "../support/principals.ts";
import { startTestApp, type TestApp } from "../support/test-app.ts";

/**
 * Agno's GET /registry on both dialects: its resource types, filters, paging and envelope, the
 * metadata of tools (functions with JSON schemas and confirmation flags) and models, an empty page
 * for a type Agentry has nothing for, 422s naming the bad query field, `registry:read`, and a
 * member seeing only what it may use (no admin-only toolkit or knowledge base).
 */

// biome-ignore lint/suspicious/noExplicitAny: bodies are checked field by field
type Json = any;

const guarded = defineToolkit({
  id: "vault-tools",
  name: "Vault tools",
  tools: [
    defineTool({ name: "open_vault", description: "Opens the vault", parameters: z.object({ code: z.string(), force: z.boolean().optional() }), requiresConfirmation: true, execute: () => "open" }),
    defineTool({ name: "report", description: "Reports outside", parameters: z.object({}), externalExecution: true }),
  ],
});

describe.each(DIALECTS)("GET /registry on $name", (dialect) => {
  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    let app: TestApp;
    const who = mintPrincipals();
    const member = withScopes(who.a, [...MEMBER_SCOPES]);
    const admin = who.admin;

    const get = async (path: string, principal: Principal = admin) => {
      const response = await app.call("GET", path, { principal });
      return { status: response.status, body: (await response.json()) as Json };
    };

    beforeAll(async () => {
      app = await startTestApp({
        dialect,
        env: { OPENAI_API_KEY: "sk-test" },
        agents: [{ id: "assistant", name: "Assistant", description: "Helps.", model: null }],
        teams: [{ id: "desk", name: "Desk", model: null, members: [{ id: "writer", name: "Writer", model: null }] }],
        registry: {
          models: [{ provider: "anthropic", id: "claude-sonnet-4-5" }],
          toolkits: [calculatorToolkit, hostToolkit, { toolkit: guarded, membersMayAttach: false }],
          knowledge: [
            { id: "handbook", name: "Handbook", description: "The handbook." },
            { knowledge: { id: "ledger", name: "Ledger", vectorTable: "ledger_vectors" }, membersMayAttach: false },
          ],
          schemas: [{ name: "Answer", schema: { type: "object", properties: { answer: { type: "string" } } } }],
          learning: [{ name: "Profiles", userProfile: true, entityMemory: { namespace: "user" } }],
        },
      });
    });
    afterAll(async () => app?.close());

    it("lists everything sorted by (type, name) in Agno's paginated envelope", async () => {
      const { status, body } = await get("/registry?limit=100");
      expect(status).toBe(200);
      expect(RegistryListSchema.safeParse(body).success).toBe(true);
      const keys = body.data.map((e: Json) => `${e.type}:${e.name}`);
      expect(keys).toEqual([
        "agent:Assistant",
        "agent:Writer",
        "knowledge:Handbook",
        "knowledge:Ledger",
        "learning:Profiles",
        "model:claude-sonnet-4-5",
        "model:gpt-4.1-mini",
        "schema:Answer",
        "team:Desk",
        "tool:Calculator",
        "tool:Host",
        "tool:Vault tools",
      ]);
      expect(body.meta).toMatchObject({ page: 1, limit: 100, total_pages: 1, total_count: 12 });
      expect(typeof body.meta.search_time_ms).toBe("number");
      expect(body.data[0]).toEqual({ name: "Assistant", type: "agent", id: "assistant", description: "Helps.", metadata: { id: "assistant", class_path: "agentry.Agent" } });
      // exclude_none: an entry without a description has no key for it.
      expect("description" in body.data.find((e: Json) => e.name === "Desk")).toBe(false);
    });

    it("describes toolkits' functions with JSON schemas and flags, and models with provider and id", async () => {
      const { body } = await get("/registry?resource_type=tool&name=vault");
      expect(body.data).toHaveLength(1);
      const vault = body.data[0];
      expect(vault).toMatchObject({ name: "Vault tools", type: "tool", id: "vault-tools", metadata: { class_path: "agentry.tools.Toolkit", is_toolkit: true } });
      expect(vault.metadata.functions).toEqual([
        {
          name: "open_vault",
          description: "Opens the vault",
          class_path: "agentry.tools.Function",
          has_entrypoint: true,
          parameters: { type: "object", properties: { code: { type: "string" }, force: { type: "boolean" } }, required: ["code"] },
          requires_confirmation: true,
          external_execution: false,
          signature: "(code: string, force?: boolean)",
        },
        {
          name: "report",
          description: "Reports outside",
          class_path: "agentry.tools.Function",
          has_entrypoint: false,
          parameters: { type: "object", properties: {} },
          requires_confirmation: false,
          external_execution: true,
          signature: "()",
        },
      ]);
      const models = (await get("/registry?resource_type=model")).body.data;
      expect(models).toEqual([
        { name: "claude-sonnet-4-5", type: "model", metadata: { class_path: "agentry.models.anthropic", provider: "anthropic", model_id: "claude-sonnet-4-5" } },
        { name: "gpt-4.1-mini", type: "model", metadata: { class_path: "agentry.models.openai", provider: "openai", model_id: "gpt-4.1-mini" } },
      ]);
      const learning = (await get("/registry?resource_type=learning")).body.data[0];
      expect(learning.metadata).toEqual({
        class_path: "agentry.learn.LearningMachine",
        namespace: "global",
        stores: { user_profile: { mode: "always" }, entity_memory: { mode: "agentic", namespace: "user" } },
        db: true,
        knowledge: false,
      });
      const schema = (await get("/registry?resource_type=schema")).body.data[0];
      expect(schema.metadata).toEqual({ class_path: "agentry.schemas.JsonSchema", schema: { type: "object", properties: { answer: { type: "string" } } } });
    });

    it("filters by a case-insensitive part of the name, pages, and answers an empty page for a type Agentry has nothing for", async () => {
      expect((await get("/registry?name=CALC")).body.data.map((e: Json) => e.name)).toEqual(["Calculator"]);
      const page2 = (await get("/registry?limit=5&page=2")).body;
      expect(page2.data.map((e: Json) => e.name)).toEqual(["claude-sonnet-4-5", "gpt-4.1-mini", "Answer", "Desk", "Calculator"]);
      expect(page2.meta).toMatchObject({ page: 2, limit: 5, total_pages: 3, total_count: 12 });
      expect((await get("/registry?limit=5&page=9")).body).toMatchObject({ data: [], meta: { page: 9, total_count: 12 } });
      for (const type of ["db", "vector_db", "function", "memory_manager", "session_summary_manager"]) {
        const { status, body } = await get(`/registry?resource_type=${type}`);
        expect(status).toBe(200);
        expect(body).toMatchObject({ data: [], meta: { page: 1, limit: 20, total_pages: 0, total_count: 0 } });
      }
    });

    it("answers 422 naming a bad query field", async () => {
      for (const [query, field] of [
        ["resource_type=spaceship", "resource_type"],
        ["limit=0", "limit"],
        ["limit=101", "limit"],
        ["page=0", "page"],
        ["page=x", "page"],
      ] as const) {
        const { status, body } = await get(`/registry?${query}`);
        expect(status, query).toBe(422);
        expect(body.detail.map((d: Json) => d.loc.join("."))).toContain(`query.${field}`);
      }
    });

    it("shows a member only what it may use: no admin-only toolkit or knowledge base", async () => {
      const { status, body } = await get("/registry?limit=100", member);
      expect(status).toBe(200);
      const names = body.data.map((e: Json) => `${e.type}:${e.name}`);
      expect(names).toContain("tool:Calculator");
      expect(names).not.toContain("tool:Host");
      expect(names).not.toContain("tool:Vault tools");
      expect(names).toContain("knowledge:Handbook");
      expect(names).not.toContain("knowledge:Ledger");
      expect(body.meta.total_count).toBe(9);
      expect((await get("/registry?name=vault", member)).body).toMatchObject({ data: [], meta: { total_count: 0 } });
    });

    it("needs registry:read", async () => {
      expect((await get("/registry", withScopes(who.a, ["agents:read"]))).status).toBe(403);
      expect((await get("/registry", withScopes(who.a, ["registry:read"]))).status).toBe(200);
    });
  });
});
