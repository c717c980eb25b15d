import type { AgentDefinition, ModelSpec, TeamDefinition } from "../../config/define.ts";
import type { Settings } from "../../config/settings.ts";
import { toRuntimeAgent, type RuntimeAgent, type TeamLeader } from "../agents.ts";
import type { RunState } from "../run-state.ts";
import { teamContext } from "./team-prompt.ts";
import { nextTaskIteration } from "./team-tasks.ts";
import { continueMembers, teamTools } from "./team-tools.ts";

type Extras = Pick<RuntimeAgent, "prices" | "embedder">;

/**
 * A team as the runtime runs it: a runtime agent for its leader (the team's id, name, model,
 * instructions and tools) carrying the team — its members, built the same way (agents without a
 * model use the team's), the prompt that introduces them and its delegation tools.
 */
export function toRuntimeTeam(definition: TeamDefinition, extras: Extras, inheritedModel: ModelSpec | null = null): RuntimeAgent {
  const model = definition.model ?? inheritedModel;
  const members = definition.members.map(
    (member): RuntimeAgent => ("members" in member ? toRuntimeTeam(member, extras, model) : { ...toRuntimeAgent({ ...member, model: member.model ?? model }), ...extras }),
  );
  const mode = definition.mode ?? "coordinate";
  const leader: AgentDefinition = {
    id: definition.id,
    name: definition.name,
    description: definition.description,
    model,
    instructions: definition.instructions,
    tools: definition.tools,
    addHistoryToContext: definition.addHistoryToContext,
    numHistoryRuns: definition.numHistoryRuns,
    storeEvents: definition.storeEvents,
    metadata: definition.metadata,
    learning: definition.learning,
  };
  const team: TeamLeader = {
    definition,
    mode,
    members,
    context: teamContext(members, mode),
    // Method syntax: called with the run's RunState (TeamLeader.tools).
    tools(state: RunState) {
      return teamTools(state, team);
    },
    afterAnswer(state: RunState) {
      return mode === "tasks" ? nextTaskIteration(state, team) : null;
    },
    continueMembers(state: RunState, requirements, resolutions) {
      return continueMembers(state, team, requirements, resolutions);
    },
  };
  return { ...toRuntimeAgent(leader), ...extras, team };
}

const cache = new WeakMap<TeamDefinition, RuntimeAgent>();

/** The configured (top-level) team with this id, or undefined. */
export function findTeam(settings: Settings, teamId: string): RuntimeAgent | undefined {
  const definition = settings.teams.find((t) => t.id === teamId);
  if (!definition) return undefined;
  let team = cache.get(definition);
  if (!team || team.prices !== settings.metrics.prices || team.embedder !== settings.knowledge.embedder) {
    cache.set(definition, (team = toRuntimeTeam(definition, { prices: settings.metrics.prices, embedder: settings.knowledge.embedder })));
  }
  return team;
}
