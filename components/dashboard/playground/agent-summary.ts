import type { z } from "zod";
import type { LearningSummary } from "@/lib/http/dashboard/learning-summary.ts";
import type { AgentResponseSchema, TeamResponse } from "@/lib/http/schemas/agents.ts";

type AgentResponse = z.infer<typeof AgentResponseSchema>;

export interface AgentToolSummary {
  name: string;
  description: string;
  needsConfirmation: boolean;
  needsUserInput: boolean;
  runsExternally: boolean;
  /** An admin approves each call (approval "required"). */
  needsApproval: boolean;
}

/** What the agents list and the playground show of an agent (plain data: it crosses to the client). */
export interface AgentSummary {
  /** An agent, or a team (whose runs go through /teams/{id}/runs). */
  kind: "agent" | "team";
  id: string;
  name: string;
  description: string | null;
  /** `provider/model`, or null when no model provider is configured. */
  model: string | null;
  tools: AgentToolSummary[];
  /** A team's mode (coordinate, route, broadcast, tasks) and members. */
  mode?: string;
  members?: { id: string; name: string; kind: "agent" | "team" }[];
  /** What it learns about its users (lib/http/dashboard/learning-summary.ts); absent when nothing. */
  learning?: LearningSummary;
  /** A stored (Studio) component's version the playground runs (a draft when trying one); absent for one defined in code. */
  version?: number;
  /** That version's stage. */
  stage?: "draft" | "published";
  /**
   * An external agent's framework (`metadata.framework`: "langgraph", "claude-agent-sdk"): it has
   * no model or tools of its own, takes no files, and its runs cannot be cancelled through the API
   * (lib/http/routes/external-agent-runs.ts); absent for every other agent.
   */
  framework?: string;
}

/** From GET /agents' AgentResponse, so the dashboard shows exactly what the API reports. */
export function agentSummary(agent: AgentResponse | TeamResponse): AgentSummary {
  return {
    kind: "mode" in agent ? "team" : "agent",
    ...("mode" in agent ? { mode: agent.mode, members: agent.members.map((m) => ({ id: m.id, name: m.name, kind: "mode" in m ? ("team" as const) : ("agent" as const) })) } : {}),
    id: agent.id,
    name: agent.name,
    description: agent.description,
    model: agent.model_configured && agent.model?.model ? `${agent.model.provider}/${agent.model.model}` : null,
    tools: agent.tools.tools.map((t) => ({
      name: t.name,
      description: t.description,
      needsConfirmation: t.requires_confirmation,
      needsUserInput: t.requires_user_input,
      runsExternally: t.external_execution,
      needsApproval: t.approval_type === "required",
    })),
  };
}

/** An external agent (defineExternalAgent) as GET /agents lists it: name, id, description, framework. */
export function externalAgentSummary(agent: { id: string; name: string; description?: string; framework: string }): AgentSummary {
  return { kind: "agent", id: agent.id, name: agent.name, description: agent.description ?? null, model: null, tools: [], framework: agent.framework };
}
