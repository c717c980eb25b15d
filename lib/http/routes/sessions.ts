import { randomUUID } from "node:crypto";
import type { Settings } from "../../config/settings.ts";
import { createSession, deleteSessions, getSessionRuns, listSessions, updateSession } from "../../db/index.ts";
import type { SessionType } from "../../db/sessions/sessions.ts";
import { HttpError } from "../../errors/http-error.ts";
import { pageOf } from "../schemas/list-query.ts";
import { defineRoute } from "../route.ts";
import {
  CreateSessionBody,
  CreateSessionQuery,
  DeleteSessionsBody,
  ListSessionsQuery,
  RenameSessionBody,
  SessionDetailSchema,
  SessionListSchema,
  SessionParams,
  SessionQuery,
  UpdateSessionBody,
} from "../schemas/sessions.ts";
import { sessionName, toSessionDetail, toSessionSchema } from "../views/session-views.ts";
import { pathSession, sessionNotFound } from "./session-resource.ts";

/**
 * Agno's Sessions API: sessions:read / sessions:write / sessions:delete. The run
 * routes (/sessions/{id}/runs…) are in session-runs.ts.
 */

const TAGS = ["Sessions"];
export const SESSION_TABLES = ["agno_sessions", "agno_runs"] as const;
/** Sessions are read where Agno's `db_id`/`table` query picks; an admin acts for the query's `user_id`. */
export const SESSION_DATA = { db: { selectFrom: "query", tables: SESSION_TABLES }, userFrom: "query" } as const;

export const listSessionsRoute = defineRoute({
  method: "GET",
  path: "/sessions",
  summary: "List sessions (filter by type, component, user and name; paginated and sorted)",
  tags: TAGS,
  access: { permission: "sessions:read" },
  query: ListSessionsQuery,
  response: SessionListSchema,
  excludeNone: true,
  data: SESSION_DATA,
  handler: async ({ input: { query }, scope, db }) => {
    const started = performance.now();
    const { sessions, totalCount } = await listSessions(db, {
      scope,
      sessionType: query.type,
      componentId: query.component_id,
      sessionName: query.session_name,
      page: query.page,
      limit: query.limit,
      sortBy: query.sort_by,
      sortOrder: query.sort_order,
    });
    // A session without a stored name is named after its first input: its runs are read, for
    // those sessions only (at most one page of them).
    const data = await Promise.all(
      sessions.map(async (session) => {
        if (typeof session.session_data?.session_name === "string") return toSessionSchema(session, session.session_data.session_name);
        const withRuns = await getSessionRuns(db, { scope, sessionId: session.session_id });
        return toSessionSchema(session, sessionName(session, withRuns?.runs ?? []));
      }),
    );
    return pageOf(data, { page: query.page, limit: query.limit, totalCount, startedMs: started });
  },
});

/** agent_data / team_data for a new session of a configured agent or team (name and model), else null. */
function componentDataFor(settings: Settings, type: "agent" | "team", id: string | null | undefined) {
  const component = id ? (type === "agent" ? settings.agents : settings.teams).find((c) => c.id === id) : undefined;
  if (!component) return null;
  return { [`${type}_id`]: component.id, name: component.name, ...(component.model ? { model: { id: component.model.id, provider: component.model.provider } } : {}) };
}

export const createSessionRoute = defineRoute({
  method: "POST",
  path: "/sessions",
  summary: "Create an empty session (409 if the id exists)",
  tags: TAGS,
  access: { permission: "sessions:write" },
  query: CreateSessionQuery,
  body: CreateSessionBody,
  response: SessionDetailSchema,
  excludeNone: true,
  status: 201,
  data: { ...SESSION_DATA, userFrom: "body" },
  handler: async ({ input: { query, body }, scope, db, settings }) => {
    const sessionData: Record<string, unknown> = {};
    if (body.session_name !== undefined && body.session_name !== null) sessionData.session_name = body.session_name;
    if (body.session_state) sessionData.session_state = body.session_state;
    const type: SessionType = query.type;
    const created = await createSession(db, {
      scope,
      session: {
        sessionId: body.session_id ?? randomUUID(),
        sessionType: type,
        agentId: body.agent_id,
        teamId: body.team_id,
        workflowId: body.workflow_id,
        userId: body.user_id,
        sessionData,
        agentData: type === "agent" ? componentDataFor(settings, "agent", body.agent_id) : null,
        teamData: type === "team" ? componentDataFor(settings, "team", body.team_id) : null,
        metadata: body.metadata,
      },
    });
    return toSessionDetail({ ...created, runs: [] });
  },
});

