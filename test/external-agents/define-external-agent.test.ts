import { describe, expect, it } from "vitest";
import { defineExternalAgent, type ExternalAgentAdapter } from "@/lib/config/external-agent.ts";
import { langGraphAdapter } from "@/lib/runtime/external/langgraph.ts";
import { testSettings } from "../support/settings.ts";

const adapter: ExternalAgentAdapter = {
  framework: "test-framework",
  invoke: async () => "answer",
  async *stream() {},
};

describe("defineExternalAgent", () => {
  it("takes Agno's id from the name (lower case, spaces and underscores as hyphens) and the adapter's framework", () => {
    expect(defineExternalAgent({ name: "My Tide_Graph", adapter })).toMatchObject({ kind: "external", id: "my-tide-graph", name: "My Tide_Graph", framework: "test-framework" });
    expect(defineExternalAgent({ id: "custom", name: "Whatever", description: "Does things.", adapter })).toMatchObject({ id: "custom", description: "Does things." });
  });

  it("refuses a missing name, an id it cannot serve and an adapter that is not one, naming the problem", () => {
    expect(() => defineExternalAgent({ name: "", adapter })).toThrow(/name is required/);
    expect(() => defineExternalAgent({ name: "Tides?", adapter })).toThrow(/id 'tides\?' must be letters, digits/);
    expect(() => defineExternalAgent({ name: "X", adapter: { framework: "x" } as never })).toThrow(/adapter must have a framework, invoke and stream/);
    expect(() => langGraphAdapter({ graph: {} as never })).toThrow(/graph must be a compiled LangGraph graph/);
  });

  it("sits under `agents` beside defineAgent's: split into settings.externalAgents, ids unique across both, a bad agent still named precisely", () => {
    const external = defineExternalAgent({ name: "Graph", adapter });
    const settings = testSettings({ file: { agents: [{ id: "native", name: "Native", model: null }, external] } });
    expect(settings.agents.map((a) => a.id)).toEqual(["native"]);
    expect(settings.externalAgents).toEqual([external]);
    expect(() => testSettings({ file: { agents: [{ id: "graph", name: "Native", model: null }, external] } })).toThrow(/Two agents share the id 'graph'/);
    expect(() => testSettings({ file: { agents: [{ id: "native", name: "", model: null }, external] } })).toThrow(/agents\.0\.name/);
  });
});
