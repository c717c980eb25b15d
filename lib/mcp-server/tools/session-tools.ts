import { z } from "zod";
import { boundUserId } from "../component-runs.ts";
import { jsonToolResult } from "../run-result.ts";
import { callRoute, RouteRefusal } from "../route-call.ts";
import { ANNOTATIONS, handled, type ToolRegistry } from "./register.ts";

type Json = Record<string, unknown>;

const SessionType = z.enum(["agent", "team", "workflow"]);
/** The keys get_session_runs keeps of each run (Agno's trimmed history), when not null. */
const TRIMMED_RUN_KEYS = ["run_id", "run_input", "content", "status", "created_at", "agent_id", "team_id", "workflow_id"] as const;

/** Agno's MCP wording for a missing session, in place of the route's. */
function sessionNotFound(error: unknown, sessionId: string): unknown {
  if (error instanceof RouteRefusal && error.status === 404 && error.message === `Session with ID ${sessionId} not found`) return new RouteRefusal(404, `Session ${sessionId} not found`);
  return error;
}

function trimmed(run: Json): Json {
  return Object.fromEntries(TRIMMED_RUN_KEYS.filter((k) => run[k] !== undefined && run[k] !== null).map((k) => [k, run[k]]));
}

/**
 * The session tools (tag session): get_sessions and get_session_runs (Agno's current tools), and
 * get_session and create_session (Agno 2.x's, with db_id optional). Reads pass `user_id` to the
 * route, which confines a non-admin to its own sessions whatever it names (Agno's
 * `_scoped_read_user_id`); create_session binds it to the caller's identity like the run tools.
 */
export function registerSessionTools({ server, settings, enabled }: ToolRegistry): void {
  if (enabled.builtin.has("get_sessions")) {
    server.registerTool(
      "get_sessions",
      {
        title: "List Sessions",
        description: "List sessions, newest first by default: filter by type, component and name; paginated.",
        inputSchema: {
          session_type: SessionType.default("agent"),
          component_id: z.string().nullish(),
          user_id: z.string().nullish(),
          session_name: z.string().nullish(),
          limit: z.number().int().min(1).default(20),
          page: z.number().int().min(1).default(1),
          sort_by: z.string().default("created_at"),
          sort_order: z.enum(["asc", "desc"]).default("desc"),
          db_id: z.string().nullish(),
        },
        annotations: ANNOTATIONS.session,
      },
      handled(async (args, context) => {
        const page = await callRoute<{ data: Json[]; meta: Json }>(settings, context.principal, {
          method: "GET",
          path: "/sessions",
          query: {
            type: args.session_type,
            component_id: args.component_id,
            user_id: args.user_id,
            session_name: args.session_name,
            limit: args.limit,
            page: args.page,
            sort_by: args.sort_by,
            sort_order: args.sort_order,
            db_id: args.db_id,
          },
        });
        const totalCount = Number(page.meta.total_count ?? 0);
        return jsonToolResult({ data: page.data, meta: { page: args.page, limit: args.limit, total_count: totalCount, total_pages: Math.floor((totalCount + args.limit - 1) / args.limit) } });
      }),
    );
  }
  if (enabled.builtin.has("get_session_runs")) {
    server.registerTool(
      "get_session_runs",
      {
        title: "Read Session History",
        description: "Read a session's runs in order (each trimmed to its input, content and status); with run_id, that one run in full.",
        inputSchema: {
          session_id: z.string().min(1),
          run_id: z.string().nullish(),
          session_type: SessionType.nullish(),
          user_id: z.string().nullish(),
          db_id: z.string().nullish(),
        },
        annotations: ANNOTATIONS.session,
      },
      handled(async (args, context) => {
        let runs: Json[];
        try {
          runs = await callRoute<Json[]>(settings, context.principal, {
            method: "GET",
            path: `/sessions/${encodeURIComponent(args.session_id)}/runs`,
            query: { type: args.session_type, user_id: args.user_id, db_id: args.db_id },
          });
        } catch (error) {
          throw sessionNotFound(error, args.session_id);
        }
        if (args.run_id) {
          const run = runs.find((r) => r.run_id === args.run_id);
          if (!run) throw new Error(`Run ${args.run_id} not found in session ${args.session_id}`);
          return jsonToolResult([run]);
        }
        return jsonToolResult(runs.map(trimmed));
      }),
    );
  }
  if (enabled.builtin.has("get_session")) {
    server.registerTool(
      "get_session",
      {
        title: "Get Session",
        description: "One session with its details (name, state, metadata, summary, metrics).",
        inputSchema: {
          session_id: z.string().min(1),
          db_id: z.string().nullish(),
          session_type: SessionType.default("agent"),
          user_id: z.string().nullish(),
        },
        annotations: ANNOTATIONS.session,
      },
      handled(async (args, context) => {
        try {
          const session = await callRoute<Json>(settings, context.principal, {
            method: "GET",
            path: `/sessions/${encodeURIComponent(args.session_id)}`,
            query: { type: args.session_type, user_id: args.user_id, db_id: args.db_id },
          });
          return jsonToolResult(session);
        } catch (error) {
          throw sessionNotFound(error, args.session_id);
        }
      }),
    );
  }
  if (enabled.builtin.has("create_session")) {
    server.registerTool(
      "create_session",
      {
        title: "Create Session",
        description: "Create an empty session (for an agent, team or workflow) to run in later; an existing session_id is refused.",
        inputSchema: {
          db_id: z.string().nullish(),
          session_type: SessionType.default("agent"),
          session_id: z.string().nullish(),
          session_name: z.string().nullish(),
          session_state: z.record(z.string(), z.unknown()).nullish(),
          metadata: z.record(z.string(), z.unknown()).nullish(),
          user_id: z.string().nullish(),
          agent_id: z.string().nullish(),
          team_id: z.string().nullish(),
          workflow_id: z.string().nullish(),
        },
        annotations: ANNOTATIONS.sessionWrite,
      },
      handled(async (args, context) => {
        const session = await callRoute<Json>(settings, context.principal, {
          method: "POST",
          path: "/sessions",
          query: { type: args.session_type, db_id: args.db_id },
          json: {
            session_id: args.session_id ?? undefined,
            session_name: args.session_name ?? undefined,
            session_state: args.session_state ?? undefined,
            metadata: args.metadata ?? undefined,
            user_id: boundUserId(context, args.user_id),
            agent_id: args.agent_id ?? undefined,
            team_id: args.team_id ?? undefined,
            workflow_id: args.workflow_id ?? undefined,
          },
        });
        return jsonToolResult(session);
      }),
    );
  }
}
