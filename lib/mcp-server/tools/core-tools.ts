import { z } from "zod";
import { hasScope, type Principal } from "../../auth/principal.ts";
import type { Settings } from "../../config/settings.ts";
import { runComponent, type ComponentType } from "../component-runs.ts";
import { jsonToolResult } from "../run-result.ts";
import { callRoute } from "../route-call.ts";
import { storedComponentsOf } from "../stored-components.ts";
import { ANNOTATIONS, handled, handledNoArgs, type ToolRegistry } from "./register.ts";

type Json = Record<string, unknown>;

const RUN_TOOLS: { name: "run_agent" | "run_team" | "run_workflow"; type: ComponentType; idArg: "agent_id" | "team_id" | "workflow_id"; title: string; what: string }[] = [
  { name: "run_agent", type: "agent", idArg: "agent_id", title: "Run Agent", what: "an agent" },
  { name: "run_team", type: "team", idArg: "team_id", title: "Run Team", what: "a team" },
  { name: "run_workflow", type: "workflow", idArg: "workflow_id", title: "Run Workflow", what: "a workflow" },
];

/** A model as /config summarizes it, from a list route's `{model, provider}`. */
function modelSummary(model: unknown): { id: unknown; provider: unknown } {
  const m = (model ?? {}) as Json;
  return { id: m.model ?? m.id ?? null, provider: m.provider ?? null };
}

/**
 * The stored (Studio) components the caller may see, summarized as /config summarizes the
 * code-defined ones (agents: id, name, description, db_id, model, metadata; teams: mode instead of
 * metadata; workflows: the workflow summary with `is_component`, `current_version` and `stage`),
 * read from GET /agents, /teams and /workflows as the caller.
 */
async function storedSummaries(settings: Settings, principal: Principal): Promise<{ agents: Json[]; teams: Json[]; workflows: Json[] }> {
  const [agents, teams, workflows] = await Promise.all((["agent", "team", "workflow"] as const).map((type) => storedComponentsOf(settings, principal, type)));
  const base = (c: Json) => ({ id: c.id, name: c.name ?? null, description: c.description ?? null, db_id: c.db_id ?? settings.database.id });
  return {
    agents: agents.map((a) => ({ ...base(a), model: modelSummary(a.model), metadata: a.metadata ?? null })),
    teams: teams.map((t) => ({ ...base(t), mode: t.mode ?? null, model: modelSummary(t.model) })),
    workflows: workflows.map((w) => ({ ...base(w), is_component: true, current_version: w.current_version ?? null, stage: w.stage ?? null })),
  };
}

/** Agno's core tools: get_agentos_config and the three run tools. */
export function registerCoreTools({ server, settings, enabled }: ToolRegistry): void {
  if (enabled.builtin.has("get_agentos_config")) {
    server.registerTool(
      "get_agentos_config",
      {
        title: "Get AgentOS Configuration",
        description: "Get the AgentOS configuration: its id, description, databases, and the agents, teams and workflows you may run — those defined in code and the stored (Studio) ones.",
        annotations: ANNOTATIONS.config,
      },
      handledNoArgs(async (context) => {
        // /config lists the components defined in code (as Agno's does); the stored ones follow them.
        const config = await callRoute<Json>(settings, context.principal, { method: "GET", path: "/config" });
        const stored = await storedSummaries(settings, context.principal);
        // The roster as the caller may see it (per-resource scopes), as Agno filters it.
        const visible = (family: string, list: unknown) => (Array.isArray(list) ? list : []).filter((c: Json) => hasScope(context.principal, `${family}:${String(c.id)}:read`));
        return jsonToolResult({
          os_id: config.os_id ?? "AgentOS",
          description: config.description ?? null,
          databases: config.databases ?? [],
          agents: [...visible("agents", config.agents), ...stored.agents],
          teams: [...visible("teams", config.teams), ...stored.teams],
          workflows: [...visible("workflows", config.workflows), ...stored.workflows],
        });
      }),
    );
  }
  for (const tool of RUN_TOOLS) {
    if (!enabled.builtin.has(tool.name)) continue;
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: `Run ${tool.what} with a message and wait for its answer. Pass the returned session_id back to continue the conversation; omit it to start a new one.`,
        inputSchema: {
          [tool.idArg]: z.string().min(1),
          message: z.string().min(1),
          user_id: z.string().nullish(),
          session_id: z.string().nullish(),
        } as Record<string, z.ZodType>,
        annotations: ANNOTATIONS.run,
      },
      handled(async (args: Record<string, unknown>, context) =>
        runComponent({
          settings,
          context,
          type: tool.type,
          id: String(args[tool.idArg]),
          message: String(args.message),
          sessionId: args.session_id as string | null | undefined,
          userId: args.user_id as string | null | undefined,
          continueRunServed: enabled.builtin.has("continue_run"),
        }),
      ),
    );
  }
}
