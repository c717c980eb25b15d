import { MEMBER_SCOPES } from "@/lib/auth/dashboard/member-scopes.ts";
import type { Server } from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { archiveComponent, createComponent, createConfig, restoreComponent, setCurrentConfig, storeCaller, updateConfig } from "@/lib/components/store.ts";
import type { Settings } from "@/lib/config/settings.ts";
import { serveApi } from "@/lib/http/node-server.ts";
import { handleMcpRequest } from "@/lib/mcp-server/handler.ts";
import { closeMcpSessions } from "@/lib/mcp-server/sessions.ts";
import { messageText, startModelServer, type ChatCompletionRequest, type ModelServer } from "../../e2e/fixtures/model-server.ts";
import { DIALECTS } from "../support/databases.ts";
import { mintPrincipals } from "../support/principals.ts";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { until } from "../support/until.ts";

/**
 * Stored (Studio) components over MCP: get_agentos_config lists them after the code-defined ones,
 * a published stored agent is the tool `agent_<id>` for every caller who may run it (a draft for
 * nobody), run_agent and the agent tool run its current version as the caller, and every open
 * session hears notifications/tools/list_changed when a component is published, rolled back,
 * archived or restored — on this replica at once, and when another replica wrote the table.
 */

// biome-ignore lint/suspicious/noExplicitAny: bodies are checked field by field
type Json = any;
type ToolResult = { content: { type: string; text?: string }[]; structuredContent?: Json; isError?: boolean };

const SECRET = "mcp-stored-components-test-secret-of-length";
/** A dashboard member's scopes, as a JWT carries them. */
const SCOPES = [...MEMBER_SCOPES];

function token(sub: string, scopes = SCOPES): Promise<string> {
  return new SignJWT({ scopes }).setProtectedHeader({ alg: "HS256" }).setSubject(sub).setExpirationTime("10m").sign(new TextEncoder().encode(SECRET));
}

/** The scripted model answers after the instruction marker in its system prompt: "SAY-<word>" → "said <word>". */
function answer(body: ChatCompletionRequest) {
  const system = body.messages
    .filter((m) => m.role === "system")
    .map((m) => messageText(m as Parameters<typeof messageText>[0]))
    .join("\n");
  const marker = /SAY-([A-Za-z0-9]+)/.exec(system);
  return { text: marker ? `said ${marker[1]}` : "said nothing" };
}

const agentConfig = (word: string, description?: string) => ({
  model: { provider: "openai-compatible", id: "scripted" },
  instructions: [`Always SAY-${word}.`],
  ...(description ? { description } : {}),
});

/** An MCP client counting the tools/list_changed notifications it receives. */
interface Session {
  client: Client;
  changes: number;
  tools(): Promise<string[]>;
  call(name: string, args?: Record<string, unknown>): Promise<ToolResult>;
}

const text = (result: ToolResult) => result.content.map((c) => c.text ?? "").join("");

