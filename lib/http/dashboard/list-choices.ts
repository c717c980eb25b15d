import type { Settings } from "../../config/settings.ts";
import { availableModels } from "../routes/core.ts";
import type { FilterOption } from "./list-view.ts";

// Pure of Next.js (no `server-only`), so tests call it with a configuration.

/**
 * The configured agents as a filter's choices: those defined in code, then with `external` the
 * external ones (defineExternalAgent: their runs and sessions are agents' — the Runs and Sessions
 * filters — but evals never run them), then with `teams` the teams.
 */
export function agentChoices(settings: Settings, { teams = false, external = false } = {}): FilterOption[] {
  return [...settings.agents, ...(external ? settings.externalAgents : []), ...(teams ? settings.teams : [])].map((a) => ({ value: a.id, label: a.name }));
}

/** The models the configured agents use, as a filter's choices. */
export function modelChoices(settings: Settings): FilterOption[] {
  return availableModels(settings).map((m) => ({ value: m.id, label: `${m.id} (${m.provider})` }));
}
