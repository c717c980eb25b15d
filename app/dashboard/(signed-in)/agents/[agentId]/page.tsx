import { agentSummary, externalAgentSummary } from "@/components/dashboard/playground/agent-summary.ts";
import { PlaygroundPage } from "@/components/dashboard/playground/playground-page.tsx";
import type { SearchParams } from "@/lib/http/dashboard/search-params.ts";
import { learningSummaryOf } from "@/lib/http/dashboard/learning-summary.ts";
import { openPlayground, storedVersionOf } from "@/lib/http/dashboard/playground-session.ts";
import { agentResponse } from "@/lib/http/routes/agents.ts";
import { findAgent } from "@/lib/runtime/agents.ts";
import { findExternalAgent } from "@/lib/runtime/external/external-agents.ts";

export const dynamic = "force-dynamic";

/**
 * Chat with one agent — defined in code, external (defineExternalAgent, found after them as the
 * agents' routes find it) or stored; one that does not exist (or that this user may not see) is a
 * 404. `?session_id=` continues one of the user's sessions of this agent (another's is a 404).
 */
export default async function AgentPlaygroundPage({ params, searchParams }: { params: Promise<{ agentId: string }>; searchParams: Promise<SearchParams> }) {
  const { agentId } = await params;
  const { component, settings, continued } = await openPlayground({
    kind: "agent",
    id: agentId,
    searchParams,
    find: (s, id) => findAgent(s, id) ?? findExternalAgent(s, id),
  });
  const agent = component.external
    ? externalAgentSummary(component.external)
    : { ...agentSummary(agentResponse(component, settings)), learning: learningSummaryOf(component.definition), ...storedVersionOf(component) };
  return <PlaygroundPage agent={agent} continued={continued} />;
}