for (const dialect of DIALECTS) {
  describe.skipIf(dialect.skipReason !== null)(`stored components over MCP (${dialect.name})`, () => {
    let model: ModelServer;
    let app: TestApp;
    let http: { server: Server; origin: string };
    const who = mintPrincipals();
    const { userA, userB } = who;
    const sessions: Session[] = [];

    const open = async (sub: string, scopes = SCOPES): Promise<Session> => {
      const transport = new StreamableHTTPClientTransport(new URL(`${http.origin}/mcp`), { requestInit: { headers: { authorization: `Bearer ${await token(sub, scopes)}` } } });
      const client = new Client({ name: "agentry-mcp-stored-test", version: "1.0.0" });
      const session: Session = {
        client,
        changes: 0,
        tools: async () => (await client.listTools()).tools.map((t) => t.name),
        call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as ToolResult,
      };
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        session.changes++;
      });
      await client.connect(transport);
      // Notifications outside a request travel on the session's GET stream, which the client opens after the handshake.
      await new Promise((resolve) => setTimeout(resolve, 250));
      sessions.push(session);
      return session;
    };

    /**
     * Studio's writes as user A, through the store (lib/components/store.ts) the routes and the
     * dashboard's actions call: it announces publishes, rollbacks, archives and restores.
     */
    const studio = async () => {
      const db = await app.db();
      const caller = storeCaller(who.a, app.settings);
      return {
        create: async (body: { name: string; component_type: "agent" | "team" | "workflow"; config: Record<string, unknown>; description?: string; stage?: string }) =>
          (await createComponent(db, app.settings, caller, body)).component_id,
        draft: async (id: string, config: Record<string, unknown>) => (await createConfig(db, app.settings, caller, id, { config })).version,
        publish: (id: string, version: number) => updateConfig(db, app.settings, caller, id, version, { stage: "published" }),
        setCurrent: (id: string, version: number) => setCurrentConfig(db, app.settings, caller, id, version),
        archive: (id: string) => archiveComponent(db, app.settings, caller, id),
        restore: (id: string) => restoreComponent(db, app.settings, caller, id),
      };
    };

    /** A REST call over the real server with a user's token. */
    const rest = async (sub: string, method: string, path: string) => {
      const response = await fetch(`${http.origin}${path}`, { method, headers: { authorization: `Bearer ${await token(sub)}` } });
      return { status: response.status, body: (await response.json().catch(() => null)) as Json };
    };

    /** Waits for each session's count of list_changed notifications to pass what it was. */
    const changed = async (who: Session[], before: number[], what: string) => {
      await until(what, () => who.every((s, i) => s.changes > before[i]), 10_000);
    };

    beforeAll(async () => {
      model = await startModelServer({ respond: answer });
      app = await startTestApp({
        dialect,
        agents: [{ id: "coded", name: "Coded", model: { provider: "openai-compatible", id: "scripted", baseUrl: model.url, apiKey: "t" }, instructions: "Always SAY-code." }],
        env: {
          JWT_VERIFICATION_KEY: SECRET,
          AGENTRY_MCP: "true",
          OPENAI_COMPATIBLE_BASE_URL: model.url,
          OPENAI_COMPATIBLE_MODEL: "scripted",
          OPENAI_COMPATIBLE_API_KEY: "t",
        },
      });
      const settings: Settings = app.settings;
      http = await serveApi({ settings, mounts: { "/mcp": (request) => handleMcpRequest(request, settings) } });
    }, 60_000);
    afterAll(async () => {
      for (const s of sessions) await s.client.close().catch(() => undefined);
      await closeMcpSessions(app?.settings);
      if (http) {
        http.server.closeAllConnections();
        await new Promise((resolve) => http.server.close(resolve));
      }
      await app?.close();
      await model?.close();
    });

    it("a published stored agent is listed and served as agent_<id> to every member, a draft to none; run_agent and the tool run it as the caller", async () => {
      const a = await open(userA);
      const b = await open(userB);
      const store = await studio();
      const draftId = await store.create({ name: "Drafty", component_type: "agent", config: agentConfig("draft") });
      const id = await store.create({ name: "Helper", description: "Helps out.", component_type: "agent", config: agentConfig("one", "Helps out."), stage: "published" });

      for (const s of [a, b]) {
        await until("the published agent becomes a tool", async () => (await s.tools()).includes(`agent_${id}`), 10_000);
        const tools = await s.tools();
        expect(tools).toContain("agent_coded");
        expect(tools).not.toContain(`agent_${draftId}`);
        const config = await s.call("get_agentos_config");
        expect(config.isError, text(config)).toBeFalsy();
        const agents = config.structuredContent.agents as Json[];
        expect(agents.map((x) => x.id)).toEqual(["coded", id]);
        expect(agents[1]).toMatchObject({ id, name: "Helper", description: "Helps out.", db_id: app.settings.database.id, model: { id: "scripted", provider: "openai-compatible" } });
      }
      const described = (await b.client.listTools()).tools.find((t) => t.name === `agent_${id}`);
      expect(described?.description).toContain("Helps out.");
      expect(described?.title).toBe("Helper");

      // A session opened now has the tool from the start.
      const later = await open(userB);
      expect(await later.tools()).toContain(`agent_${id}`);

      // Runs are the caller's (B's), on the current published version.
      const ran = await b.call("run_agent", { agent_id: id, message: "hello" });
      expect(ran.isError, text(ran)).toBeFalsy();
      expect(ran.structuredContent).toMatchObject({ status: "COMPLETED", agent_id: id, content: "said one" });
      const stored = await rest(userB, "GET", `/agents/${id}/runs/${ran.structuredContent.run_id}?session_id=${ran.structuredContent.session_id}`);
      expect(stored.body).toMatchObject({ user_id: userB, agent_id: id });
      const viaTool = await b.call(`agent_${id}`, { message: "hello again" });
      expect(viaTool.structuredContent).toMatchObject({ status: "COMPLETED", agent_id: id, content: "said one" });
      // A draft-only agent runs for nobody without a version, and B cannot name it.
      expect(text(await b.call("run_agent", { agent_id: draftId, message: "hi" }))).toBe(`Agent ${draftId} not found`);
    });

    it("stored teams and workflows are listed by get_agentos_config after the code-defined ones", async () => {
      const store = await studio();
      const teamId = await store.create({
        name: "Crew",
        component_type: "team",
        config: { model: { provider: "openai-compatible", id: "scripted" }, mode: "coordinate", members: [{ type: "agent", agent_id: "coded" }] },
        stage: "published",
      });
      const flowId = await store.create({ name: "Flow", component_type: "workflow", config: { steps: [{ type: "Step", name: "first", agent_id: "coded" }] }, stage: "published" });
      const b = await open(userB);
      const config = await b.call("get_agentos_config");
      expect(config.isError, text(config)).toBeFalsy();
      expect(config.structuredContent.teams).toContainEqual(expect.objectContaining({ id: teamId, name: "Crew", mode: "coordinate" }));
      expect(config.structuredContent.workflows).toContainEqual(expect.objectContaining({ id: flowId, name: "Flow", is_component: true, current_version: 1, stage: "published" }));
      // A token that may not list agents sees none of the stored ones (and the run tools refuse it).
      const narrow = await open(userB, ["config:read"]);
      const narrowConfig = await narrow.call("get_agentos_config");
      expect(narrowConfig.isError, text(narrowConfig)).toBeFalsy();
      expect(narrowConfig.structuredContent).toMatchObject({ agents: [], teams: [], workflows: [] });
      expect((await narrow.tools()).filter((t) => t.startsWith("agent_") && t !== "agent_coded")).toEqual([]);
    });

    it("every open session hears tools/list_changed on a publish, a rollback, an archive and a restore, and its tools follow", async () => {
      const a = await open(userA);
      const b = await open(userB);
      const store = await studio();
      const id = await store.create({ name: "Changing", component_type: "agent", config: agentConfig("v1") });
      const counts = () => [a.changes, b.changes];

      let before = counts();
      await store.publish(id, 1);
      await changed([a, b], before, "list_changed after the publish");
      expect(await b.tools()).toContain(`agent_${id}`);
      expect((await b.call(`agent_${id}`, { message: "hi" })).structuredContent.content).toBe("said v1");

      expect(await store.draft(id, agentConfig("v2"))).toBe(2);
      before = counts();
      await store.publish(id, 2);
      await changed([a, b], before, "list_changed after publishing v2");
      expect((await b.call(`agent_${id}`, { message: "hi" })).structuredContent.content).toBe("said v2");

      before = counts();
      await store.setCurrent(id, 1);
      await changed([a, b], before, "list_changed after the rollback");
      expect((await b.call("run_agent", { agent_id: id, message: "hi" })).structuredContent.content).toBe("said v1");

      before = counts();
      await store.archive(id);
      await changed([a, b], before, "list_changed after the archive");
      expect(await b.tools()).not.toContain(`agent_${id}`);
      expect(await a.tools()).not.toContain(`agent_${id}`);
      expect(text(await b.call("run_agent", { agent_id: id, message: "hi" }))).toBe(`Agent ${id} not found`);
      const config = await b.call("get_agentos_config");
      expect((config.structuredContent.agents as Json[]).map((x) => x.id)).not.toContain(id);

      before = counts();
      await store.restore(id);
      await changed([a, b], before, "list_changed after the restore");
      expect(await b.tools()).toContain(`agent_${id}`);
    });

    it("a change another replica wrote (no Redis) reaches open sessions through the periodic check of the components table", async () => {
      const b = await open(userB);
      const id = await (await studio()).create({ name: "Elsewhere", component_type: "agent", config: agentConfig("far"), stage: "published" });
      await until("the agent is a tool", async () => (await b.tools()).includes(`agent_${id}`), 10_000);
      // Another replica archives it: the row changes in the table, and nothing is announced here.
      const db = await app.db();
      const before = b.changes;
      await db.sql.exec("UPDATE agno_components SET deleted_at = ?, updated_at = ? WHERE component_id = ?", [Math.floor(Date.now() / 1000), Math.floor(Date.now() / 1000), id]);
      await until("list_changed after the other replica's archive", () => b.changes > before, 15_000);
      expect(await b.tools()).not.toContain(`agent_${id}`);
    }, 30_000);
  });
}
