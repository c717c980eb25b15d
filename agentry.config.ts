import { defineAgent, defineConfig } from "./lib/config/define.ts";
import { modelFromEnv } from "./lib/config/model-from-env.ts";
import { readEnv } from "./lib/config/env.ts";
import { calculatorToolkit } from "./lib/runtime/tools/calculator/calculator.ts";
import { hostToolkit } from "./lib/runtime/tools/host/host.ts";

/**
 * Your AgentOS. Environment variables override what is set here (see the README's configuration
 * table). This sample has one agent whose model comes from the environment: with no provider
 * variables set it is still listed, and its runs fail with a message naming what to set. Its Host
 * tools show human-in-the-loop runs: server_details waits for the user's confirmation,
 * current_time asks the user for a time zone.
 */
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
      addHistoryToContext: true,
      numHistoryRuns: 3,
    }),
  ],
});
