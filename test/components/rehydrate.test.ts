import { describe, expect, it } from "vitest";
import { z } from "zod";
import { configUseIssues, configUseProblems, registryEntries, registryModel, registryToolkit } from "@/lib/components/registry.ts";
import { rehydrateAgent, rehydrateTeam, rehydrateWorkflow, type ChildResolver, type ComponentLinkLike } from "@/lib/components/rehydrate.ts";
import type { AgentDefinition, FileConfig, TeamDefinition } from "@/lib/config/define.ts";
import { ComponentRehydrationError } from "@/lib/errors/http-error.ts";
import { toRuntimeAgent } from "@/lib/runtime/agents.ts";
import { calculatorToolkit } from "@/lib/runtime/tools/calculator/calculator.ts";
import { hostToolkit } from "@/lib/runtime/tools/host/host.ts";
import { defineTool, defineToolkit, type ToolDefinition, type Toolkit } from "@/lib/runtime/tools/types.ts";
import { testSettings } from "../support/settings.ts";
import { AGNO_AGENT_CONFIG, AGNO_TEAM_CONFIG, AGNO_WORKFLOW_CONFIG } from "./studio-configs.ts";

/** A toolkit listed at run time (as an MCP server's): two functions, known only once listed. */
const remoteTools: ToolDefinition<unknown>[] = [
  defineTool({ name: "shout", description: "Upper-cases text", parameters: z.object({ text: z.string() }), execute: ({ text }) => text.toUpperCase() }) as ToolDefinition<unknown>,
  defineTool({ name: "whisper", description: "Lower-cases text", parameters: z.object({ text: z.string() }), execute: ({ text }) => text.toLowerCase() }) as ToolDefinition<unknown>,
];
const remote: Toolkit = { id: "remote", name: "Remote", tools: [], loadTools: async () => remoteTools };
const secret = defineToolkit({ id: "secret", name: "Secret", tools: [defineTool({ name: "peek", description: "Peeks", parameters: z.object({}), execute: () => "x" })] });

const writer: AgentDefinition = { id: "writer", name: "Writer", model: { provider: "openai", id: "gpt-4.1-mini", apiKey: "sk-test" } };
const file: FileConfig = {
  agents: [writer],
  knowledge: { bases: [{ id: "handbook", name: "Handbook" }] },
  registry: {
    models: [{ provider: "anthropic", id: "claude-sonnet-4-5" }],
    toolkits: [calculatorToolkit, hostToolkit, remote, { toolkit: secret, membersMayAttach: false }],
    knowledge: [{ knowledge: { id: "vault", name: "Vault", vectorTable: "vault_vectors" }, membersMayAttach: false }],
    schemas: [{ name: "Answer", schema: { type: "object", properties: { answer: { type: "string" } }, required: ["answer"] } }],
    learning: [{ name: "Profiles", userProfile: true, userMemory: { mode: "agentic" } }],
  },
};
const settings = testSettings({ env: { OPENAI_API_KEY: "sk-test" }, file });
const member = { isAdmin: false };
const admin = { isAdmin: true };

const noChildren: ChildResolver = async () => undefined;

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ComponentRehydrationError);
  expect((error as ComponentRehydrationError).status).toBe(422);
  expect((error as ComponentRehydrationError).extra).toEqual({ error_type: "component_rehydration_error" });
  return String((error as ComponentRehydrationError).detail);
}

