import { notFound } from "next/navigation";
import { displayText } from "@/components/dashboard/format.ts";
import { agentSummary } from "@/components/dashboard/playground/agent-summary.ts";
import { Playground } from "@/components/dashboard/playground/playground.tsx";
import { dataScopeFor, hasScope } from "@/lib/auth/principal.ts";
import { getSessionRuns } from "@/lib/db/sessions/session-runs.ts";
import { firstParam, type SearchParams } from "@/lib/http/dashboard/list-params.ts";
import { requireDashboardSession } from "@/lib/http/dashboard/current-user.ts";
import { agentResponse } from "@/lib/http/routes/agents.ts";
import { findAgent } from "@/lib/runtime/agents.ts";

export const dynamic = "force-dynamic";

/**
 * Chat with one agent; an agent that does not exist (or that this user may not see) is a 404.
 * `?session_id=` continues one of the user's sessions of this agent (another's is a 404).
 */
export default async function AgentPlaygroundPage({ params, searchParams }: { params: Promise<{ agentId: string }>; searchParams: Promise<SearchParams> }) {
  const { settings, principal, db } = await requireDashboardSession();
  const { agentId } = await params;
  const agent = findAgent(settings, agentId);
  if (!agent || !hasScope(principal, `agents:${agentId}:read`)) notFound();
  const sessionId = firstParam(await searchParams, "session_id");
  const session = sessionId ? await getSessionRuns(db, { scope: dataScopeFor(principal), sessionId, sessionType: "agent" }) : null;
  if (sessionId && (!session || session.agent_id !== agentId)) notFound();
  const history = (session?.runs ?? []).map((run) => ({
    runId: displayText(run.run_id),
    input: displayText((run.input as Record<string, unknown> | undefined)?.input_content),
    output: displayText(run.content),
  }));
  return (
    <main className="mx-auto max-w-3xl px-4 pt-4 sm:px-6 sm:pt-6">
      <Playground agent={agentSummary(agentResponse(agent, settings))} session={session ? { id: session.session_id, history } : undefined} />
    </main>
  );
}
