import "server-only";
import { notFound } from "next/navigation";
import { dataScopeFor, hasScope } from "../../auth/principal.ts";
import { getSessionRuns } from "../../db/sessions/session-runs.ts";
import type { Settings } from "../../config/settings.ts";
import { ComponentRehydrationError } from "../../errors/http-error.ts";
import type { RuntimeAgent } from "../../runtime/agents.ts";
import { resolveComponent } from "../../runtime/component-source.ts";
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
export async function openPlayground({
  kind,
  id,
  searchParams,
  find,
}: {
  kind: "agent" | "team";
  id: string;
  searchParams: Promise<SearchParams>;
  /** The component by id in the configuration (undefined: no such one). */
  find: (settings: Settings, id: string) => RuntimeAgent | undefined;
}): Promise<{ component: RuntimeAgent; settings: Settings; continued?: { id: string; history: PlaygroundTurn[] } }> {
  const session = await requireDashboardSession();
  const params = await searchParams;
  const component = find(session.settings, id) ?? (await storedComponentFor(session, kind, id, firstParam(params, "version")));
  if (component === undefined || !hasScope(session.principal, `${kind}s:${id}:read`)) notFound();
  const opened = { component, settings: session.settings };
  const sessionId = firstParam(params, "session_id");
  if (!sessionId) return opened;
  const stored = await getSessionRuns(session.db, { scope: dataScopeFor(session.principal), sessionId, sessionType: kind });
  if (!stored || (kind === "agent" ? stored.agent_id : stored.team_id) !== id) notFound();
  const history = stored.runs
    .filter((run) => kind === "agent" || !run.parent_run_id)
    .map((run) => ({ runId: run.run_id, input: (run.input as Record<string, unknown> | undefined)?.input_content, output: run.content }));
  return { ...opened, continued: { id: stored.session_id, history } };
}

/**
 * A stored (Studio) component the playground opens: `?version=` names one of its versions (a draft
 * for its owner or an admin: "Try it"), else its current published version. One that cannot be
 * built against the registry is a 404 here; its runs' 422 names what is missing.
 */
export async function storedComponentFor(
  session: Awaited<ReturnType<typeof requireDashboardSession>>,
  kind: "agent" | "team" | "workflow",
  id: string,
  version: string | undefined,
): Promise<RuntimeAgent | undefined> {
  const number = version !== undefined && /^\d{1,9}$/.test(version) ? Number(version) : undefined;
  if (version !== undefined && number === undefined) return undefined;
  const resolved = await resolveComponent(session.settings, session.db, { type: kind, id, version: number }, { userId: session.principal.userId, isAdmin: session.principal.isAdmin }).catch(
    (error: unknown) => {
      if (error instanceof ComponentRehydrationError) return undefined;
      throw error;
    },
  );
  return resolved?.agent;
}

/** The stored version (and its stage) a playground runs, for its summary; nothing for a component defined in code. */
export function storedVersionOf(component: RuntimeAgent): { version?: number; stage?: "draft" | "published" } {
  return component.stored ? { version: component.stored.version, stage: component.stored.stage } : {};
}
