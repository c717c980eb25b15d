import { Markdown } from "@/components/markdown/markdown.tsx";
import type { Decisions, MemberView, RunPart, RunPhase, Turn } from "./transcript.ts";
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

/** What a run said, in order: its text (Markdown, rendered as it streams), tool calls and a structured answer. */
function RunParts({ parts, textTestId = "assistant-message" }: { parts: RunPart[]; textTestId?: string }) {
  return (
    <>
      {parts.map((part, i) =>
        part.kind === "text" ? (
          <Markdown key={i} text={part.text} testId={textTestId} />
        ) : part.kind === "tool" ? (
          <ToolCallCard key={part.call.id} call={part.call} />
        ) : (
          <JsonBlock key={i} label="Answer" value={part.value} />
        ),
      )}
    </>
  );
}

/** A team run's members, each folded: its status, and when opened what it said and did. */
function MemberContributions({ members }: { members: MemberView[] }) {
  return (
    <ul aria-label="Team members' contributions" className="space-y-2">
      {members.map((member) => (
        <li key={member.runId}>
          <details data-testid="member-run" className="rounded border border-slate-200 bg-slate-50 text-sm dark:border-slate-700 dark:bg-slate-900/60">
            <summary className="cursor-pointer px-3 py-2">
              <span className="font-medium">{member.name}</span> <span className="text-xs text-slate-600 dark:text-slate-400">· {PHASE[member.view.phase]}</span>
            </summary>
            <div className="space-y-2 border-t border-slate-200 px-3 py-2 dark:border-slate-700">
              <RunParts parts={member.view.parts} textTestId="member-message" />
              {member.view.error && <p className="text-red-800 dark:text-red-200">{member.view.error}</p>}
              {member.view.members.length > 0 && <MemberContributions members={member.view.members} />}
            </div>
          </details>
        </li>
      ))}
    </ul>
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
        <RunParts parts={run.parts} />
        {run.members.length > 0 && <MemberContributions members={run.members} />}
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
