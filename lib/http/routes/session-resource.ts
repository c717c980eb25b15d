import { getSession, getSessionRuns } from "../../db/index.ts";
import type { Db } from "../../db/open-database.ts";
import type { DataScope } from "../../db/scope.ts";
import type { SessionType } from "../../db/sessions/sessions.ts";
import { HttpError } from "../../errors/http-error.ts";
import type { DataLoaderContext } from "../route.ts";
import { toSessionRun } from "../views/run-views.ts";

/**
 * The session a request names, as route `resource` loaders: read in the request's scope (another
 * user's session is as missing as an unknown one), 404 in Agno's words otherwise. Shared by the
 * session routes, their run routes and the component run listing.
 */

export const sessionNotFound = (sessionId: string) => new HttpError(404, `Session with ID ${sessionId} not found`);

/** The session with its runs, or its 404. */
export async function sessionOr404(db: Db, options: { scope: DataScope; sessionId: string; sessionType?: SessionType }) {
  const session = await getSession(db, options);
  if (!session) throw sessionNotFound(options.sessionId);
  return session;
}

type SessionPath = { params: { session_id: string }; query: { type?: SessionType } };

/** The path's session (its type when the query names one). */
export async function pathSession({ params, query }: SessionPath, { data }: DataLoaderContext) {
  const { db, scope } = await data();
  return sessionOr404(db, { scope, sessionId: params.session_id, sessionType: query.type });
}

/** The path's session with its runs, within the query's created_after/created_before when given. */
export async function pathSessionRuns({ params, query }: SessionPath & { query: { created_after?: number; created_before?: number } }, { data }: DataLoaderContext) {
  const { db, scope } = await data();
  const session = await getSessionRuns(db, { scope, sessionId: params.session_id, sessionType: query.type, createdAfter: query.created_after, createdBefore: query.created_before });
  if (!session) throw sessionNotFound(params.session_id);
  return session;
}

/** One run of the path's session, as the session's type shows it; 404 naming both otherwise. */
export async function pathSessionRun(input: SessionPath & { params: { run_id: string } }, context: DataLoaderContext) {
  const session = await pathSessionRuns(input, context);
  const run = session.runs.find((r) => r.run_id === input.params.run_id);
  const shown = run ? toSessionRun(run, session.session_type) : null;
  if (!shown) throw new HttpError(404, `Run with ID ${input.params.run_id} not found in session ${input.params.session_id}`);
  return shown;
}
