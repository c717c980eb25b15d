import { getSessionRuns } from "../../db/index.ts";
import { HttpError } from "../../errors/http-error.ts";
import { defineRoute } from "../route.ts";
import { AnyRunSchema, SessionParams, SessionQuery, SessionRunParams, SessionRunsQuery, SessionRunsSchema } from "../schemas/sessions.ts";
import { toSessionRun } from "../views/run-views.ts";
import { SESSION_DATA, sessionNotFound } from "./sessions.ts";

/** The runs of a session, as agent-ui's history view reads them (sessions:read). */

const TAGS = ["Sessions"];

export const listSessionRunsRoute = defineRoute({
  method: "GET",
  path: "/sessions/{session_id}/runs",
  summary: "A session's runs in order, optionally within created_after/created_before (epoch seconds)",
  tags: TAGS,
  access: { permission: "sessions:read" },
  params: SessionParams,
  query: SessionRunsQuery,
  response: SessionRunsSchema,
  excludeNone: true,
  data: SESSION_DATA,
  handler: async ({ input: { params, query }, scope, db }) => {
    const session = await getSessionRuns(db, {
      scope,
      sessionId: params.session_id,
      sessionType: query.type,
      createdAfter: query.created_after,
      createdBefore: query.created_before,
    });
    if (!session) throw sessionNotFound(params.session_id);
    return session.runs.map((run) => toSessionRun(run, session.session_type)).filter((run) => run !== null);
  },
});

export const getSessionRunRoute = defineRoute({
  method: "GET",
  path: "/sessions/{session_id}/runs/{run_id}",
  summary: "One run of a session",
  tags: TAGS,
  access: { permission: "sessions:read" },
  params: SessionRunParams,
  query: SessionQuery,
  response: AnyRunSchema,
  data: SESSION_DATA,
  handler: async ({ input: { params, query }, scope, db }) => {
    const session = await getSessionRuns(db, { scope, sessionId: params.session_id, sessionType: query.type });
    if (!session) throw sessionNotFound(params.session_id);
    const run = session.runs.find((r) => r.run_id === params.run_id);
    const shown = run ? toSessionRun(run, session.session_type) : null;
    if (!shown) throw new HttpError(404, `Run with ID ${params.run_id} not found in session ${params.session_id}`);
    return shown;
  },
});

export const SESSION_RUN_ROUTES = [listSessionRunsRoute, getSessionRunRoute];
