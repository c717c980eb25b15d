import { defineAgent, defineConfig, defineKnowledge } from "./lib/config/define.ts";
import { modelFromEnv } from "./lib/config/model-from-env.ts";
import { readEnv } from "./lib/config/env.ts";
import { calculatorToolkit } from "./lib/runtime/tools/calculator/calculator.ts";
import { hostToolkit } from "./lib/runtime/tools/host/host.ts";

/**
 * Your AgentOS. Environment variables override what is set here (see the README's configuration
 * table). This sample has one agent whose model comes from the environment: with no provider
 * variables set it is still listed, and its runs fail with a message naming what to set. Its Host
 * tools show human-in-the-loop runs: server_details waits for the user's confirmation,
 * current_time asks the user for a time zone. Its knowledge base (Knowledge in the dashboard,
 * /knowledge in the API) is searched through its search_knowledge_base tool, each user seeing their
 * own contents and the shared ones; with no embedder configured it is searched by keyword.
 */
const handbook = defineKnowledge({ id: "handbook", name: "Handbook", description: "Documents the assistant looks things up in." });

export default defineConfig({
  name: "Agentry",
  agents: [
    defineAgent({
      id: "assistant",
      name: "Assistant",
      description: "A helpful general-purpose assistant.",
      model: modelFromEnv(readEnv()),
      instructions: ["Be concise and accurate.", "Say so when you do not know."],
      tools: [calculatorToolkit, hostToolkit],
      knowledge: handbook,
      addHistoryToContext: true,
      numHistoryRuns: 3,
    }),
  ],
});
