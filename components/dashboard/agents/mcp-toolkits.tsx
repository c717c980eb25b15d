import type { McpToolkitSummary } from "@/lib/runtime/tools/mcp/mcp-servers.ts";
import { McpStateBadge } from "./mcp-state-badge.tsx";

/** An agent's MCP toolkits: each server with its state and the tools it last listed. */
export function McpToolkitList({ toolkits }: { toolkits: readonly McpToolkitSummary[] }) {
  return (
    <ul aria-label="MCP servers" className="space-y-2">
      {toolkits.map((toolkit) => (
        <li key={toolkit.id} data-testid={`mcp-toolkit-${toolkit.id}`} className="rounded border border-slate-200 p-2 dark:border-slate-700">
          <p className="flex flex-wrap items-center gap-2 text-sm">
            <span className="font-medium">{toolkit.name}</span>
            <code className="text-xs text-slate-500">{toolkit.id}</code>
            <span className="text-xs text-slate-500">{toolkit.transport === "stdio" ? "stdio" : "Streamable HTTP"}</span>
            <McpStateBadge state={toolkit.state} />
          </p>
          {toolkit.tools === null ? (
            <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">Tools not listed yet: the first run that needs them lists them.</p>
          ) : toolkit.tools.length === 0 ? (
            <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">The server offers no tools (after include/exclude).</p>
          ) : (
            <ul aria-label={`Tools of ${toolkit.name}`} className="mt-1 flex flex-wrap gap-2">
              {toolkit.tools.map((tool) => (
                <li key={tool.name} title={tool.description ?? undefined} className="rounded border border-slate-200 bg-slate-50 px-2 py-1 dark:border-slate-700 dark:bg-slate-800">
                  <code className="text-sm">{tool.name}</code>
                </li>
              ))}
            </ul>
          )}
        </li>
      ))}
    </ul>
  );
}