export const deleteSessionsRoute = defineRoute({
  method: "DELETE",
  path: "/sessions",
  summary: "Delete several sessions and their runs",
  tags: TAGS,
  access: { permission: "sessions:delete" },
  query: SessionQuery.omit({ type: true }),
  body: DeleteSessionsBody,
  status: 204,
  data: SESSION_DATA,
  handler: async ({ input: { body }, scope, db }) => {
    if (body.session_ids.length !== body.session_types.length) {
      throw new HttpError(400, "session_ids and session_types must have the same length");
    }
    await deleteSessions(db, { scope, sessionIds: body.session_ids });
  },
});

export const getSessionRoute = defineRoute({
  method: "GET",
  path: "/sessions/{session_id}",
  summary: "One session with its chat history (type auto-detected when not given)",
  tags: TAGS,
  access: { permission: "sessions:read" },
  params: SessionParams,
  query: SessionQuery,
  response: SessionDetailSchema,
  excludeNone: true,
  data: SESSION_DATA,
  resource: pathSession,
  handler: ({ resource: session }) => toSessionDetail(session),
});

export const updateSessionRoute = defineRoute({
  method: "PATCH",
  path: "/sessions/{session_id}",
  summary: "Change a session's name, state, metadata or summary (runs are untouched)",
  tags: TAGS,
  access: { permission: "sessions:write" },
  params: SessionParams,
  query: SessionQuery,
  body: UpdateSessionBody,
  response: SessionDetailSchema,
  data: SESSION_DATA,
  handler: async ({ input: { params, query, body }, scope, db }) => {
    const updated = await updateSession(db, {
      scope,
      sessionId: params.session_id,
      sessionType: query.type,
      sessionName: body.session_name ?? undefined,
      sessionState: body.session_state ?? undefined,
      metadata: body.metadata ?? undefined,
      summary: body.summary ?? undefined,
    });
    if (!updated) throw sessionNotFound(params.session_id);
    return toSessionDetail(updated);
  },
});

export const deleteSessionRoute = defineRoute({
  method: "DELETE",
  path: "/sessions/{session_id}",
  summary: "Delete a session and its runs",
  tags: TAGS,
  access: { permission: "sessions:delete" },
  params: SessionParams,
  query: SessionQuery.omit({ type: true }),
  status: 204,
  data: SESSION_DATA,
  handler: async ({ input: { params }, scope, db }) => {
    const deleted = await deleteSessions(db, { scope, sessionIds: [params.session_id] });
    if (deleted === 0) throw sessionNotFound(params.session_id);
  },
});

export const renameSessionRoute = defineRoute({
  method: "POST",
  path: "/sessions/{session_id}/rename",
  summary: "Rename a session",
  tags: TAGS,
  access: { permission: "sessions:write" },
  params: SessionParams,
  query: SessionQuery,
  body: RenameSessionBody,
  response: SessionDetailSchema,
  data: SESSION_DATA,
  handler: async ({ input: { params, query, body }, scope, db }) => {
    const renamed = await updateSession(db, { scope, sessionId: params.session_id, sessionType: query.type, sessionName: body.session_name });
    if (!renamed) throw sessionNotFound(params.session_id);
    return toSessionDetail(renamed);
  },
});

export const SESSION_ROUTES = [listSessionsRoute, createSessionRoute, deleteSessionsRoute, getSessionRoute, updateSessionRoute, deleteSessionRoute, renameSessionRoute];
