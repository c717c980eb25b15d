import { FrameworkBadge } from "@/components/dashboard/agents/framework-badge.tsx";
import { agentSummary, externalAgentSummary, type AgentSummary } from "@/components/dashboard/playground/agent-summary.ts";
import { ToolList } from "@/components/dashboard/playground/tool-list.tsx";
import { LearningStoreList } from "@/components/dashboard/agents/learning-stores.tsx";
import { McpToolkitList } from "@/components/dashboard/agents/mcp-toolkits.tsx";
import { hasScope } from "@/lib/auth/principal.ts";
import { requireDashboardSession } from "@/lib/http/dashboard/current-user.ts";
import { learningSummaryOf } from "@/lib/http/dashboard/learning-summary.ts";
import { agentResponse } from "@/lib/http/routes/agents.ts";
import { teamResponse } from "@/lib/http/routes/teams.ts";
import { findAgent, type RuntimeAgent } from "@/lib/runtime/agents.ts";
import { mcpToolkitSummaries, type McpToolkitSummary } from "@/lib/runtime/tools/mcp/mcp-servers.ts";
import { findTeam } from "@/lib/runtime/team/team-runtime.ts";

export const dynamic = "force-dynamic";

const playgroundHref = (c: AgentSummary) => `/dashboard/${c.kind === "team" ? "teams" : "agents"}/${encodeURIComponent(c.id)}`;

/** An agent or team as its card shows it: what GET /agents reports, its MCP servers' tools apart from its own, and what it learns. */
type CardComponent = AgentSummary & { mcp: McpToolkitSummary[] };

function cardOf(runtime: RuntimeAgent, summary: AgentSummary): CardComponent {
  const mcp = mcpToolkitSummaries(runtime);
  const fromMcp = new Set(mcp.flatMap((k) => (k.tools ?? []).map((t) => t.name)));
  const learning = learningSummaryOf(runtime.definition, { team: !!runtime.team });
  return { ...summary, tools: summary.tools.filter((t) => !fromMcp.has(t.name)), mcp, ...(learning ? { learning } : {}) };
}

/**
 * One agent or team: name, model, description, (members,) tools, MCP servers, what it learns, and
 * its playground. An external agent shows its framework where the others show their model; its
 * model and tools are its framework's, which Agentry does not see.
 */
function ComponentCard({ component }: { component: CardComponent }) {
  return (
    <li data-testid={`${component.kind}-${component.id}`} className="rounded border border-slate-200 bg-white p-4 dark:border-slate-800 dark:bg-slate-900">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0">
          <h3 className="text-lg font-medium">
            <a className="hover:underline" href={playgroundHref(component)}>
              {component.name}
            </a>
          </h3>
          <p className="text-sm text-slate-600 dark:text-slate-400">
            <code>{component.id}</code> · {component.kind === "team" ? `${component.mode} mode · ` : ""}
            {component.framework ? <FrameworkBadge framework={component.framework} /> : (component.model ?? "no model configured")}
          </p>
        </div>
        <a
          href={playgroundHref(component)}
          aria-label={`Open the playground of ${component.name}`}
          className="rounded bg-slate-900 px-3 py-1.5 text-sm font-medium text-white hover:bg-slate-700 dark:bg-slate-100 dark:text-slate-900 dark:hover:bg-slate-300"
        >
          Playground
        </a>
      </div>
      {component.description && <p className="mt-2 text-sm text-slate-700 dark:text-slate-300">{component.description}</p>}
      {component.members && (
        <>
          <h4 className="mt-3 mb-2 text-sm font-medium text-slate-700 dark:text-slate-300">Members</h4>
          <ul aria-label="Members" className="flex flex-wrap gap-2 text-sm">
            {component.members.map((m) => (
              <li key={m.id} className="rounded border border-slate-200 px-2 py-0.5 dark:border-slate-700">
                {m.name} <code className="text-xs text-slate-500">{m.id}</code>
                {m.kind === "team" && <span className="ml-1 text-xs text-slate-500">(team)</span>}
              </li>
            ))}
          </ul>
        </>
      )}
      {component.framework && <p className="mt-2 text-xs text-slate-600 dark:text-slate-400">An external agent: its model and tools are set in its framework.</p>}
      {!component.framework && (component.tools.length > 0 || component.mcp.length === 0) && (
        <>
          <h4 className="mt-3 mb-2 text-sm font-medium text-slate-700 dark:text-slate-300">Tools</h4>
          <ToolList tools={component.tools} />
        </>
      )}
      {component.mcp.length > 0 && (
        <>
          <h4 className="mt-3 mb-2 text-sm font-medium text-slate-700 dark:text-slate-300">MCP servers</h4>
          <McpToolkitList toolkits={component.mcp} />
        </>
      )}
      {component.learning && (
        <>
          <h4 className="mt-3 mb-2 text-sm font-medium text-slate-700 dark:text-slate-300">
            Learns about its users{" "}
            <a href="/dashboard/learnings" className="font-normal text-slate-500 underline hover:text-slate-900 dark:hover:text-slate-100">
              (what agents know)
            </a>
          </h4>
          <LearningStoreList learning={component.learning} />
        </>
      )}
    </li>
  );
}

