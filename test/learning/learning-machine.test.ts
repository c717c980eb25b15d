import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "@/lib/runtime/tools/types.ts";
import { ConfigError, defineAgent, defineTeam, type AgentDefinition } from "@/lib/config/define.ts";
import { getLearning, listLearnings, userEntityKey, listMemories } from "@/lib/db/index.ts";
import { messageText, startModelServer, type ChatCompletionRequest, type ModelServer, type ScriptStep } from "../../e2e/fixtures/model-server.ts";
import { DIALECTS } from "../support/databases.ts";
import { adminScope, userScope } from "../support/scopes.ts";
import { readSse, startTestApp, type TestApp } from "../support/test-app.ts";

type Json = Record<string, unknown>;

const handbook = { id: "learned", name: "Learned", vectorTable: "learned_vectors" };

const systemOf = (body: ChatCompletionRequest) => messageText(body.messages.find((m) => m.role === "system"));
const lastIsTool = (body: ChatCompletionRequest) => body.messages.at(-1)?.role === "tool";
const toolNames = (body: ChatCompletionRequest) => ((body as { tools?: { function: { name: string } }[] }).tools ?? []).map((t) => t.function.name).sort();

/** Which call the scripted model is answering: one of the learning extractions, or the agent itself. */
function callOf(body: ChatCompletionRequest): "profile" | "memory" | "session" | "agent" {
  const system = systemOf(body);
  if (system.startsWith("You maintain a user's profile")) return "profile";
  if (system.startsWith("You maintain long-term memories about a user: durable facts")) return "memory";
  if (system.startsWith("You keep the context of a conversation session")) return "session";
  return "agent";
}

