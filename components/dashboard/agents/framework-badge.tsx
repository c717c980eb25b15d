/** How the dashboard names the frameworks lib/runtime/external/'s adapters report in `metadata.framework`. */
const FRAMEWORK_NAMES: Record<string, string> = {
  langgraph: "LangGraph",
  "claude-agent-sdk": "Claude Agent SDK",
};

/** A framework's name as people write it; one without a known name is shown as reported. */
export function frameworkName(framework: string): string {
  return FRAMEWORK_NAMES[framework] ?? framework;
}

/** The framework an external agent runs on, as a label beside its id (where an agent shows its model). */
export function FrameworkBadge({ framework }: { framework: string }) {
  return (
    <span
      data-testid="framework"
      title={`Runs on ${frameworkName(framework)} (an external agent)`}
      className="inline-block rounded bg-violet-100 px-1.5 py-0.5 text-xs font-medium whitespace-nowrap text-violet-800 dark:bg-violet-900/60 dark:text-violet-200"
    >
      {frameworkName(framework)}
    </span>
  );
}
