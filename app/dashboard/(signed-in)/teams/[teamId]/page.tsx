import { notFound } from "next/navigation";
import { displayText } from "@/components/dashboard/format.ts";
import { agentSummary } from "@/components/dashboard/playground/agent-summary.ts";
import { Playground } from "@/components/dashboard/playground/playground.tsx";
import { dataScopeFor, hasScope } from "@/lib/auth/principal.ts";
import { getSessionRuns } from "@/lib/db/sessions/session-runs.ts";
import { firstParam, type SearchParams } from "@/lib/http/dashboard/list-params.ts";
import { requireDashboardSession } from "@/lib/http/dashboard/current-user.ts";
import { teamResponse } from "@/lib/http/routes/teams.ts";
import { findTeam } from "@/lib/runtime/team/team-runtime.ts";

export const dynamic = "force-dynamic";

/**
 * Chat with one team; a team that does not exist (or that this user may not see) is a 404.
 * `?session_id=` continues one of the user's sessions of this team (another's is a 404). Each
 * answer shows the members' runs folded under it.
 */
export default async function TeamPlaygroundPage({ params, searchParams }: { params: Promise<{ teamId: string }>; searchParams: Promise<SearchParams> }) {
  const { settings, principal, db } = await requireDashboardSession();
  const { teamId } = await params;
  const team = findTeam(settings, teamId);
  if (!team || !hasScope(principal, `teams:${teamId}:read`)) notFound();
  const sessionId = firstParam(await searchParams, "session_id");
  const session = sessionId ? await getSessionRuns(db, { scope: dataScopeFor(principal), sessionId, sessionType: "team" }) : null;
  if (sessionId && (!session || session.team_id !== teamId)) notFound();
  // The team's own runs; its members' runs are in the same session, under them.
  const history = (session?.runs ?? [])
    .filter((run) => !run.parent_run_id)
    .map((run) => ({
      runId: displayText(run.run_id),
      input: displayText((run.input as Record<string, unknown> | undefined)?.input_content),
      output: displayText(run.content),
    }));
  return (
    <main className="mx-auto max-w-3xl px-4 pt-4 sm:px-6 sm:pt-6">
      <Playground agent={agentSummary(teamResponse(team, settings))} session={session ? { id: session.session_id, history } : undefined} />
    </main>
  );
}
