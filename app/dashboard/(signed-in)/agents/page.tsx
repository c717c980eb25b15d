import { agentSummary } from "@/components/dashboard/playground/agent-summary.ts";
import { ToolList } from "@/components/dashboard/playground/tool-list.tsx";
import { hasScope } from "@/lib/auth/principal.ts";
import { requireDashboardSession } from "@/lib/http/dashboard/current-user.ts";
import { agentResponse } from "@/lib/http/routes/agents.ts";
import { findAgent } from "@/lib/runtime/agents.ts";

export const dynamic = "force-dynamic";

/** The configured agents, as GET /agents reports them to this user, each with its playground. */
export default async function AgentsPage() {
  const { settings, principal } = await requireDashboardSession();
  const agents = settings.agents.filter((a) => hasScope(principal, `agents:${a.id}:read`)).map((a) => agentSummary(agentResponse(findAgent(settings, a.id)!, settings)));
  return (
    <main className="mx-auto max-w-5xl p-4 sm:p-6">
      <h1 className="mb-6 text-2xl font-semibold">Agents</h1>
      {agents.length === 0 ? (
        <p className="text-sm text-slate-600 dark:text-slate-400">
          No agents are configured (or none you may use). Agents are defined in <code>agentry.config.ts</code>.
        </p>
      ) : (
        <ul className="space-y-4">
          {agents.map((agent) => (
            <li key={agent.id} data-testid={`agent-${agent.id}`} className="rounded border border-slate-200 bg-white p-4 dark:border-slate-800 dark:bg-slate-900">
              <div className="flex flex-wrap items-start justify-between gap-3">
                <div className="min-w-0">
                  <h2 className="text-lg font-medium">
                    <a className="hover:underline" href={`/dashboard/agents/${encodeURIComponent(agent.id)}`}>
                      {agent.name}
                    </a>
                  </h2>
                  <p className="text-sm text-slate-600 dark:text-slate-400">
                    <code>{agent.id}</code> · {agent.model ?? "no model configured"}
                  </p>
                </div>
                <a
                  href={`/dashboard/agents/${encodeURIComponent(agent.id)}`}
                  aria-label={`Open the playground of ${agent.name}`}
                  className="rounded bg-slate-900 px-3 py-1.5 text-sm font-medium text-white hover:bg-slate-700 dark:bg-slate-100 dark:text-slate-900 dark:hover:bg-slate-300"
                >
                  Playground
                </a>
              </div>
              {agent.description && <p className="mt-2 text-sm text-slate-700 dark:text-slate-300">{agent.description}</p>}
              <h3 className="mt-3 mb-2 text-sm font-medium text-slate-700 dark:text-slate-300">Tools</h3>
              <ToolList tools={agent.tools} />
            </li>
          ))}
        </ul>
      )}
    </main>
  );
}