/**
 * The configured agents (those defined in code, then the external ones) and teams, as GET /agents
 * and GET /teams report them to this user, each with its playground.
 */
export default async function AgentsPage() {
  const { settings, principal } = await requireDashboardSession();
  const agents = settings.agents
    .filter((a) => hasScope(principal, `agents:${a.id}:read`))
    .map((a) => findAgent(settings, a.id)!)
    .map((agent) => cardOf(agent, agentSummary(agentResponse(agent, settings))))
    .concat(settings.externalAgents.filter((a) => hasScope(principal, `agents:${a.id}:read`)).map((a) => ({ ...externalAgentSummary(a), mcp: [] })));
  const teams = settings.teams
    .filter((t) => hasScope(principal, `teams:${t.id}:read`))
    .map((t) => findTeam(settings, t.id)!)
    .map((team) => cardOf(team, agentSummary(teamResponse(team, settings))));
  const workflows = settings.workflows.filter((w) => hasScope(principal, `workflows:${w.id}:read`));
  return (
    <main className="mx-auto max-w-5xl p-4 sm:p-6">
      <h1 className="mb-6 text-2xl font-semibold">Agents, teams and workflows</h1>
      <section aria-labelledby="agents-heading" className="mb-8">
        <h2 id="agents-heading" className="mb-3 text-xl font-semibold">
          Agents
        </h2>
        {agents.length === 0 ? (
          <p className="text-sm text-slate-600 dark:text-slate-400">
            No agents are configured (or none you may use). Agents are defined in <code>agentry.config.ts</code>.
          </p>
        ) : (
          <ul className="space-y-4">
            {agents.map((agent) => (
              <ComponentCard key={agent.id} component={agent} />
            ))}
          </ul>
        )}
      </section>
      <section aria-labelledby="teams-heading" className="mb-8">
        <h2 id="teams-heading" className="mb-3 text-xl font-semibold">
          Teams
        </h2>
        {teams.length === 0 ? (
          <p className="text-sm text-slate-600 dark:text-slate-400">
            No teams are configured (or none you may use). Teams are defined with <code>defineTeam</code> in <code>agentry.config.ts</code>.
          </p>
        ) : (
          <ul className="space-y-4">
            {teams.map((team) => (
              <ComponentCard key={team.id} component={team} />
            ))}
          </ul>
        )}
      </section>
      <section aria-labelledby="workflows-heading" className="mb-8">
        <h2 id="workflows-heading" className="mb-3 text-xl font-semibold">
          Workflows
        </h2>
        {workflows.length === 0 ? (
          <p className="text-sm text-slate-600 dark:text-slate-400">
            No workflows are configured (or none you may use). Workflows are defined with <code>defineWorkflow</code> in <code>agentry.config.ts</code>.
          </p>
        ) : (
          <ul className="space-y-4">
            {workflows.map((workflow) => (
              <li key={workflow.id} data-testid={`workflow-${workflow.id}`} className="rounded border border-slate-200 bg-white p-4 dark:border-slate-800 dark:bg-slate-900">
                <div className="flex flex-wrap items-start justify-between gap-3">
                  <div className="min-w-0">
                    <h3 className="text-lg font-medium">
                      <a className="hover:underline" href={`/dashboard/workflows/${encodeURIComponent(workflow.id)}`}>
                        {workflow.name}
                      </a>
                    </h3>
                    <p className="text-sm text-slate-600 dark:text-slate-400">
                      <code>{workflow.id}</code> · {workflow.steps.length} steps
                    </p>
                  </div>
                  <a
                    href={`/dashboard/workflows/${encodeURIComponent(workflow.id)}`}
                    aria-label={`Open the playground of ${workflow.name}`}
                    className="rounded bg-slate-900 px-3 py-1.5 text-sm font-medium text-white hover:bg-slate-700 dark:bg-slate-100 dark:text-slate-900 dark:hover:bg-slate-300"
                  >
                    Playground
                  </a>
                </div>
                {workflow.description && <p className="mt-2 text-sm text-slate-700 dark:text-slate-300">{workflow.description}</p>}
                <ol aria-label="Steps" className="mt-3 flex flex-wrap items-center gap-1 text-sm">
                  {workflow.steps.map((s, i) => (
                    <li key={s.name} className="flex items-center gap-1">
                      {i > 0 && <span aria-hidden="true">→</span>}
                      <span className="rounded border border-slate-200 px-2 py-0.5 dark:border-slate-700">
                        {s.name}
                        {"humanReview" in s && s.humanReview && <span className="ml-1 text-xs text-amber-700 dark:text-amber-300">(review)</span>}
                      </span>
                    </li>
                  ))}
                </ol>
              </li>
            ))}
          </ul>
        )}
      </section>
    </main>
  );
}
