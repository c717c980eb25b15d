const TONES: Record<string, string> = {
  connected: "bg-emerald-100 text-emerald-800 dark:bg-emerald-900/60 dark:text-emerald-200",
  connecting: "bg-sky-100 text-sky-800 dark:bg-sky-900/60 dark:text-sky-200",
  failed: "bg-red-100 text-red-800 dark:bg-red-900/60 dark:text-red-200",
  idle: "bg-slate-100 text-slate-700 dark:bg-slate-800 dark:text-slate-200",
};

/** An MCP server's or connection's state (connected, connecting, failed, idle) as a label; the text carries the meaning. */
export function McpStateBadge({ state }: { state: string }) {
  return (
    <span data-testid="mcp-state" className={`inline-block rounded px-1.5 py-0.5 text-xs font-medium whitespace-nowrap ${TONES[state] ?? TONES.idle}`}>
      {state}
    </span>
  );
}
