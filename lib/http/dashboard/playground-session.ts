import "server-only";
import { notFound } from "next/navigation";
import { dataScopeFor, hasScope } from "../../auth/principal.ts";
import { getSessionRuns } from "../../db/sessions/session-runs.ts";
import type { Settings } from "../../config/settings.ts";
import { requireDashboardSession } from "./current-user.ts";
import { firstParam, type SearchParams } from "./search-params.ts";

/** One earlier turn of the session a playground continues, as its transcript shows it. */
export interface PlaygroundTurn {
  runId: unknown;
  input: unknown;
  output: unknown;
}

/**
 * An agent's or team's playground request: the signed-in user, who must be able to read the
 * component (else 404), and the session `?session_id=` continues — one of the user's sessions of
 * this very component (another's, or another component's, is a 404). A team's turns are its own
 * runs; its members' runs share the session, under them.
 */
export async function openPlayground<T>({
  kind,
  id,
  searchParams,
  find,
}: {
  kind: "agent" | "team";
  id: string;
  searchParams: Promise<SearchParams>;
  /** The component by id in the configuration (undefined: no such one). */
  find: (settings: Settings, id: string) => T | undefined;
}): Promise<{ component: T; settings: Settings; continued?: { id: string; history: PlaygroundTurn[] } }> {
  const session = await requireDashboardSession();
  const component = find(session.settings, id);
  if (component === undefined || !hasScope(session.principal, `${kind}s:${id}:read`)) notFound();
  const opened = { component, settings: session.settings };
  const sessionId = firstParam(await searchParams, "session_id");
  if (!sessionId) return opened;
  const stored = await getSessionRuns(session.db, { scope: dataScopeFor(session.principal), sessionId, sessionType: kind });
  if (!stored || (kind === "agent" ? stored.agent_id : stored.team_id) !== id) notFound();
  const history = stored.runs
    .filter((run) => kind === "agent" || !run.parent_run_id)
    .map((run) => ({ runId: run.run_id, input: (run.input as Record<string, unknown> | undefined)?.input_content, output: run.content }));
  return { ...opened, continued: { id: stored.session_id, history } };
}
