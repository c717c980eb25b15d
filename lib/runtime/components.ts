import type { Settings } from "../config/settings.ts";
import { findAgent, type RuntimeAgent } from "./agents.ts";
import { findTeam } from "./team/team-runtime.ts";
import { findWorkflow } from "./workflow/workflow-runtime.ts";

/** The configured agent, team or workflow a run belongs to (a job's component_type and component_id), or undefined. */
export function findComponent(settings: Settings, component: { type: string; id: string }): RuntimeAgent | undefined {
  if (component.type === "workflow") return findWorkflow(settings, component.id);
  if (component.type === "team") return findTeam(settings, component.id);
  return component.type === "agent" ? findAgent(settings, component.id) : undefined;
}
