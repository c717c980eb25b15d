import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startModelServer, type ModelServer } from "@/e2e/fixtures/model-server.ts";
import { defineKnowledge, type AgentDefinition } from "@/lib/config/define.ts";
import { withScopes } from "../support/api.ts";
import { DIALECTS } from "../support/databases.ts";
import { mintPrincipals } from "../support/principals.ts";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { until } from "../support/until.ts";
import { flushTracing } from "@/lib/tracing/setup.ts";

type Json = Record<string, unknown>;
const SCOPES = ["knowledge:read", "knowledge:write", "agents:read", "agents:run"];

describe.each(DIALECTS)("agents with knowledge on $name", (dialect) => {
  let server: ModelServer;
  let app: TestApp;
  const who = mintPrincipals();
  const a = withScopes(who.a, SCOPES);
  const b = withScopes(who.b, SCOPES);

  beforeAll(async () => {
    if (dialect.skipReason) return;
    server = await startModelServer({ respond: () => ({ text: "done" }) });
    const handbook = defineKnowledge({ id: "handbook", name: "Handbook" });
    const model = { provider: "openai-compatible" as const, id: "scripted", baseUrl: server.url, apiKey: "t" };
    const agents: AgentDefinition[] = [
      { id: "librarian", name: "Librarian", model, knowledge: handbook },
      { id: "primed", name: "Primed", model, knowledge: handbook, searchKnowledge: false, addKnowledgeToContext: true },
    ];
    app = await startTestApp({ dialect, agents, env: { OPENAI_COMPATIBLE_EMBEDDING_MODEL: "scripted", OPENAI_COMPATIBLE_BASE_URL: server.url, AGENTRY_EMBEDDING_DIMENSIONS: "384" } });
    const content = (await (await app.call("POST", "/knowledge/content", { form: { text_content: "A's notes: the alpaca shed code is 4471.", name: "alpaca-notes" }, principal: a })).json()) as Json;
    await until("A's notes processed", async () => ((await (await app.call("GET", `/knowledge/content/${content.id}/status`, { principal: a })).json()) as Json).status === "completed");
  });
  afterAll(async () => {
    await app?.close();
    await server?.close();
  });

  const runAs = async (agentId: string, principal: typeof a, message: string) =>
    (await (await app.call("POST", `/agents/${agentId}/runs`, { form: { message, stream: "false" }, principal })).json()) as Json;

  it.skipIf(dialect.skipReason)("search_knowledge_base finds the run's user's chunks and stores them as the run's references; another user's run finds none of them", async () => {
    server.enqueue({ toolCalls: [{ name: "search_knowledge_base", arguments: { query: "alpaca shed code" } }] }, { text: "The code is 4471." });
    const run = await runAs("librarian", a, "What is the alpaca shed code?");
    expect(run.status).toBe("COMPLETED");
    const references = run.references as { query: string; references: { name: string; content: string }[] }[];
    expect(references).toHaveLength(1);
    expect(references[0]).toMatchObject({ query: "alpaca shed code", references: [{ name: "alpaca-notes", content: expect.stringContaining("4471") }] });
    // The tool's answer reached the model.
    const toolMessage = server.requests.at(-1)!.body.messages.find((m) => m.role === "tool");
    expect(JSON.stringify(toolMessage)).toContain("4471");
    // The system prompt told the model about the tool.
    expect(JSON.stringify(server.requests.at(-2)!.body.messages[0])).toContain("search_knowledge_base");
    // The search is a RETRIEVER span under the tool's span in the run's trace, with the chunks it found.
    await flushTracing();
    const [listed] = ((await (await app.call("GET", `/traces?run_id=${run.run_id}`, { principal: withScopes(who.a, ["traces:read"]) })).json()) as { data: Json[] }).data;
    const trace = (await (await app.call("GET", `/traces/${listed!.trace_id}`, { principal: withScopes(who.a, ["traces:read"]) })).json()) as { tree: Json[] };
    const tool = (trace.tree[0]!.spans as Json[]).find((s) => s.name === "search_knowledge_base")!;
    expect((tool.spans as Json[])[0]).toMatchObject({ type: "RETRIEVER", name: "Handbook.search", metadata: { query: "alpaca shed code", search_type: expect.any(String) } });
    const db = await app.db();
    const [span] = await db.sql.query<{ attributes: unknown }>("SELECT attributes FROM agno_spans WHERE trace_id = ? AND name = ?", [listed!.trace_id, "Handbook.search"]);
    const attributes = (typeof span!.attributes === "string" ? JSON.parse(span!.attributes) : span!.attributes) as Json;
    expect(attributes["retrieval.documents.0.document.id"]).toEqual(expect.any(String));
    expect(attributes["retrieval.documents.0.document.score"]).toEqual(expect.any(Number));

    server.enqueue({ toolCalls: [{ name: "search_knowledge_base", arguments: { query: "alpaca shed code" } }] }, { text: "I do not know." });
    const other = await runAs("librarian", b, "What is the alpaca shed code?");
    expect(other.references ?? null).toBeNull();
    expect(JSON.stringify(server.requests.at(-1)!.body.messages)).not.toContain("4471");
    expect(JSON.stringify(server.requests.at(-1)!.body.messages)).toContain("No documents found");
  });

  it.skipIf(dialect.skipReason)("addKnowledgeToContext puts the user's top chunks in the prompt before the model is called", async () => {
    const run = await runAs("primed", a, "alpaca shed code please");
    expect(run.status).toBe("COMPLETED");
    const sent = JSON.stringify(server.requests.at(-1)!.body.messages);
    expect(sent).toContain("4471");
    expect((server.requests.at(-1)!.body.tools ?? []).map((t) => t.function.name)).not.toContain("search_knowledge_base");
    expect((run.references as unknown[]).length).toBe(1);
    await runAs("primed", b, "alpaca shed code please");
    expect(JSON.stringify(server.requests.at(-1)!.body.messages)).not.toContain("4471");
  });

  it.skipIf(dialect.skipReason)("the run's references read back through the runs API", async () => {
    server.enqueue({ toolCalls: [{ name: "search_knowledge_base", arguments: { query: "shed" } }] }, { text: "ok" });
    const run = await runAs("librarian", a, "shed?");
    const stored = (await (await app.call("GET", `/agents/librarian/runs/${run.run_id}?session_id=${run.session_id}`, { principal: a })).json()) as Json;
    expect(stored.references).toEqual(run.references);
  });
});