describe("the registry", () => {
  it("lists what a caller may use, sorted by type and name; a member sees no admin-only toolkit or knowledge base", () => {
    const forAdmin = registryEntries(settings, admin);
    const forMember = registryEntries(settings, member);
    const names = (entries: typeof forAdmin, type: string) => entries.filter((e) => e.type === type).map((e) => e.name);
    expect(names(forAdmin, "tool")).toEqual(["Calculator", "Host", "Remote", "Secret"]);
    expect(names(forMember, "tool")).toEqual(["Calculator"]);
    expect(names(forAdmin, "knowledge")).toEqual(["Handbook", "Vault"]);
    expect(names(forMember, "knowledge")).toEqual(["Handbook"]);
    expect(names(forMember, "model")).toEqual(["claude-sonnet-4-5", "gpt-4.1-mini"]);
    expect(names(forMember, "agent")).toEqual(["Writer"]);
    expect(names(forMember, "learning")).toEqual(["Profiles"]);
    expect(names(forMember, "schema")).toEqual(["Answer"]);
    const sorted = [...forAdmin].sort((a, b) => (a.type === b.type ? (a.name < b.name ? -1 : 1) : a.type < b.type ? -1 : 1));
    expect(forAdmin).toEqual(sorted);
    const calculator = forMember.find((e) => e.name === "Calculator")!;
    expect(calculator.metadata).toMatchObject({ class_path: "agentry.tools.Toolkit", is_toolkit: true });
    const add = (calculator.metadata.functions as Record<string, unknown>[]).find((f) => f.name === "add")!;
    expect(add).toMatchObject({
      name: "add",
      description: "Add two numbers",
      requires_confirmation: false,
      external_execution: false,
      signature: "(a: number, b: number)",
      parameters: { type: "object", properties: { a: { type: "number", description: "first operand" }, b: { type: "number" } }, required: ["a", "b"] },
    });
    const host = forAdmin.find((e) => e.name === "Host")!;
    expect((host.metadata.functions as Record<string, unknown>[]).find((f) => f.name === "server_details")).toMatchObject({ requires_confirmation: true });
    expect(forMember.find((e) => e.type === "model" && e.name === "gpt-4.1-mini")!.metadata).toEqual({ class_path: "agentry.models.openai", provider: "openai", model_id: "gpt-4.1-mini" });
    expect(forMember.find((e) => e.type === "learning")!.metadata).toMatchObject({ namespace: "global", stores: { user_profile: { mode: "always" }, user_memory: { mode: "agentic" } } });
  });

  it("finds models by Agno's provider names, toolkits by name or id", () => {
    expect(registryModel(settings, { provider: "OpenAI", id: "gpt-4.1-mini" })?.provider).toBe("openai");
    expect(registryModel(settings, { id: "claude-sonnet-4-5" })?.provider).toBe("anthropic");
    expect(registryModel(settings, { provider: "Anthropic", id: "gpt-4.1-mini" })).toBeUndefined();
    expect(registryModel(settings, { provider: "Martian", id: "gpt-4.1-mini" })).toBeUndefined();
    expect(registryToolkit(settings, "Calculator")?.toolkit).toBe(calculatorToolkit);
    expect(registryToolkit(settings, "host")).toEqual({ toolkit: hostToolkit, membersMayAttach: false });
  });

  it("refuses a member an admin-only toolkit or knowledge base and a db block beyond table names, naming each", () => {
    expect(configUseProblems(settings, "agent", AGNO_AGENT_CONFIG, member)).toEqual([]);
    const config = {
      tools: [{ name: "server_details", toolkit: "Host" }, { name: "add" }, { name: "peek", toolkit: "secret" }],
      knowledge: { name: "Vault" },
      db: { id: "agentry-db", type: "postgres", session_table: "mine", db_url: "postgresql://elsewhere/db", db_schema: "x" },
    };
    expect(configUseIssues(settings, "agent", config, member)).toEqual([
      { kind: "forbidden", message: "tools.0: toolkit 'Host' is offered to admins only" },
      { kind: "forbidden", message: "tools.2: toolkit 'Secret' is offered to admins only" },
      { kind: "forbidden", message: "knowledge: knowledge base 'Vault' is offered to admins only" },
      { kind: "forbidden", message: "db: a component may set only the database's table names (*_table), not 'db_url', 'db_schema'" },
    ]);
    expect(configUseProblems(settings, "agent", config, admin)).toEqual([]);
  });

  it("refuses what the registry lacks, for everyone", () => {
    const config = {
      model: { provider: "OpenAI", id: "gpt-9" },
      tools: [{ name: "teleport", toolkit: "Calculator" }, { name: "fly", toolkit: "Wings" }, { name: "nothing" }],
      knowledge: { name: "Atlas" },
      learning: { name: "Nope" },
      output_schema: "Missing",
      db: { id: "other-db" },
    };
    expect(configUseProblems(settings, "agent", config, admin)).toEqual([
      "tools.0: toolkit 'Calculator' has no function 'teleport'",
      "tools.1: toolkit 'Wings' is not in the registry",
      "tools.2: tool 'nothing' is not a function of any toolkit in the registry",
      "model: model 'OpenAI:gpt-9' is not in the registry",
      "knowledge: knowledge base 'Atlas' is not in the registry",
      "learning: learning machine 'Nope' is not in the registry",
      "output_schema: schema 'Missing' is not in the registry",
      "db: database 'other-db' is not this OS's database ('agentry-db')",
    ]);
    // A run-time toolkit's functions are known only when listed: any name is accepted at save.
    expect(configUseProblems(settings, "agent", { tools: [{ name: "anything", toolkit: "Remote" }] }, admin)).toEqual([]);
  });
});

