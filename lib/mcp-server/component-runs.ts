import type { Settings } from "../config/settings.ts";
import { runToolResult, type ToolAnswer } from "./run-result.ts";
import { followRunStream } from "./run-stream.ts";
import { RouteRefusal } from "./route-call.ts";
import type { ToolContext } from "./tool-context.ts";

export type ComponentType = "agent" | "team" | "workflow";

const BASE = { agent: "/agents", team: "/teams", workflow: "/workflows" } as const;
const TITLE = { agent: "Agent", team: "Team", workflow: "Workflow" } as const;

/** A run route's path: `/agents/{id}/runs…`. */
export function runsPath(type: ComponentType, id: string, rest = ""): string {
  return `${BASE[type]}/${encodeURIComponent(id)}/runs${rest}`;
}

/**
 * The user a run is attributed to (Agno's `_resolve_user_id`): the caller's own identity whenever
 * it has one — a user_id argument is then ignored — and the argument only for callers with no
 * identity (auth off, the security key).
 */
export function boundUserId(context: ToolContext, requested: string | null | undefined): string | undefined {
  return context.principal.userId ?? (requested || undefined);
}

/** Agno's not-found text for a component (`Agent writer not found`) in place of the route's. */
export function withComponentNotFound(error: unknown, type: ComponentType, id: string): unknown {
  if (error instanceof RouteRefusal && error.status === 404 && error.message === `${TITLE[type]} not found`) return new RouteRefusal(404, `${TITLE[type]} ${id} not found`);
  return error;
}

/** Runs a component for the MCP caller through its REST run route and answers with Agno's run-tool result. */
export async function runComponent({
  settings,
  context,
  type,
  id,
  message,
  sessionId,
  userId,
  continueRunServed,
}: {
  settings: Settings;
  context: ToolContext;
  type: ComponentType;
  id: string;
  message: string;
  sessionId?: string | null;
  userId?: string | null;
  continueRunServed: boolean;
}): Promise<ToolAnswer> {
  try {
    const run = await followRunStream({
      settings,
      principal: context.principal,
      context,
      call: { method: "POST", path: runsPath(type, id), form: { message, session_id: sessionId || undefined, user_id: boundUserId(context, userId) } },
    });
    return runToolResult(run, { continueRunServed });
  } catch (error) {
    throw withComponentNotFound(error, type, id);
  }
}
