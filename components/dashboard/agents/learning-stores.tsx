import type { LearningSummary } from "@/lib/http/dashboard/learning-summary.ts";

const STORE_LABELS: Record<string, string> = {
  userProfile: "User profile",
  userMemory: "User memory",
  sessionContext: "Session context",
  entityMemory: "Entity memory",
  decisionLog: "Decision log",
  learnedKnowledge: "Learned knowledge",
};

/** What each mode means for the person talking to the agent. */
const MODE_HINTS: Record<string, string> = {
  always: "learned from every conversation, in the background",
  agentic: "the agent decides, with its tools",
  propose: "the agent proposes; saved once the user agrees",
};

const badge = "rounded px-1.5 py-0.5 text-xs";

/** An agent's or team's learning stores with their modes, and its Agno memory settings. */
export function LearningStoreList({ learning }: { learning: LearningSummary }) {
  return (
    <ul aria-label="Learning" className="flex flex-wrap gap-2">
      {learning.stores.map((s) => (
        <li
          key={s.store}
          title={MODE_HINTS[s.mode]}
          className="flex flex-wrap items-center gap-1 rounded border border-slate-200 bg-slate-50 px-2 py-1 text-sm dark:border-slate-700 dark:bg-slate-800"
        >
          {STORE_LABELS[s.store] ?? s.store}
          <span className={`${badge} bg-emerald-100 text-emerald-900 dark:bg-emerald-900 dark:text-emerald-100`}>{s.mode}</span>
          {s.namespace && <span className={`${badge} bg-slate-200 text-slate-800 dark:bg-slate-700 dark:text-slate-100`}>namespace {s.namespace}</span>}
        </li>
      ))}
      {learning.memoryOnRun && (
        <li title="Agno's memory (agno_memories), extracted from every run" className="rounded border border-slate-200 bg-slate-50 px-2 py-1 text-sm dark:border-slate-700 dark:bg-slate-800">
          Memories updated on every run <code className="text-xs">updateMemoryOnRun</code>
        </li>
      )}
      {learning.agenticMemory && (
        <li
          title="Agno's memory (agno_memories), through the update_user_memory tool"
          className="rounded border border-slate-200 bg-slate-50 px-2 py-1 text-sm dark:border-slate-700 dark:bg-slate-800"
        >
          Agentic memory <code className="text-xs">enableAgenticMemory</code>
        </li>
      )}
    </ul>
  );
}
