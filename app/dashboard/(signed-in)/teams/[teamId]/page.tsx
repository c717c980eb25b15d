import { agentSummary } from "@/components/dashboard/playground/agent-summary.ts";
import { PlaygroundPage } from "@/components/dashboard/playground/playground-page.tsx";
import { learningSummaryOf } from "@/lib/http/dashboard/learning-summary.ts";
import { openPlayground, storedVersionOf } from "@/lib/http/dashboard/playground-session.ts";
import type { SearchParams } from "@/lib/http/dashboard/search-params.ts";
import { teamResponse } from "@/lib/http/routes/teams.ts";
import { findTeam } from "@/lib/runtime/team/team-runtime.ts";

export const dynamic = "force-dynamic";

/**
 * Chat with one team; a team that does not exist (or that this user may not see) is a 404.
 * `?session_id=` continues one of the user's sessions of this team (another's is a 404). Each
 * answer shows the members' runs folded under it.
 */
export default async function TeamPlaygroundPage({ params, searchParams }: { params: Promise<{ teamId: string }>; searchParams: Promise<SearchParams> }) {
  const { teamId } = await params;
  const { component, settings, continued } = await openPlayground({ kind: "team", id: teamId, searchParams, find: findTeam });
  return (
    <PlaygroundPage
      agent={{ ...agentSummary(teamResponse(component, settings)), learning: learningSummaryOf(component.definition, { team: true }), ...storedVersionOf(component) }}
      continued={continued}
    />
  );
}