describe("rehydration", () => {
  it("builds an agent from a config written the way Agno's Studio writes it", async () => {
    const agent = await rehydrateAgent(settings, { id: "research-helper-1a2b3c4d", config: { ...AGNO_AGENT_CONFIG, learning: true }, ownerId: "alice" });
    expect(agent.id).toBe("research-helper-1a2b3c4d");
    expect(agent.name).toBe("Research helper");
    expect(agent.description).toBe("Looks things up and does the sums.");
    expect(agent.model).toEqual({ provider: "openai", id: "gpt-4.1-mini", apiKey: "sk-test" });
    expect(agent.instructions).toEqual(["Be brief.", "Show your working.", "Use markdown to format your answers."]);
    expect(agent).toMatchObject({
      addHistoryToContext: true,
      numHistoryRuns: 3,
      updateMemoryOnRun: true,
      searchPastSessions: true,
      numPastSessionsToSearch: 2,
      searchKnowledge: true,
      knowledge: { id: "handbook", name: "Handbook" },
      learning: true,
    });
    const tools = agent.tools as ToolDefinition<unknown>[];
    expect(tools.map((t) => t.name)).toEqual(["add", "multiply"]);
    // The config's per-function confirmation is kept; the registry's function runs.
    expect(tools[0]!.requiresConfirmation).toBe(true);
    expect(tools[1]!.requiresConfirmation).toBeUndefined();
    expect(await tools[0]!.execute!({ a: 2, b: 3 }, {} as never)).toEqual({ result: 5 });
    expect(toRuntimeAgent(agent).tools.map((t) => t.name)).toEqual(["add", "multiply"]);
  });

  it("resolves learning by name, inline (Agno's snake_case) and add_learnings_to_context; the registry's first model when none is named", async () => {
    const named = await rehydrateAgent(settings, { id: "a", config: { learning: { name: "Profiles" } }, ownerId: null });
    expect(named.learning).toEqual({ name: "Profiles", userProfile: true, userMemory: { mode: "agentic" } });
    expect(named.model).toEqual({ provider: "openai", id: "gpt-4.1-mini", apiKey: "sk-test" });
    expect(named.name).toBe("a");
    const inline = await rehydrateAgent(settings, {
      id: "b",
      config: {
        learning: { user_profile: true, entity_memory: { mode: "agentic", namespace: "user", max_facts_per_entity: 5, prompt: "ignored" }, namespace: "team" },
        add_learnings_to_context: false,
      },
      ownerId: null,
    });
    expect(inline.learning).toEqual({ namespace: "team", userProfile: true, entityMemory: { mode: "agentic", namespace: "user", maxFactsPerEntity: 5 }, addLearningsToContext: false });
    const off = await rehydrateAgent(settings, { id: "c", config: { learning: false, enable_agentic_memory: true }, ownerId: null });
    expect(off.learning).toBeUndefined();
    expect(off.enableAgenticMemory).toBe(true);
    // Learning on turns the legacy agentic memory off (its tool name collides).
    const both = await rehydrateAgent(settings, { id: "d", config: { learning: true, enable_agentic_memory: true }, ownerId: null });
    expect(both.enableAgenticMemory).toBeUndefined();
  });

  it("takes an output schema as an object or by registry name", async () => {
    expect((await rehydrateAgent(settings, { id: "a", config: { output_schema: "Answer" }, ownerId: null })).outputSchema).toEqual(settings.registry.schemas[0]!.schema);
    const inline = { type: "object", properties: { n: { type: "number" } } };
    expect((await rehydrateAgent(settings, { id: "a", config: { output_schema: inline }, ownerId: null })).outputSchema).toEqual(inline);
  });

  it("offers only the named functions of a run-time toolkit, with their flags", async () => {
    const agent = await rehydrateAgent(settings, { id: "a", config: { tools: [{ name: "shout", toolkit: "Remote", requires_confirmation: true }] }, ownerId: null });
    const runtime = toRuntimeAgent(agent);
    expect(runtime.runtimeToolkits?.length).toBe(1);
    const listed = await runtime.runtimeToolkits![0]!.loadTools!({ userId: "alice", signal: new AbortController().signal });
    expect(listed.map((t) => [t.name, t.requiresConfirmation])).toEqual([["shout", true]]);
  });

  it("refuses what the registry lacks, naming it", async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ model: { provider: "OpenAI", id: "gpt-9" } }, /^Agent 'x': model 'OpenAI:gpt-9' is not in the registry$/],
      [{ reasoning_model: { provider: "OpenAI", id: "o9" } }, /reasoning model 'OpenAI:o9' is not in the registry/],
      [{ tools: [{ name: "fly", toolkit: "Wings" }] }, /tool 'fly': toolkit 'Wings' is not in the registry/],
      [{ tools: [{ name: "teleport", toolkit: "Calculator" }] }, /toolkit 'Calculator' has no function 'teleport'/],
      [{ tools: [{ name: "nothing" }] }, /tool 'nothing' is not a function of any toolkit in the registry/],
      [{ tools: [{ name: "add" }, { name: "add", toolkit: "Calculator" }] }, /two tools are named 'add'/],
      [{ knowledge: { name: "Atlas" } }, /knowledge base 'Atlas' is not in the registry/],
      [{ learning: { name: "Nope" } }, /learning machine 'Nope' is not in the registry/],
      [{ learning: { user_memory: { mode: "propose" } } }, /userMemory does not support mode 'propose'/],
      [{ learning: { learned_knowledge: true } }, /learnedKnowledge stores what is learned in a knowledge base/],
      [{ output_schema: "Missing" }, /output schema 'Missing' is not in the registry/],
      [{ memory_manager: { registry_id: "mm" } }, /memory manager 'mm' is not in the registry/],
      [{ db: { id: "elsewhere" } }, /database 'elsewhere' is not this OS's database/],
      [{ num_history_runs: "three" }, /the stored config is invalid: config\.num_history_runs/],
    ];
    for (const [config, message] of cases) expect(await refusal(rehydrateAgent(settings, { id: "x", config, ownerId: null }))).toMatch(message);
  });

  it("builds a team: members through the resolver at their pinned version, else code-defined; Agno's mode options", async () => {
    const helper = await rehydrateAgent(settings, { id: "research-helper", config: { ...AGNO_AGENT_CONFIG, learning: false }, ownerId: null });
    const asked: unknown[] = [];
    const child: ChildResolver = async (ref) => {
      asked.push(ref);
      return ref.id === "research-helper" ? helper : undefined;
    };
    const links: ComponentLinkLike[] = [{ link_kind: "member", link_key: "member_0", child_component_id: "research-helper", child_version: 4, position: 0, meta: { type: "agent" } }];
    const team = await rehydrateTeam(settings, { id: "desk-9", config: AGNO_TEAM_CONFIG, links, ownerId: "alice", child });
    expect(asked).toEqual([
      { type: "agent", id: "research-helper", version: 4 },
      { type: "agent", id: "writer", version: undefined },
    ]);
    expect(team.id).toBe("desk-9");
    expect(team.members.map((m) => m.id)).toEqual(["research-helper", "writer"]);
    expect(team).toMatchObject({ name: "Desk", mode: "coordinate", maxIterations: 5, determineInputForMembers: false, addHistoryToContext: true, numHistoryRuns: 2 });
    expect(team.model).toEqual({ provider: "openai", id: "gpt-4.1-mini", apiKey: "sk-test" });
    const routed = await rehydrateTeam(settings, { id: "r", config: { members: [{ type: "agent", agent_id: "writer" }], respond_directly: true }, links: [], ownerId: null, child: noChildren });
    expect(routed.mode).toBe("route");
    const broadcast = await rehydrateTeam(settings, {
      id: "b",
      config: { members: [{ type: "agent", agent_id: "writer" }], delegate_to_all_members: true },
      links: [],
      ownerId: null,
      child: noChildren,
    });
    expect(broadcast.mode).toBe("broadcast");
  });

  it("refuses a team whose members cannot be found, naming them", async () => {
    const pinned: ComponentLinkLike[] = [{ link_kind: "member", link_key: "member_0", child_component_id: "writer", child_version: 2, position: 0, meta: null }];
    expect(await refusal(rehydrateTeam(settings, { id: "t", config: { members: [{ type: "agent", agent_id: "writer" }] }, links: pinned, ownerId: null, child: noChildren }))).toBe(
      "Team 't': member agent 'writer' (version 2) was not found",
    );
    expect(await refusal(rehydrateTeam(settings, { id: "t", config: { members: [{ type: "team", team_id: "ghosts" }] }, links: [], ownerId: null, child: noChildren }))).toBe(
      "Team 't': member team 'ghosts' was not found",
    );
    expect(await refusal(rehydrateTeam(settings, { id: "t", config: { members: [] }, links: [], ownerId: null, child: noChildren }))).toBe("Team 't': a team needs at least one member");
    expect(
      await refusal(rehydrateTeam(settings, { id: "t", config: { members: [{ type: "agent", agent_id: "writer" }], knowledge: { name: "Handbook" } }, links: [], ownerId: null, child: noChildren })),
    ).toMatch(/knowledge base 'Handbook'/);
  });

  it("builds a workflow: Step entries with agents and teams, human_review as HumanReview", async () => {
    const helper = await rehydrateAgent(settings, { id: "research-helper", config: { ...AGNO_AGENT_CONFIG, learning: false }, ownerId: null });
    const desk: TeamDefinition = { id: "desk", name: "Desk", model: writer.model, members: [writer] };
    const asked: unknown[] = [];
    const child: ChildResolver = async (ref) => {
      asked.push(ref);
      return ref.id === "research-helper" ? helper : ref.id === "desk" ? desk : undefined;
    };
    const links: ComponentLinkLike[] = [
      { link_kind: "step_agent", link_key: "s-research", child_component_id: "research-helper", child_version: 3, position: 0, meta: null },
      { link_kind: "step_team", link_key: "s-draft", child_component_id: "desk", child_version: 1, position: 1, meta: null },
    ];
    const workflow = await rehydrateWorkflow(settings, { id: "brief-1", config: AGNO_WORKFLOW_CONFIG, links, ownerId: "alice", child });
    expect(asked).toEqual([
      { type: "agent", id: "research-helper", version: 3 },
      { type: "team", id: "desk", version: 1 },
    ]);
    expect(workflow).toMatchObject({ id: "brief-1", name: "Brief", description: "Facts, then a draft a person approves.", storeEvents: false, streamExecutorEvents: true });
    const [research, draft] = workflow.steps;
    expect(research).toMatchObject({ type: "Step", name: "research", description: "Works out the facts.", maxRetries: 3, skipOnFailure: false, agent: { id: "research-helper" } });
    // A HumanReview of defaults asks for nothing; its on_* settings are kept.
    expect(research!.type === "Step" && research.humanReview).toEqual({ onReject: "skip", onError: "skip", maxRetries: 3, onTimeout: "cancel" });
    expect(draft).toMatchObject({ type: "Step", name: "draft", team: { id: "desk" } });
    expect(draft!.type === "Step" && draft.humanReview).toEqual({
      requiresConfirmation: true,
      confirmationMessage: "Draft it?",
      onReject: "cancel",
      onError: "skip",
      maxRetries: 3,
      onTimeout: "cancel",
    });
  });

  it("refuses a workflow step it cannot build, naming it", async () => {
    const wf = (steps: unknown[]) => rehydrateWorkflow(settings, { id: "w", config: { name: "W", steps }, links: [], ownerId: null, child: noChildren });
    expect(await refusal(wf([{ type: "Step", name: "a", agent_id: "ghost" }]))).toBe("Workflow 'w': step 'a': agent 'ghost' was not found");
    expect(await refusal(wf([{ type: "Step", name: "f", executor_ref: "my_fn" }]))).toBe("Workflow 'w': step 'f': function 'my_fn' is not in the registry");
    expect(await refusal(wf([{ type: "Step", name: "n", workflow_id: "other" }]))).toMatch(/workflow 'other' as a step is not supported/);
    expect(await refusal(wf([{ type: "Step", name: "w", agent_id: "writer", human_review: { requires_iteration_review: true } }]))).toMatch(/requiresIterationReview is not supported on Step/);
    expect(await refusal(wf([]))).toMatch(/needs at least one step/);
    expect(await refusal(wf([{ type: "Condition", name: "c", evaluator: "is_ready", steps: [{ type: "Step", name: "a", agent_id: "writer" }] }]))).toMatch(
      /condition evaluator 'is_ready' is not in the registry/,
    );
    // Containers of resolvable steps build (a code-defined agent found without the resolver).
    const ok = await wf([
      { type: "Steps", name: "both", steps: [{ type: "Step", name: "a", agent_id: "writer" }] },
      { type: "Condition", name: "c", evaluator: true, steps: [{ type: "Step", name: "b", agent_id: "writer" }] },
    ]);
    expect(ok.steps.map((s) => s.type)).toEqual(["Steps", "Condition"]);
  });
});