for (const dialect of DIALECTS) {
  describe.skipIf(dialect.skipReason !== null)(`learning (${dialect.name})`, () => {
    let server: ModelServer;
    let app: TestApp;
    /** What the agent's own calls answer, by the run's input; extraction calls are answered by `extraction`. */
    let agentAnswer: (body: ChatCompletionRequest) => ScriptStep = () => ({ text: "OK." });
    let extraction: (kind: "profile" | "memory" | "session", body: ChatCompletionRequest) => ScriptStep = () => ({ text: "Nothing to change." });

    beforeAll(async () => {
      server = await startModelServer({
        respond: (body) => {
          const kind = callOf(body);
          if (kind === "agent") return agentAnswer(body);
          // An extraction's second call (after its tool results) ends it.
          return lastIsTool(body) ? { text: "Done.", usage: { prompt_tokens: 7, completion_tokens: 1 } } : extraction(kind, body);
        },
      });
      const model = { provider: "openai-compatible" as const, id: "scripted", baseUrl: server.url, apiKey: "t" };
      const agents: AgentDefinition[] = [
        defineAgent({ id: "learner", name: "Learner", model, learning: true }),
        defineAgent({ id: "bounded", name: "Bounded", model, learning: { userMemory: true, maxUpdatesPerRun: 2 } }),
        defineAgent({ id: "agentic", name: "Agentic", model, learning: { userProfile: { mode: "agentic" }, userMemory: { mode: "agentic" }, decisionLog: true } }),
        defineAgent({ id: "entities", name: "Entities", model, learning: { entityMemory: { namespace: "user" } } }),
        defineAgent({ id: "shared-entities", name: "Shared entities", model, learning: { entityMemory: true } }),
        defineAgent({ id: "contexts", name: "Contexts", model, learning: { sessionContext: { enablePlanning: true } } }),
        defineAgent({ id: "agentic-memory", name: "Agentic memory", model, enableAgenticMemory: true }),
        defineAgent({
          id: "pauser",
          name: "Pauser",
          model,
          learning: true,
          tools: [defineTool({ name: "wipe", description: "Wipes", parameters: z.object({}), requiresConfirmation: true, execute: () => "wiped" })],
        }),
        defineAgent({ id: "lk-user", name: "Learns per user", model, knowledge: handbook, learning: { learnedKnowledge: { namespace: "user" } } }),
        defineAgent({ id: "lk-propose", name: "Proposes", model, knowledge: handbook, learning: { learnedKnowledge: { mode: "propose" } } }),
      ];
      app = await startTestApp({
        dialect,
        agents,
        teams: [defineTeam({ id: "desk", name: "Desk", model, members: [agents[0]!], learning: { userProfile: true } })],
        env: { OPENAI_COMPATIBLE_EMBEDDING_MODEL: "scripted", OPENAI_COMPATIBLE_BASE_URL: server.url, AGENTRY_EMBEDDING_DIMENSIONS: "384" },
      });
    });
    afterAll(async () => {
      await app?.close();
      await server?.close();
    });

    const run = async (agent: string, message: string, user: string, extra: Json = {}) => {
      const events = await readSse(await app.call("POST", `/agents/${agent}/runs`, { form: { message, user_id: user, ...extra } }));
      return events;
    };

    it("learning: true — the profile and the memories are extracted from the input while the model answers, stored under Agno's ids and shapes, counted in the run's metrics, and in the next run's prompt", async () => {
      extraction = (kind, body) => {
        if (kind === "profile") return { toolCalls: [{ name: "update_profile", arguments: { name: "Ada Lovelace", preferred_name: "Ada" } }], usage: { prompt_tokens: 50, completion_tokens: 10 } };
        if (kind === "memory") {
          expect(toolNames(body)).toEqual(["add_memory", "delete_memory", "update_memory"]);
          return { toolCalls: [{ name: "add_memory", arguments: { memory: "Works on the Analytical Engine" } }], usage: { prompt_tokens: 40, completion_tokens: 8 } };
        }
        return { text: "-" };
      };
      agentAnswer = () => ({ text: "Hello Ada.", usage: { prompt_tokens: 10, completion_tokens: 3 } });
      const events = await run("learner", "I'm Ada Lovelace, call me Ada. I work on the Analytical Engine.", "ada");
      const done = events.at(-1)!;
      expect(done).toMatchObject({ event: "RunCompleted", content: "Hello Ada." });
      // The agent (13) + the profile extraction (60 + its closing 8) + the memory extraction (48 + 8).
      expect((done.metrics as Json).total_tokens).toBe(13 + 60 + 8 + 48 + 8);
      const db = await app.db();
      const profile = await getLearning(db, { scope: adminScope(), learningId: "user_profile_ada" });
      expect(profile).toMatchObject({ learning_type: "user_profile", user_id: "ada", agent_id: "learner", namespace: null });
      expect(profile!.content).toMatchObject({ user_id: "ada", name: "Ada Lovelace", preferred_name: "Ada", agent_id: "learner", team_id: null });
      expect(String(profile!.content.created_at)).toMatch(/^\d{4}-\d\d-\d\dT.*Z$/);
      const memories = await getLearning(db, { scope: adminScope(), learningId: "memories_ada" });
      expect(memories).toMatchObject({ learning_type: "user_memory", user_id: "ada" });
      expect(memories!.content).toMatchObject({ user_id: "ada", memories: [{ content: "Works on the Analytical Engine", source: expect.any(String), added_by_agent: "learner" }] });
      expect((memories!.content.memories as Json[])[0]!.id).toMatch(/^[0-9a-f]{8}$/);
      // Always mode: the agent itself gets no learning tools.
      const agentCall = server.requests.filter((r) => callOf(r.body) === "agent").at(-1)!;
      expect(toolNames(agentCall.body)).toEqual([]);

      extraction = () => ({ text: "Nothing new." });
      agentAnswer = () => ({ text: "You are Ada." });
      await run("learner", "Who am I?", "ada", { stream: "false" });
      const next = server.requests.filter((r) => callOf(r.body) === "agent").at(-1)!;
      expect(systemOf(next.body)).toContain("Preferred Name: Ada");
      expect(systemOf(next.body)).toContain("Works on the Analytical Engine");
      // Another user's run carries none of it.
      await run("learner", "Who am I?", "bob", { stream: "false" });
      const bobs = server.requests.filter((r) => callOf(r.body) === "agent").at(-1)!;
      expect(systemOf(bobs.body)).not.toContain("Ada");
    });

    it("a run that pauses waits for its learning extraction before RunPaused", async () => {
      extraction = (kind) => (kind === "profile" ? { toolCalls: [{ name: "update_profile", arguments: { name: "Pat" } }], delayMs: 300 } : { text: "-" });
      agentAnswer = () => ({ toolCalls: [{ name: "wipe", arguments: {} }] });
      const events = await run("pauser", "I'm Pat; wipe it", "pat");
      expect(events.at(-1)).toMatchObject({ event: "RunPaused" });
      // By RunPaused the slower extraction has stored the profile.
      expect((await getLearning(await app.db(), { scope: adminScope(), learningId: "user_profile_pat" }))?.content).toMatchObject({ name: "Pat" });
    });

    it("two runs of one user changing their memory list at once each keep their change (a compare-and-set over the row as read)", async () => {
      const { changeOwnRow } = await import("@/lib/learning/learning-run.ts");
      const db = await app.db();
      const key = { learningId: "memories_racer", learningType: "user_memory", agentId: "learner", teamId: null };
      await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          changeOwnRow({ db }, "racer", key, (stored) => ({ user_id: "racer", memories: [...((stored?.memories as Json[] | undefined) ?? []), { id: `m${i}`, content: `Fact ${i}` }] })),
        ),
      );
      const row = await getLearning(db, { scope: adminScope(), learningId: "memories_racer" });
      expect((row!.content.memories as Json[]).map((m) => m.id).sort()).toEqual(["m0", "m1", "m2", "m3", "m4", "m5", "m6", "m7"]);
    });

    it("maxUpdatesPerRun bounds the changes one extraction makes", async () => {
      extraction = (kind) => (kind === "memory" ? { toolCalls: ["one", "two", "three"].map((m) => ({ name: "add_memory", arguments: { memory: `Fact ${m}` } })) } : { text: "-" });
      agentAnswer = () => ({ text: "Noted." });
      await run("bounded", "Lots of facts about me.", "max", { stream: "false" });
      const memories = await getLearning(await app.db(), { scope: adminScope(), learningId: "memories_max" });
      expect((memories!.content.memories as Json[]).map((m) => m.content)).toEqual(["Fact one", "Fact two"]);
    });

    it("agentic mode: the agent gets Agno's tools (update_profile, update_user_memory, log_decision, record_outcome, search_decisions); a run without a user gets none of the user-scoped ones", async () => {
      let offered: string[] = [];
      agentAnswer = (body) => {
        offered = toolNames(body);
        if (!lastIsTool(body))
          return { toolCalls: [{ name: "log_decision", arguments: { decision: "Answer briefly", reasoning: "The user is busy", alternatives: "long, medium", confidence: 0.8 } }] };
        return { text: "Done." };
      };
      await run("agentic", "Decide something", "dee", { stream: "false" });
      expect(offered).toEqual(["log_decision", "record_outcome", "search_decisions", "update_profile", "update_user_memory"]);
      const { rows } = await listLearnings(await app.db(), { scope: userScope("dee"), learningType: "decision_log" });
      expect(rows).toHaveLength(1);
      expect(rows[0]!.learning_id).toMatch(/^dec_[0-9a-f]{8}$/);
      expect(rows[0]).toMatchObject({ user_id: "dee", agent_id: "agentic", namespace: null });
      expect(rows[0]!.content).toMatchObject({
        id: rows[0]!.learning_id,
        decision: "Answer briefly",
        reasoning: "The user is busy",
        alternatives: ["long", "medium"],
        confidence: 0.8,
        outcome: null,
        user_id: "dee",
      });
      // The next run sees its recent decision in its prompt, and may record how it went.
      agentAnswer = (body) => {
        if (!lastIsTool(body)) return { toolCalls: [{ name: "record_outcome", arguments: { decision_id: rows[0]!.learning_id, outcome: "User was happy", outcome_quality: "good" } }] };
        return { text: "Recorded." };
      };
      await run("agentic", "How did it go?", "dee", { stream: "false" });
      const lastAgent = server.requests.filter((r) => callOf(r.body) === "agent").at(-2)!;
      expect(systemOf(lastAgent.body)).toContain("Answer briefly");
      const updated = await getLearning(await app.db(), { scope: userScope("dee"), learningId: rows[0]!.learning_id });
      expect(updated!.content).toMatchObject({ outcome: "User was happy", outcome_quality: "good" });
      // Another user cannot record an outcome on dee's decision.
      agentAnswer = (body) => (!lastIsTool(body) ? { toolCalls: [{ name: "record_outcome", arguments: { decision_id: rows[0]!.learning_id, outcome: "Hijacked" } }] } : { text: "." });
      await run("agentic", "Record", "eve", { stream: "false" });
      expect((await getLearning(await app.db(), { scope: adminScope(), learningId: rows[0]!.learning_id }))!.content).toMatchObject({ outcome: "User was happy" });
      // Without a user: the user-scoped stores offer nothing; the decision log still does.
      agentAnswer = (body) => ((offered = toolNames(body)), { text: "ok" });
      await app.call("POST", "/agents/agentic/runs", { form: { message: "hi", stream: "false" } });
      expect(offered).toEqual(["log_decision", "record_outcome", "search_decisions"]);
    });

    it("entity memory in the user namespace never mixes two users' facts: rows keyed by the user's digest, search and prompt each user's own (the seed's bug)", async () => {
      const remember = (fact: string) => (body: ChatCompletionRequest) =>
        !lastIsTool(body) ? { toolCalls: [{ name: "remember_about", arguments: { entity: "Acme Corp", entity_type: "companies", facts: [fact] } }] } : { text: "Noted." };
      agentAnswer = remember("Acme is Alice's employer");
      await run("entities", "Remember Acme", "alice", { stream: "false" });
      agentAnswer = remember("Acme is Bob's bank");
      await run("entities", "Remember Acme", "bob", { stream: "false" });
      const db = await app.db();
      const aliceRow = await getLearning(db, { scope: adminScope(), learningId: userEntityKey("alice", "company", "acme_corp") });
      const bobRow = await getLearning(db, { scope: adminScope(), learningId: userEntityKey("bob", "company", "acme_corp") });
      expect(aliceRow!.learning_id).toMatch(/^entity_user_[0-9a-f]{16}_company_acme_corp$/);
      expect(aliceRow).toMatchObject({ namespace: "user", user_id: "alice", entity_id: "acme_corp", entity_type: "company" });
      expect(bobRow).toMatchObject({ namespace: "user", user_id: "bob" });
      expect(aliceRow!.content).toMatchObject({ entity_id: "acme_corp", entity_type: "company", name: "Acme Corp", facts: [{ content: "Acme is Alice's employer" }] });
      expect(JSON.stringify(aliceRow!.content)).not.toContain("Bob");
      // Search through the agent's tool: each user finds only their own.
      let found = "";
      agentAnswer = (body) => {
        if (!lastIsTool(body)) return { toolCalls: [{ name: "search_entities", arguments: { query: "acme" } }] };
        found = messageText(body.messages.at(-1));
        return { text: "." };
      };
      await run("entities", "What about Acme?", "bob", { stream: "false" });
      expect(found).toContain("Bob's bank");
      expect(found).not.toContain("Alice");
      // The prompt: alice's run names only her Acme.
      agentAnswer = () => ({ text: "." });
      await run("entities", "Tell me about Acme Corp", "alice", { stream: "false" });
      const prompt = systemOf(server.requests.filter((r) => callOf(r.body) === "agent").at(-1)!.body);
      expect(prompt).toContain("Alice's employer");
      expect(prompt).not.toContain("Bob");
      // No user: the tools are offered but refuse, recording nothing.
      agentAnswer = (body) =>
        !lastIsTool(body)
          ? { toolCalls: [{ name: "remember_about", arguments: { entity: "Acme Corp", entity_type: "company", facts: ["anon"] } }] }
          : ((found = messageText(body.messages.at(-1))), { text: "." });
      await app.call("POST", "/agents/entities/runs", { form: { message: "Remember", stream: "false" } });
      expect(found).toContain("kept per user");
      const { rows } = await listLearnings(db, { scope: adminScope(), learningType: "entity_memory", namespace: "user" });
      expect(rows.map((r) => r.user_id).sort()).toEqual(["alice", "bob"]);
    });

    it("seed: EntityMemoryStore get and delete take the user, and refuse a user-namespace call without one", async () => {
      const { EntityMemoryStore, EntityUserRequiredError } = await import("@/lib/learning/index.ts");
      const store = new EntityMemoryStore({ mode: "agentic", config: { namespace: "user" } }, "global");
      const db = await app.db();
      // Rows from the isolation test above: alice's and bob's "Acme Corp".
      await expect(store.get(db, { entity: "Acme Corp", entityType: "company" })).rejects.toThrow(EntityUserRequiredError);
      await expect(store.delete(db, { entity: "Acme Corp", entityType: "company" })).rejects.toThrow(/pass the user_id/);
      expect((await store.get(db, { entity: "Acme Corp", entityType: "company", userId: "alice" }))?.facts).toMatchObject([{ content: "Acme is Alice's employer" }]);
      expect(await store.delete(db, { entity: "Acme Corp", entityType: "company", userId: "alice" })).toBe(true);
      expect(await store.get(db, { entity: "Acme Corp", entityType: "company", userId: "alice" })).toBeUndefined();
      // bob's is untouched.
      expect((await store.get(db, { entity: "Acme Corp", entityType: "company", userId: "bob" }))?.facts).toMatchObject([{ content: "Acme is Bob's bank" }]);
    });

    it("entity memory in the global namespace is shared: no owner, keyed entity_global_<type>_<id>, every user reads it", async () => {
      agentAnswer = (body) =>
        !lastIsTool(body)
          ? { toolCalls: [{ name: "remember_about", arguments: { entity: "Postgres", entity_type: "system", description: "The database", facts: ["Runs on port 5432"] } }] }
          : { text: "." };
      await run("shared-entities", "Remember Postgres", "alice", { stream: "false" });
      const row = await getLearning(await app.db(), { scope: userScope("bob"), learningId: "entity_global_system_postgres" });
      expect(row).toMatchObject({ namespace: "global", user_id: null, entity_type: "system" });
      agentAnswer = () => ({ text: "." });
      await run("shared-entities", "Which port does Postgres use?", "bob", { stream: "false" });
      expect(systemOf(server.requests.filter((r) => callOf(r.body) === "agent").at(-1)!.body)).toContain("Runs on port 5432");
    });

    it("session context: always mode keeps the session's summary, goal, plan and progress under session_context_<session_id>", async () => {
      extraction = (kind) =>
        kind === "session"
          ? { toolCalls: [{ name: "save_session_context", arguments: { summary: "Planning a trip to Oslo", goal: "Book the trip", plan: ["Flights", "Hotel"], progress: [] } }] }
          : { text: "-" };
      agentAnswer = () => ({ text: "Let's plan." });
      const events = await run("contexts", "Help me plan a trip to Oslo", "sam");
      const sessionId = String(events[0]!.session_id);
      const row = await getLearning(await app.db(), { scope: userScope("sam"), learningId: `session_context_${sessionId}` });
      expect(row).toMatchObject({ learning_type: "session_context", session_id: sessionId, user_id: "sam" });
      expect(row!.content).toMatchObject({ session_id: sessionId, summary: "Planning a trip to Oslo", goal: "Book the trip", plan: ["Flights", "Hotel"] });
      extraction = () => ({ text: "-" });
      await run("contexts", "Next step?", "sam", { session_id: sessionId, stream: "false" });
      expect(systemOf(server.requests.filter((r) => callOf(r.body) === "agent").at(-1)!.body)).toContain("Summary: Planning a trip to Oslo");
    });

    it("a team with learning: the leader's profile store writes rows with the team's id", async () => {
      extraction = (kind) => (kind === "profile" ? { toolCalls: [{ name: "update_profile", arguments: { name: "Tess" } }] } : { text: "-" });
      agentAnswer = () => ({ text: "Hi Tess." });
      await readSse(await app.call("POST", "/teams/desk/runs", { form: { message: "I am Tess", user_id: "tess" } }));
      const row = await getLearning(await app.db(), { scope: adminScope(), learningId: "user_profile_tess" });
      expect(row).toMatchObject({ team_id: "desk", agent_id: null });
      expect(row!.content).toMatchObject({ name: "Tess", team_id: "desk", agent_id: null });
    });

    it("learned knowledge in namespace user: saved as an owned chunk of the agent's knowledge base (metadata namespace and learning_type, no content row), found by its user's search only, and gone after forgetUser", async () => {
      let result = "";
      const save = (title: string, learning: string) => (body: ChatCompletionRequest) =>
        !lastIsTool(body) ? { toolCalls: [{ name: "save_learning", arguments: { title, learning, tags: ["ops"] } }] } : ((result = messageText(body.messages.at(-1))), { text: "Saved." });
      agentAnswer = save("Deploys on Fridays", "Never deploy the billing service on a Friday");
      await run("lk-user", "Remember: no billing deploys on Fridays", "uma", { stream: "false" });
      expect(result).toContain("Learning saved");
      agentAnswer = save("Deploys on Fridays", "Something else");
      await run("lk-user", "Remember again", "uma", { stream: "false" });
      expect(result).toContain("exists already");
      const db = await app.db();
      const chunks = await db.sql.query<{ user_id: string | null; meta_data: unknown; content: string }>("SELECT user_id, meta_data, content FROM learned_vectors");
      expect(chunks).toHaveLength(1);
      const meta = typeof chunks[0]!.meta_data === "string" ? JSON.parse(chunks[0]!.meta_data) : chunks[0]!.meta_data;
      expect(meta).toMatchObject({ namespace: "user", learning_type: "learned_knowledge", user_id: "uma", agent_id: "lk-user", tags: ["ops"] });
      expect(chunks[0]!.user_id).toBe("uma");
      expect(JSON.parse(chunks[0]!.content)).toMatchObject({ title: "Deploys on Fridays", learning: "Never deploy the billing service on a Friday", namespace: "user", user_id: "uma" });
      expect(await db.sql.query("SELECT id FROM agno_knowledge")).toEqual([]);
      // Each user's search reaches only their own.
      const search = (body: ChatCompletionRequest) =>
        !lastIsTool(body) ? { toolCalls: [{ name: "search_learnings", arguments: { query: "billing deploy Friday" } }] } : ((result = messageText(body.messages.at(-1))), { text: "." });
      agentAnswer = search;
      await run("lk-user", "Can I deploy billing today?", "vic", { stream: "false" });
      expect(result).toContain("No relevant learnings");
      await run("lk-user", "Can I deploy billing today?", "uma", { stream: "false" });
      expect(result).toContain("Never deploy the billing service on a Friday");
      // And it is in uma's prompt for a related question, not in vic's.
      agentAnswer = () => ({ text: "." });
      await run("lk-user", "billing deploy on Friday?", "uma", { stream: "false" });
      expect(systemOf(server.requests.filter((r) => callOf(r.body) === "agent").at(-1)!.body)).toContain("Never deploy the billing service");
      await run("lk-user", "billing deploy on Friday?", "vic", { stream: "false" });
      expect(systemOf(server.requests.filter((r) => callOf(r.body) === "agent").at(-1)!.body)).not.toContain("Never deploy the billing service");
      const { forgetUser } = await import("@/lib/learning/forget.ts");
      const { knowledgeBasesOf } = await import("@/lib/knowledge/knowledge-bases.ts");
      const forgotten = await forgetUser(db, { scope: userScope("uma"), userId: "uma", knowledgeBases: knowledgeBasesOf(db, app.settings).values() });
      expect(forgotten.learnedKnowledge).toBe(1);
      expect(await db.sql.query("SELECT id FROM learned_vectors WHERE user_id = 'uma'")).toEqual([]);
    });

    it("learned knowledge in propose mode: saving pauses the run for the user's confirmation; confirmed, it is saved shared (global, no owner)", async () => {
      agentAnswer = (body) =>
        !lastIsTool(body) ? { toolCalls: [{ name: "save_learning", arguments: { title: "Team goal", learning: "Ship the v3 migration by March" } }] } : { text: "Saved for everyone." };
      const paused = (await (await app.call("POST", "/agents/lk-propose/runs", { form: { message: "Our goal is shipping v3 by March", user_id: "wes", stream: "false" } })).json()) as Json & {
        requirements: Json[];
      };
      expect(paused.status).toBe("PAUSED");
      expect(paused.requirements[0]).toMatchObject({ tool_execution: { tool_name: "save_learning", requires_confirmation: true } });
      const db = await app.db();
      expect(await db.sql.query("SELECT id FROM learned_vectors WHERE user_id IS NULL")).toEqual([]);
      const requirement = paused.requirements[0]!;
      const continued = await app.call("POST", `/agents/lk-propose/runs/${String(paused.run_id)}/continue`, {
        form: { session_id: String(paused.session_id), user_id: "wes", stream: "false", requirements: JSON.stringify([{ ...requirement, confirmation: true }]) },
      });
      expect(((await continued.json()) as Json).status).toBe("COMPLETED");
      const shared = await db.sql.query<{ content: string }>("SELECT content FROM learned_vectors WHERE user_id IS NULL");
      expect(shared.map((r) => JSON.parse(r.content))).toEqual([expect.objectContaining({ title: "Team goal", namespace: "global", user_id: null, agent_id: "lk-propose" })]);
    });

    it("enableAgenticMemory: the update_user_memory tool changes the user's memories in agno_memories", async () => {
      agentAnswer = (body) => (!lastIsTool(body) ? { toolCalls: [{ name: "update_user_memory", arguments: { task: "User likes tea" } }] } : { text: "Noted." });
      extraction = () => ({ text: "-" });
      const memoryModel = (body: ChatCompletionRequest) => systemOf(body).startsWith("You manage long-term memories about a user");
      const previous = agentAnswer;
      agentAnswer = (body) =>
        memoryModel(body) ? (lastIsTool(body) ? { text: "Done." } : { toolCalls: [{ name: "add_memory", arguments: { memory: "Likes tea", topics: ["drinks"] } }] }) : previous(body);
      await run("agentic-memory", "I like tea", "tea", { stream: "false" });
      const { memories } = await listMemories(await app.db(), { scope: userScope("tea") });
      expect(memories.map((m) => [m.memory, m.topics])).toEqual([["Likes tea", ["drinks"]]]);
    });
  });
}

