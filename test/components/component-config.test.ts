import { describe, expect, it } from "vitest";
import { AgentComponentConfigSchema, COMPONENT_TYPES, componentConfigSchema, instructionsText, parseComponentConfig } from "@/lib/config/component-config.ts";
import { AGNO_AGENT_CONFIG, AGNO_TEAM_CONFIG, AGNO_WORKFLOW_CONFIG } from "./studio-configs.ts";

/** The config schemas (lib/config/component-config.ts) against configs as Agno's Studio writes them. */
describe("component config schemas", () => {
  it("loads an agent config written the way Agno's Studio writes it, keeping the keys Agentry does not use", () => {
    const parsed = parseComponentConfig("agent", AGNO_AGENT_CONFIG);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.config).toEqual(AGNO_AGENT_CONFIG);
    // Unused keys pass through untouched, so a round trip loses nothing.
    expect(parsed.config.telemetry).toBe(true);
    expect(parsed.config.compress_tool_results).toBe(false);
    expect(parsed.config.db).toEqual(AGNO_AGENT_CONFIG.db);
    const typed = AgentComponentConfigSchema.parse(AGNO_AGENT_CONFIG);
    expect(typed.tools?.[0]).toMatchObject({ name: "add", toolkit: "Calculator", requires_confirmation: true });
    expect(typed.knowledge).toEqual({ name: "Handbook" });
    expect(typed.learning).toEqual({ name: "Profiles" });
  });

  it("loads a team with members and a mode, and a workflow with Step entries carrying agent_id, team_id and human_review", () => {
    const team = parseComponentConfig("team", AGNO_TEAM_CONFIG);
    expect(team).toEqual({ ok: true, config: AGNO_TEAM_CONFIG });
    const workflow = parseComponentConfig("workflow", AGNO_WORKFLOW_CONFIG);
    expect(workflow).toEqual({ ok: true, config: AGNO_WORKFLOW_CONFIG });
  });

  it("accepts the other learning shapes and a model string", () => {
    for (const learning of [true, false, { user_profile: true, user_memory: { mode: "agentic" } }, { name: "inline", session_context: true }]) {
      expect(parseComponentConfig("agent", { learning }).ok).toBe(true);
    }
    expect(parseComponentConfig("agent", { model: "openai:gpt-4.1-mini", output_schema: "Answer" }).ok).toBe(true);
    expect(parseComponentConfig("agent", { output_schema: { type: "object", properties: { a: { type: "string" } } } }).ok).toBe(true);
    expect(parseComponentConfig("workflow", { steps: [{ type: "Steps", name: "s", steps: [{ type: "Step", name: "a", agent_id: "x" }] }] }).ok).toBe(true);
  });

  it("names each problem with its path", () => {
    expect(parseComponentConfig("agent", null)).toEqual({ ok: false, problems: ["config: an object is required"] });
    expect(parseComponentConfig("agent", [])).toEqual({ ok: false, problems: ["config: an object is required"] });
    const bad = parseComponentConfig("agent", { model: { provider: "OpenAI" }, tools: [{ description: "no name" }], num_history_runs: -1, instructions: 5 });
    expect(bad.ok).toBe(false);
    if (bad.ok) return;
    expect(bad.problems.some((p) => p.startsWith("config.model"))).toBe(true);
    expect(bad.problems.some((p) => p.startsWith("config.tools.0.name:"))).toBe(true);
    expect(bad.problems.some((p) => p.startsWith("config.num_history_runs:"))).toBe(true);
    expect(bad.problems.some((p) => p.startsWith("config.instructions:"))).toBe(true);

    const team = parseComponentConfig("team", { members: [{ type: "agent" }], mode: "chaos" });
    expect(team.ok).toBe(false);
    if (team.ok) return;
    expect(team.problems.some((p) => p.startsWith("config.members.0.agent_id:"))).toBe(true);
    expect(team.problems.some((p) => p.startsWith("config.mode:"))).toBe(true);

    const workflow = parseComponentConfig("workflow", {
      steps: [{ type: "Step", name: "nothing" }, { type: "Step", name: "both", agent_id: "a", team_id: "t" }, { type: "Teleport" }],
    });
    expect(workflow.ok).toBe(false);
    if (workflow.ok) return;
    expect(workflow.problems).toContain("config.steps.0: a Step needs agent_id, team_id, workflow_id or executor_ref");
    expect(workflow.problems).toContain("config.steps.1: a Step runs one thing: it has agent_id and team_id");
    expect(workflow.problems.some((p) => p.startsWith("config.steps.2.type:"))).toBe(true);
  });

  it("has one schema per component type, and measures instructions as one text", () => {
    expect(COMPONENT_TYPES.map((t) => componentConfigSchema(t).safeParse({}).success)).toEqual([true, true, true]);
    expect(instructionsText({ instructions: ["ab", "cd"] })).toBe("ab\ncd");
    expect(instructionsText({ instructions: "abc" })).toBe("abc");
    expect(instructionsText({})).toBe("");
  });
});
