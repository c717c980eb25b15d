import { MODEL_ENV_HINT } from "../../config/model-from-env.ts";
import type { Settings } from "../../config/settings.ts";
import { MCP_PATH } from "../../config/mcp-settings.ts";
import { appState, databaseIds } from "../../server/app-context.ts";
import { defineRoute } from "../route.ts";
import { ConfigSchema, HealthSchema, InfoSchema, LandingSchema } from "../schemas/core.ts";
import { LEARNING_TABLES } from "./learnings.ts";
import { workflowSummary } from "./workflows.ts";

/** The Agno version whose wire contract Agentry implements. */
export const AGNO_VERSION = "3.0.0";

function wantsHtml(request: Request): boolean {
  const accept = request.headers.get("accept") ?? "";
  return accept.includes("text/html");
}

export const landing = defineRoute({
  method: "GET",
  path: "/",
  summary: "Landing: links to /health, /info and /docs; browsers go to the dashboard",
  tags: ["Core"],
  access: { public: true },
  hidden: true,
  response: LandingSchema,
  handler: ({ request, settings }) => {
    if (wantsHtml(request)) return new Response(null, { status: 307, headers: { location: "/dashboard" } });
    return { name: settings.name, health: "/health", info: "/info", ...(settings.docsEnabled ? { docs: "/docs" } : {}) };
  },
});

export const health = defineRoute({
  method: "GET",
  path: "/health",
  summary: "Health check",
  tags: ["Core"],
  access: { public: true },
  response: HealthSchema,
  handler: () => ({ status: "ok" as const, instantiated_at: appState().instantiatedAt }),
});

export const info = defineRoute({
  method: "GET",
  path: "/info",
  summary: "Public metadata about this AgentOS (the only unauthenticated metadata endpoint)",
  tags: ["Core"],
  access: { public: true },
  response: InfoSchema,
  handler: ({ settings }) => ({
    os_id: settings.osId,
    name: settings.name,
    os_version: settings.version,
    agno_version: AGNO_VERSION,
    agent_count: settings.agents.length + settings.externalAgents.length,
    team_count: settings.teams.length,
    workflow_count: settings.workflows.length,
    // Agno: the path is "/mcp" while the MCP server is on, else null; no OAuth provider (mcp_auth) here.
    mcp: settings.mcp.enabled ? { enabled: true, path: MCP_PATH, oauth: null } : { enabled: false, path: null, oauth: null },
    auth_mode: settings.auth.mode,
  }),
});

/** The table knowledge contents are kept in (Agno's `knowledge_table_name`), in the OS's database. */
const CONTENTS_TABLE = "agno_knowledge";

/** The unique models (id and provider) of the configured agents and teams, in the order first met (Agno's `_collect_unique_models`). */
export function availableModels(settings: Settings): { id: string; provider: string }[] {
  const models = new Map<string, { id: string; provider: string }>();
  for (const { model } of [...settings.agents, ...settings.teams]) {
    if (!model) continue;
    const key = JSON.stringify([model.id, model.provider]);
    if (!models.has(key)) models.set(key, { id: model.id, provider: model.provider });
  }
  return [...models.values()];
}

export const config = defineRoute({
  method: "GET",
  path: "/config",
  summary: "The AgentOS configuration: agents, databases, available models",
  tags: ["Core"],
  access: { permission: "config:read" },
  response: ConfigSchema,
  excludeNone: true,
  handler: ({ settings }) => {
    const models = availableModels(settings);
    const unconfigured = settings.agents.filter((a) => !a.model).map((a) => a.id);
    const dbId = settings.database.id;
    const domain = (tables: string[]) => ({ dbs: [{ db_id: dbId, domain_config: { display_name: null }, tables }] });
    return {
      os_id: settings.osId,
      name: settings.name,
      description: settings.description ?? null,
      available_models: models,
      model_provider_status: {
        configured: unconfigured.length === 0 && settings.agents.length > 0,
        message: unconfigured.length > 0 ? `No model provider is configured for agent(s) ${unconfigured.join(", ")}: ${MODEL_ENV_HINT}.` : null,
      },
      os_database: dbId,
      databases: databaseIds(settings),
      chat: Object.keys(settings.quickPrompts).length > 0 ? { quick_prompts: settings.quickPrompts } : null,
      session: domain(["agno_sessions", "agno_runs"]),
      memory: domain(["agno_memories"]),
      metrics: domain(["agno_metrics"]),
      evals: domain(["agno_eval_runs"]),
      // Agno's `_get_traces_config`: the OS's database alone, named after itself, without tables.
      traces: { dbs: [{ db_id: dbId, domain_config: { display_name: dbId } }] },
      learning: domain([...LEARNING_TABLES]),
      knowledge: {
        ...domain([CONTENTS_TABLE]),
        knowledge_instances: settings.knowledge.bases.map((base) => ({
          id: base.id,
          name: base.name,
          db_id: dbId,
          table: CONTENTS_TABLE,
          description: base.description ?? null,
          search_types: settings.knowledge.embedder ? ["vector", "keyword", "hybrid"] : ["keyword"],
        })),
      },
      agents: [
        ...settings.agents.map((agent) => ({
          id: agent.id,
          name: agent.name,
          description: agent.description ?? null,
          db_id: dbId,
          model: { id: agent.model?.id ?? null, provider: agent.model?.provider ?? null },
          metadata: agent.metadata ?? null,
        })),
        // Agents another framework runs (lib/runtime/external/): no model of theirs, their framework in metadata.
        ...settings.externalAgents.map((agent) => ({
          id: agent.id,
          name: agent.name,
          description: agent.description ?? null,
          db_id: dbId,
          model: { id: null, provider: null },
          metadata: { framework: agent.framework },
        })),
      ],
      teams: settings.teams.map((team) => ({
        id: team.id,
        name: team.name,
        description: team.description ?? null,
        db_id: dbId,
        mode: team.mode ?? "coordinate",
        model: { id: team.model?.id ?? null, provider: team.model?.provider ?? null },
      })),
      workflows: settings.workflows.map((w) => workflowSummary(w, settings)),
      interfaces: [],
    };
  },
});
