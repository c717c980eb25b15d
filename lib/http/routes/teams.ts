import { z } from "zod";
import { hasScope } from "../../auth/principal.ts";
import type { Settings } from "../../config/settings.ts";
import type { RuntimeAgent } from "../../runtime/agents.ts";
import { findTeam } from "../../runtime/team/team-runtime.ts";
import { leaderToolsOf } from "../../runtime/team/team-tools.ts";
import { defineRoute } from "../route.ts";
import { TeamParams, TeamResponseSchema, TeamRunParams, type TeamResponse } from "../schemas/agents.ts";
import { agentResponse } from "./agents.ts";
import { componentRunRoutes, readsComponent, type ComponentSpec } from "./component-runs.ts";
import { componentFields, listedStoredComponents } from "./stored-components.ts";

/**
 * Agno's TeamResponse: the leader's settings as an agent's are reported, plus `mode` and the
 * members (agents as AgentResponse, sub-teams as TeamResponse). The tools listed are the leader's
 * own and its delegation tools.
 */
export function teamResponse(team: RuntimeAgent, settings: Settings): TeamResponse {
  const leader = team.team!;
  const d = leader.definition;
  const asAgent = agentResponse(team, settings);
  return {
    id: d.id,
    name: d.name,
    db_id: settings.database.id,
    description: d.description ?? null,
    role: d.role ?? null,
    mode: leader.mode,
    model: asAgent.model,
    tools: {
      tools: [
        ...asAgent.tools.tools,
        ...leaderToolsOf(leader.mode).map((tool) => ({ ...tool, toolkit_id: null, requires_confirmation: false, requires_user_input: false, external_execution: false, approval_type: null })),
      ],
    },
    sessions: asAgent.sessions,
    knowledge: null,
    memory: null,
    reasoning: null,
    default_tools: null,
    system_message: asAgent.system_message,
    response_settings: null,
    introduction: null,
    streaming: { stream: true, stream_events: true, stream_member_events: d.streamMemberEvents !== false },
    members: leader.members.map((member) => (member.team ? teamResponse(member, settings) : agentResponse(member, settings))),
    metadata: d.metadata ?? null,
    input_schema: null,
    ...componentFields(team),
    model_configured: d.model !== null,
  };
}

/** The teams as components with run routes: `/teams/{team_id}`, 404 "Team not found" for an unknown one. */
const TEAM_COMPONENT: ComponentSpec = {
  type: "team",
  base: "/teams/{team_id}",
  params: TeamParams,
  runParams: TeamRunParams,
  tag: "Teams",
  a: "a team",
  output: "TeamRunOutput",
  find: findTeam,
  notFound: "Team not found",
};

export const listTeams = defineRoute({
  method: "GET",
  path: "/teams",
  summary: "List the teams: those defined in code, then the stored (Studio) ones the caller may run",
  tags: ["Teams"],
  access: { permission: "teams:read", listFilter: true },
  response: z.array(TeamResponseSchema),
  excludeNone: true,
  handler: async ({ settings, principal }) => [
    ...settings.teams.filter((t) => hasScope(principal, `teams:${t.id}:read`)).map((t) => teamResponse(findTeam(settings, t.id)!, settings)),
    ...(await listedStoredComponents(settings, principal, "team")).map((t) => teamResponse(t, settings)),
  ],
});

export const getTeam = defineRoute({
  method: "GET",
  path: "/teams/{team_id}",
  summary: "One team, with its mode and members",
  ...readsComponent(TEAM_COMPONENT),
  params: TeamParams,
  response: TeamResponseSchema,
  excludeNone: true,
  handler: ({ resource: team, settings }) => teamResponse(team, settings),
});

/** The teams' run routes: the agents' own implementation (lib/http/routes/component-runs.ts). */
export const TEAM_RUN_ROUTES = componentRunRoutes(TEAM_COMPONENT);

export const TEAM_ROUTES = [listTeams, getTeam, ...TEAM_RUN_ROUTES];
