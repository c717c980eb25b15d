import { z } from "zod";
import { hasScope } from "../../auth/principal.ts";
import { runComponent, type ComponentType } from "../component-runs.ts";
import { jsonToolResult } from "../run-result.ts";
import { callRoute } from "../route-call.ts";
import { ANNOTATIONS, handled, handledNoArgs, type ToolRegistry } from "./register.ts";

type Json = Record<string, unknown>;

const RUN_TOOLS: { name: "run_agent" | "run_team" | "run_workflow"; type: ComponentType; idArg: "agent_id" | "team_id" | "workflow_id"; title: string; what: string }[] = [
  { name: "run_agent", type: "agent", idArg: "agent_id", title: "Run Agent", what: "an agent" },
  { name: "run_team", type: "team", idArg: "team_id", title: "Run Team", what: "a team" },
  { name: "run_workflow", type: "workflow", idArg: "workflow_id", title: "Run Workflow", what: "a workflow" },
];

/** Agno's core tools: get_agentos_config and the three run tools. */
export function registerCoreTools({ server, settings, enabled }: ToolRegistry): void {
  const continueRunServed = enabled.builtin.has("continue_run");
  if (enabled.builtin.has("get_agentos_config")) {
    server.registerTool(
      "get_agentos_config",
      {
        title: "Get AgentOS Configuration",
        description: "Get the AgentOS configuration: its id, description, databases, and the agents, teams and workflows it serves.",
        annotations: ANNOTATIONS.config,
      },
      handledNoArgs(async (context) => {
        const config = await callRoute<Json>(settings, context.principal, { method: "GET", path: "/config" });
        // The roster as the caller may see it (per-resource scopes), as Agno filters it.
        const visible = (family: string, list: unknown) => (Array.isArray(list) ? list : []).filter((c: Json) => hasScope(context.principal, `${family}:${String(c.id)}:read`));
        return jsonToolResult({
          os_id: config.os_id ?? "AgentOS",
          description: config.description ?? null,
          databases: config.databases ?? [],
          agents: visible("agents", config.agents),
          teams: visible("teams", config.teams),
          workflows: visible("workflows", config.workflows),
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
          continueRunServed,
        }),
      ),
    );
  }
}
