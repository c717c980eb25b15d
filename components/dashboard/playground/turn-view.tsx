import type { Decisions, RunPhase, Turn } from "./transcript.ts";
import { JsonBlock } from "./json-block.tsx";
import { RequirementsForm } from "./requirements-form.tsx";
import { ToolCallCard } from "./tool-call-card.tsx";

const PHASE: Record<RunPhase, string> = {
  starting: "starting…",
  running: "running…",
  paused: "paused",
  continuing: "continuing…",
  completed: "completed",
  cancelled: "cancelled",
  error: "failed",
};

function RunFooter({ turn }: { turn: Turn }) {
  const { runId, sessionId, phase } = turn.run;
  return (
    <p className="flex flex-wrap items-center gap-x-2 text-xs text-slate-600 dark:text-slate-400" data-testid="run-status">
      <span>
        Run {runId && <code>{runId.slice(0, 8)}</code>} {PHASE[phase]}
      </span>
      {runId && sessionId && (
        <>
          <span aria-hidden="true">·</span>
          <a className="underline hover:text-slate-900 dark:hover:text-slate-100" href={`/dashboard/runs/${encodeURIComponent(runId)}?session_id=${encodeURIComponent(sessionId)}`}>
            Run details
          </a>
        </>
      )}
    </p>
  );
}

/** One message sent and the run answering it: streamed text, tool calls, decisions, the outcome. */
export function TurnView({ turn, busy, onDecide }: { turn: Turn; busy: boolean; onDecide: (turn: Turn, decisions: Decisions) => void }) {
  const { run } = turn;
  return (
    <li className="space-y-3" data-testid="turn">
      <div className="flex justify-end">
        <p className="max-w-[85%] whitespace-pre-wrap break-words rounded-lg bg-slate-900 px-3 py-2 text-sm text-white dark:bg-slate-200 dark:text-slate-900" data-testid="user-message">
          {turn.message}
        </p>
      </div>
      <div className="space-y-3" data-testid="assistant-turn">
        {run.parts.map((part, i) =>
          part.kind === "text" ? (
            <p key={i} className="whitespace-pre-wrap break-words text-sm leading-relaxed" data-testid="assistant-message">
              {part.text}
            </p>
          ) : part.kind === "tool" ? (
            <ToolCallCard key={part.call.id} call={part.call} />
          ) : (
            <JsonBlock key={i} label="Answer" value={part.value} />
          ),
        )}
        {run.phase === "paused" && run.requirements.length > 0 && <RequirementsForm requirements={run.requirements} disabled={busy} onSubmit={(decisions) => onDecide(turn, decisions)} />}
        {run.error && (
          <p role="alert" className="rounded border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-900 dark:border-red-800 dark:bg-red-950 dark:text-red-100" data-testid="run-error">
            {run.error}
          </p>
        )}
        {run.phase === "cancelled" && (
          <p className="rounded border border-slate-300 bg-slate-100 px-3 py-2 text-sm text-slate-800 dark:border-slate-700 dark:bg-slate-800 dark:text-slate-100">
            Cancelled{run.cancelReason ? `: ${run.cancelReason}` : "."}
          </p>
        )}
        <RunFooter turn={turn} />
      </div>
    </li>
  );
}
