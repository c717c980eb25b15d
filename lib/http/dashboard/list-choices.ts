import "server-only";
import type { Settings } from "../../config/settings.ts";
import { availableModels } from "../routes/core.ts";
import type { FilterOption } from "./list-view.ts";

/** The configured agents (and, with `teams`, the teams after them) as a filter's choices. */
export function agentChoices(settings: Settings, { teams = false } = {}): FilterOption[] {
  return [...settings.agents, ...(teams ? settings.teams : [])].map((a) => ({ value: a.id, label: a.name }));
}

/** The models the configured agents use, as a filter's choices. */
export function modelChoices(settings: Settings): FilterOption[] {
  return availableModels(settings).map((m) => ({ value: m.id, label: `${m.id} (${m.provider})` }));
}
