import { defineAgent, defineConfig, defineKnowledge, defineTeam } from "./lib/config/define.ts";
import { defineWorkflow, step } from "./lib/config/workflow.ts";
import { modelFromEnv } from "./lib/config/model-from-env.ts";
import { readEnv } from "./lib/config/env.ts";
import { calculatorToolkit } from "./lib/runtime/tools/calculator/calculator.ts";
import { hostToolkit } from "./lib/runtime/tools/host/host.ts";
import { mcpTools } from "./lib/runtime/tools/mcp/mcp-tools.ts";
import { workspaceToolkit } from "./lib/runtime/tools/workspace/workspace.ts";
import { webSearchFromEnv } from "./lib/config/web-search-from-env.ts";
import { webSearchTools } from "./lib/runtime/tools/websearch/websearch.ts";
// The Playwright run's LangGraph agent; none unless AGENTRY_E2E_EXTERNAL_AGENT=1 (playwright.config.ts).
import { e2eExternalAgents } from "./e2e/fixtures/external-agents.ts";

/**
 * Your AgentOS. Environment variables override what is set here (see the README's configuration
 * table). This sample has one agent whose model comes from the environment: with no provider
 * variables set it is still listed, and its runs fail with a message naming what to set. Its Host
 * tools show human-in-the-loop runs: server_details waits for the user's confirmation,
 * current_time asks the user for a time zone. Its knowledge base (Knowledge in the dashboard,
 * /knowledge in the API) is searched through its search_knowledge_base tool, each user seeing their
 * own contents and the shared ones; with no embedder configured it is searched by keyword.
 * The Research desk team shows a team: its leader hands the question to an analyst (who can
 * calculate) and a writer, and answers with what they found. The Brief workflow shows a workflow:
 * the analyst works out the facts, the writer drafts, and a person approves before it is filed.
 * The Wordsmith shows an agent using an MCP server: the sample one in bin/ over stdio, started
 * for each user at their first run that needs it (Admin → MCP servers shows its connections).
 * The Companion learns about each user as they talk (`learning: true`: a profile and memories,
 * extracted in the background); each user sees and corrects it on the dashboard's "What agents
 * know" page.
 * Web search (Agno's WebSearchTools: web_search and search_news) is off unless AGENTRY_WEB_SEARCH
 * names a backend — duckduckgo (no key), brave (BRAVE_API_KEY), tavily (TAVILY_API_KEY) or
 * searxng (SEARXNG_URL); then the assistant searches with it and the registry offers it to Studio.
 * The registry is what Studio's agents, teams and workflows (made in the dashboard or through
 * /components) may use: the environment's model, the Calculator for everyone, and — for admins
 * only — the Host tools, a Workspace (one directory every user's agents would share) and the
 * sample MCP server; every knowledge base above, an output schema and a named learning machine.
 */
const handbook = defineKnowledge({ id: "handbook", name: "Handbook", description: "Documents the assistant looks things up in." });
const model = modelFromEnv(readEnv());
const webSearchOptions = webSearchFromEnv(readEnv());
const webSearch = webSearchOptions ? [webSearchTools(webSearchOptions)] : [];
const analyst = defineAgent({
  id: "analyst",
  name: "Analyst",
  description: "Works out facts and figures, with a calculator.",
  model,
  instructions: "Answer with the facts and figures asked for, and how you got them.",
  tools: [calculatorToolkit],
});
/** The sample MCP server over stdio (one toolkit instance: the Wordsmith uses it, and admins may give it to Studio agents). */
const sampleTextTools = mcpTools({ id: "sample-text-tools", name: "Sample text tools", command: "node", args: ["bin/sample-mcp-server.mjs"] });
const writer = defineAgent({
  id: "writer",
  name: "Writer",
  description: "Turns notes into a short, clear answer.",
  model,
  instructions: "Write plainly and briefly.",
});

export default defineConfig({
  name: "Agentry",
  agents: [
    defineAgent({
      id: "assistant",
      name: "Assistant",
      description: "A helpful general-purpose assistant.",
      model,
      instructions: ["Be concise and accurate.", "Say so when you do not know."],
      tools: [calculatorToolkit, hostToolkit, ...webSearch],
      knowledge: handbook,
      addHistoryToContext: true,
      numHistoryRuns: 3,
    }),
    defineAgent({
      id: "companion",
      name: "Companion",
      description: "Gets to know you: learns your name and what you tell it about yourself, and remembers it in later conversations.",
      model,
      instructions: "Be friendly and brief; use what you know about the user naturally.",
      learning: true,
    }),
    defineAgent({
      id: "wordsmith",
      name: "Wordsmith",
      description: "Counts and rewrites text with the tools of a sample MCP server.",
      model,
      instructions: "Use your text tools for counting and changing case; report their results exactly.",
      tools: [sampleTextTools],
    }),
    ...e2eExternalAgents(),
  ],
  workflows: [
    defineWorkflow({
      id: "brief",
      name: "Brief",
      description: "Facts from the analyst, a draft from the writer, filed once a person approves it.",
      steps: [
        analyst,
        writer,
        step({
          name: "file",
          description: "Files the approved draft in the session state.",
          executor: function file(input, _ctx) {
            const filed = (input.session_state.filed as string[] | undefined) ?? [];
            input.session_state.filed = [...filed, String(input.previous_step_content ?? "")];
            return `Filed: ${String(input.previous_step_content ?? "")}`;
          },
          humanReview: { requiresConfirmation: true, confirmationMessage: "File this draft?", onReject: "skip" },
        }),
      ],
    }),
  ],
  registry: {
    toolkits: [
      calculatorToolkit,
      // Admin-only by default: the Host toolkit and MCP toolkits; said here for the Workspace, whose directory is shared.
      hostToolkit,
      { toolkit: workspaceToolkit({ root: "./data/workspace" }), membersMayAttach: false },
      sampleTextTools,
      ...webSearch,
    ],
    schemas: [
      {
        name: "Answer with sources",
        description: "An answer and the sources it rests on.",
        schema: {
          type: "object",
          properties: { answer: { type: "string" }, sources: { type: "array", items: { type: "string" } } },
          required: ["answer", "sources"],
        },
      },
    ],
    learning: [{ name: "Profile and memories", userProfile: true, userMemory: true }],
  },
  teams: [
    defineTeam({
      id: "research-desk",
      name: "Research desk",
      description: "An analyst and a writer, coordinated by a leader.",
      model,
      members: [analyst, writer],
      instructions: "Ask the analyst for facts and figures, the writer for the final wording when it helps.",
      addHistoryToContext: true,
    }),
  ],
});
