import { z } from "zod";
import { boundUserId, runsPath, withComponentNotFound, type ComponentType } from "../component-runs.ts";
import { runToolResult } from "../run-result.ts";
import { followRunStream } from "../run-stream.ts";
import { callRoute } from "../route-call.ts";
import type { ToolContext } from "../tool-context.ts";
import { ANNOTATIONS, handled, type ToolRegistry } from "./register.ts";

interface ComponentArgs {
  run_id: string;
  session_id?: string | null;
  agent_id?: string | null;
  team_id?: string | null;
  workflow_id?: string | null;
}

const COMPONENT_ARGS = {
  run_id: z.string().min(1),
  session_id: z.string().nullish(),
  agent_id: z.string().nullish(),
  team_id: z.string().nullish(),
  workflow_id: z.string().nullish(),
};

/**
 * The run's component (exactly one of agent_id, team_id, workflow_id), checked as Agno checks it:
 * a caller confined to its own rows must name the session (the route then checks it is theirs);
 * with the lifecycle tools riding along with exposed agents, only those agents' runs.
 */
function componentOf(tool: string, args: ComponentArgs, context: ToolContext, ridesAlongWith: Set<string> | null): { type: ComponentType; id: string } {
  const given = (["agent_id", "team_id", "workflow_id"] as const).filter((k) => args[k]);
  if (given.length !== 1) throw new Error("Provide exactly one of agent_id, team_id, or workflow_id");
  const key = given[0];
  const type = key.slice(0, -3) as ComponentType;
  const id = args[key] as string;
  if (ridesAlongWith && !(type === "agent" && ridesAlongWith.has(id))) {
    throw new Error(`${tool} on this server only acts on runs of its published components; ${type} '${id}' is not one of them. Use the REST API to manage other components' runs.`);
  }
  if (!context.principal.isAdmin && !args.session_id) throw new Error("session_id is required to act on this run");
  return { type, id };
}

/** Agno's lifecycle tools (tags core and lifecycle): continue_run and cancel_run. */
export function registerLifecycleTools({ server, settings, enabled }: ToolRegistry, exposedAgents: Set<string>): void {
  const ridesAlongWith = enabled.lifecycleRidesAlong ? exposedAgents : null;
  if (enabled.builtin.has("continue_run")) {
    server.registerTool(
      "continue_run",
      {
        title: "Continue Paused Run",
        description:
          "Continue a paused run with the decisions for its requirements (confirmations, user input, external results): pass the requirements the paused run returned, each with its decision.",
        inputSchema: {
          ...COMPONENT_ARGS,
          requirements: z.array(z.record(z.string(), z.unknown())).nullish(),
          user_id: z.string().nullish(),
        },
        annotations: ANNOTATIONS.run,
      },
      handled(async (args: ComponentArgs & { requirements?: Record<string, unknown>[] | null; user_id?: string | null }, context) => {
        const { type, id } = componentOf("continue_run", args, context, ridesAlongWith);
        const requirements = args.requirements ? JSON.stringify(args.requirements) : undefined;
        try {
          const run = await followRunStream({
            settings,
            principal: context.principal,
            context,
            call: {
              method: "POST",
              path: runsPath(type, id, `/${encodeURIComponent(args.run_id)}/continue`),
              form: {
                session_id: args.session_id,
                user_id: boundUserId(context, args.user_id),
                ...(type === "workflow" ? { step_requirements: requirements } : { requirements }),
              },
            },
          });
          return runToolResult(run, { continueRunServed: true });
        } catch (error) {
          throw withComponentNotFound(error, type, id);
        }
      }),
    );
  }
  if (enabled.builtin.has("cancel_run")) {
    server.registerTool(
      "cancel_run",
      {
        title: "Cancel Run",
        description: "Cancel a run (the intent is kept even if the run has not started yet).",
        inputSchema: COMPONENT_ARGS,
        annotations: ANNOTATIONS.cancel,
      },
      handled(async (args: ComponentArgs, context) => {
        const { type, id } = componentOf("cancel_run", args, context, ridesAlongWith);
        let answer: { cancelled?: false; message?: string };
        try {
          answer = await callRoute(settings, context.principal, {
            method: "POST",
            path: runsPath(type, id, `/${encodeURIComponent(args.run_id)}/cancel`),
            query: { session_id: args.session_id },
          });
        } catch (error) {
          throw withComponentNotFound(error, type, id);
        }
        const text = answer.cancelled === false && answer.message ? answer.message : `Run ${args.run_id} cancellation requested`;
        return { content: [{ type: "text", text }], structuredContent: { result: text } };
      }),
    );
  }
}
