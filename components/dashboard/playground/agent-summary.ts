import type { z } from "zod";
import type { AgentResponseSchema } from "@/lib/http/schemas/agents.ts";

type AgentResponse = z.infer<typeof AgentResponseSchema>;

export interface AgentToolSummary {
  name: string;
  description: string;
  needsConfirmation: boolean;
  needsUserInput: boolean;
  runsExternally: boolean;
}

/** What the agents list and the playground show of an agent (plain data: it crosses to the client). */
export interface AgentSummary {
  id: string;
  name: string;
  description: string | null;
  /** `provider/model`, or null when no model provider is configured. */
  model: string | null;
  tools: AgentToolSummary[];
}

/** From GET /agents' AgentResponse, so the dashboard shows exactly what the API reports. */
export function agentSummary(agent: AgentResponse): AgentSummary {
  return {
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
    })),
  };
}
