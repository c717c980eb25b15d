import { defineRoute } from "../route.ts";
import { AnyRunSchema, SessionParams, SessionQuery, SessionRunParams, SessionRunsQuery, SessionRunsSchema } from "../schemas/sessions.ts";
import { toSessionRun } from "../views/run-views.ts";
import { pathSessionRun, pathSessionRuns } from "./session-resource.ts";
import { SESSION_DATA } from "./sessions.ts";

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
  resource: pathSessionRuns,
  handler: ({ resource: session }) => session.runs.map((run) => toSessionRun(run, session.session_type)).filter((run) => run !== null),
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
  resource: pathSessionRun,
  handler: ({ resource: run }) => run,
});

export const SESSION_RUN_ROUTES = [listSessionRunsRoute, getSessionRunRoute];