describe("learning configuration", () => {
  it("seed: the v3 names — UserMemoryConfig, UserMemoryStore, DecisionLog — are the TypeScript API's", async () => {
    const api = await import("@/lib/learning/index.ts");
    expect(typeof api.UserMemoryStore).toBe("function");
    expect(typeof api.DecisionLogStore).toBe("function");
    const config: import("@/lib/learning/index.ts").UserMemoryConfig = { mode: "agentic", maxMemoriesInContext: 5 };
    const decision: Partial<import("@/lib/learning/index.ts").DecisionLog> = { decision: "Use Postgres" };
    const model = { provider: "openai-compatible" as const, id: "m", baseUrl: "http://127.0.0.1:1/v1" };
    const agent = defineAgent({ id: "named", name: "Named", model, learning: { userMemory: config, decisionLog: true } });
    expect(api.machineOf(agent)!.describe()).toEqual([
      { store: "userMemory", mode: "agentic" },
      { store: "decisionLog", mode: "agentic" },
    ]);
    expect(api.machineOf(agent)!.userMemory).toBeInstanceOf(api.UserMemoryStore);
    expect(decision.decision).toBe("Use Postgres");
  });

  const model = { provider: "openai-compatible" as const, id: "m", baseUrl: "http://127.0.0.1:1/v1" };
  it("learning and enableAgenticMemory together are refused, naming the colliding tool update_user_memory", () => {
    expect(() => defineAgent({ id: "a", name: "A", model, learning: true, enableAgenticMemory: true })).toThrow(ConfigError);
    expect(() => defineAgent({ id: "a", name: "A", model, learning: true, enableAgenticMemory: true })).toThrow(/update_user_memory/);
    // Any learning machine owns the user's memory, whatever its stores (Agno turns agentic memory off with it).
    expect(() => defineAgent({ id: "a", name: "A", model, learning: { userProfile: true }, enableAgenticMemory: true })).toThrow(/update_user_memory/);
    expect(defineAgent({ id: "a", name: "A", model, enableAgenticMemory: true }).enableAgenticMemory).toBe(true);
  });
  it("a mode a store does not support, and learned knowledge without a knowledge base, are refused by name", () => {
    expect(() => defineAgent({ id: "a", name: "A", model, learning: { entityMemory: { mode: "always" } } })).toThrow(/entityMemory does not support mode 'always'; it supports 'agentic'/);
    expect(() => defineAgent({ id: "a", name: "A", model, learning: { sessionContext: { mode: "agentic" } } })).toThrow(/sessionContext does not support mode 'agentic'/);
    expect(() => defineAgent({ id: "a", name: "A", model, learning: { learnedKnowledge: true } })).toThrow(/learnedKnowledge stores what is learned in a knowledge base/);
    expect(() => defineAgent({ id: "a", name: "A", model, learning: { userMemory: true, flavour: 1 } as never })).toThrow(/flavour/);
  });
});
