import { McpStateBadge } from "@/components/dashboard/agents/mcp-state-badge.tsx";
import { formatTime } from "@/components/dashboard/format.ts";
import { LiveRefresh } from "@/components/dashboard/live-refresh.tsx";
import { Section } from "@/components/dashboard/section.tsx";
import { requireDashboardAdmin } from "@/lib/http/dashboard/current-user.ts";
import { configuredMcpServers } from "@/lib/runtime/tools/mcp/mcp-servers.ts";

export const dynamic = "force-dynamic";

const seconds = (ms: number | null) => (ms === null ? null : Math.floor(ms / 1000));

/**
 * Admins only (members get a 404): the MCP servers agents use (their MCPTools toolkits), each
 * with its connection state in this server process, its last error, the tools it last listed and
 * its pooled connections (one per user with a recent run).
 */
export default async function AdminMcpServersPage() {
  const { settings } = await requireDashboardAdmin();
  const servers = configuredMcpServers(settings);
  return (
    <main className="mx-auto max-w-5xl p-4 md:p-6">
      <div className="mb-1 flex items-center justify-between gap-2">
        <h1 className="text-2xl font-semibold">MCP servers</h1>
        <LiveRefresh active={servers.some((s) => s.state === "connected" || s.state === "connecting")} intervalMs={5000} />
      </div>
      <p className="mb-6 text-sm text-slate-600 dark:text-slate-400">
        The MCP servers agents use through <code>mcpTools()</code> toolkits in <code>agentry.config.ts</code>. A server is connected lazily by the first run that needs its tools, once per user (each
        with their own credentials), and the connection is closed when left idle. States are this server process&apos;s.
      </p>
      {servers.length === 0 ? (
        <p data-testid="mcp-servers-empty" className="text-sm text-slate-600 dark:text-slate-400">
          No agent uses an MCP server. Add <code>mcpTools({"{ id, command | url }"})</code> to an agent&apos;s <code>tools</code>.
        </p>
      ) : (
        servers.map((server) => (
          <Section
            key={server.id}
            id={`mcp-${server.id}`}
            title={
              <span data-testid={`mcp-server-${server.id}`} className="flex flex-wrap items-center gap-2">
                {server.name} <code className="text-sm text-slate-500">{server.id}</code> <McpStateBadge state={server.state} />
              </span>
            }
          >
            <dl className="mb-3 grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1 text-sm">
              <dt className="text-slate-500">Transport</dt>
              <dd>{server.transport === "stdio" ? "stdio" : "Streamable HTTP"}</dd>
              <dt className="text-slate-500">{server.transport === "stdio" ? "Command" : "URL"}</dt>
              <dd className="font-mono text-xs leading-5 break-all">{server.target}</dd>
              <dt className="text-slate-500">Used by</dt>
              <dd>{server.usedBy.join(", ")}</dd>
              <dt className="text-slate-500">Tools</dt>
              <dd data-testid="mcp-tool-count">{server.tools === null ? "not listed yet" : `${server.tools.length}: ${server.tools.map((t) => t.name).join(", ") || "none"}`}</dd>
              <dt className="text-slate-500">Pooled connections</dt>
              <dd data-testid="mcp-open-connections">{server.openConnections}</dd>
              <dt className="text-slate-500">Last error</dt>
              <dd data-testid="mcp-last-error" className="break-words">
                {server.lastError ? (
                  <>
                    <span className="text-red-700 dark:text-red-300">{server.lastError}</span> <span className="text-slate-500">({formatTime(seconds(server.lastErrorAt))} UTC)</span>
                  </>
                ) : (
                  "none"
                )}
              </dd>
            </dl>
            {server.connections.length > 0 && (
              <div className="overflow-x-auto">
                <table className="w-full text-left text-sm" aria-label={`Connections of ${server.name}`}>
                  <thead className="text-slate-500">
                    <tr>
                      <th className="py-2 pr-4 font-medium">User</th>
                      <th className="py-2 pr-4 font-medium">State</th>
                      <th className="hidden py-2 pr-4 font-medium sm:table-cell">Connected</th>
                      <th className="hidden py-2 pr-4 font-medium sm:table-cell">Last used</th>
                      <th className="py-2 font-medium">Last error</th>
                    </tr>
                  </thead>
                  <tbody className="divide-y divide-slate-200 dark:divide-slate-800">
                    {server.connections.map((c) => (
                      <tr key={c.userId ?? ""}>
                        <td className="py-2 pr-4 font-mono text-xs">{c.userId ?? "(no user)"}</td>
                        <td className="py-2 pr-4">
                          <McpStateBadge state={c.state} />
                          {c.inFlight > 0 && <span className="ml-1 text-xs text-slate-500">{c.inFlight} in flight</span>}
                        </td>
                        <td className="hidden py-2 pr-4 sm:table-cell">{formatTime(seconds(c.connectedAt))}</td>
                        <td className="hidden py-2 pr-4 sm:table-cell">{formatTime(seconds(c.lastUsedAt))}</td>
                        <td className="py-2 text-xs break-words">{c.lastError ?? "—"}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </Section>
        ))
      )}
    </main>
  );
}
