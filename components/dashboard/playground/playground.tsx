"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import { Markdown } from "@/components/markdown/markdown.tsx";
import { FrameworkBadge } from "../agents/framework-badge.tsx";
import { LearningStoreList } from "../agents/learning-stores.tsx";
import type { AgentSummary } from "./agent-summary.ts";
import { Composer } from "./composer.tsx";
import { ApiError, cancelRun, continueRun, startRun, type RunStreamEvent } from "./run-api.ts";
import { ToolList } from "./tool-list.tsx";
import { applyRunEvent, decidedTools, endOfStream, IN_FLIGHT, newRun, type Decisions, type RunPhase, type RunView, type Turn } from "./transcript.ts";
import { TurnView } from "./turn-view.tsx";

type OpenStream = (signal: AbortSignal) => Promise<AsyncIterable<RunStreamEvent>>;

/** Whether the window is scrolled to (near) the end, so new output should keep it there. */
const atBottom = () => window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 80;

/**
 * A chat with one agent through the public API, as any AgentOS client would use it: runs streamed
 * from POST /agents/{id}/runs, one session across turns (until "New chat"), paused runs continued
 * with the user's decisions, in-flight runs cancelled. The dashboard cookie authenticates the calls.
 */
/** An earlier exchange of a session the playground continues (shown read-only above the chat). */
export interface EarlierExchange {
  runId: string;
  input: string;
  output: string;
}

export function Playground({ agent, session }: { agent: AgentSummary; session?: { id: string; history: EarlierExchange[] } }) {
  const [turns, setTurns] = useState<Turn[]>([]);
  const [sessionId, setSessionId] = useState<string | null>(session?.id ?? null);
  const [history, setHistory] = useState<EarlierExchange[]>(session?.history ?? []);
  const inflight = useRef<AbortController | null>(null);
  const turnCount = useRef(0);
  const inputRef = useRef<HTMLTextAreaElement>(null);
  const endRef = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);
  const busyTurn = turns.find((t) => IN_FLIGHT.has(t.run.phase));

  const updateRun = useCallback((turnId: string, change: (run: RunView) => RunView) => {
    setTurns((all) => all.map((t) => (t.id === turnId ? { ...t, run: change(t.run) } : t)));
  }, []);

  useEffect(() => {
    const onScroll = () => (pinned.current = atBottom());
    window.addEventListener("scroll", onScroll, { passive: true });
    return () => {
      window.removeEventListener("scroll", onScroll);
      inflight.current?.abort();
    };
  }, []);

  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on every new turn, to keep a pinned view at the end
  useEffect(() => {
    if (pinned.current) endRef.current?.scrollIntoView({ block: "end" });
  }, [turns]);

  /** Applies a run's events to its turn until the stream ends; `refused` is the phase when the API refuses the request. */
  async function follow(turnId: string, open: OpenStream, refused: RunPhase) {
    const controller = new AbortController();
    inflight.current = controller;
    let opened = false;
    try {
      const events = await open(controller.signal);
      opened = true;
      for await (const event of events) {
        updateRun(turnId, (run) => applyRunEvent(run, event));
        if (event.session_id) setSessionId(event.session_id);
      }
      updateRun(turnId, endOfStream);
    } catch (error) {
      const message = (error as Error).message;
      if (controller.signal.aborted)
        updateRun(turnId, (run) => ({ ...run, phase: "cancelled", cancelReason: run.runId ? "stopped (closing its stream cancels it)" : "stopped before the run started" }));
      else if (!opened && error instanceof ApiError) updateRun(turnId, (run) => ({ ...run, phase: refused, error: message }));
      else updateRun(turnId, (run) => ({ ...run, phase: "error", error: `The event stream broke off: ${message}` }));
    } finally {
      if (inflight.current === controller) inflight.current = null;
    }
  }

  function send(message: string) {
    const turnId = `turn-${++turnCount.current}`;
    pinned.current = true;
    setTurns((all) => [...all, { id: turnId, message, run: newRun() }]);
    void follow(turnId, (signal) => startRun({ target: agent, message, sessionId, signal }), "error");
  }

  function decide(turn: Turn, decisions: Decisions) {
    const { runId, sessionId: runSession, requirements } = turn.run;
    if (!runId || !runSession || busyTurn) return;
    const tools = decidedTools(requirements, decisions);
    pinned.current = true;
    // The form goes away with the decision: keep the keyboard where the conversation goes on.
    inputRef.current?.focus();
    updateRun(turn.id, (run) => ({ ...run, phase: "continuing", error: null }));
    void follow(turn.id, (signal) => continueRun({ target: agent, runId, sessionId: runSession, tools, signal }), "paused");
  }

  function stop() {
    if (!busyTurn) return;
    const { runId, sessionId: runSession } = busyTurn.run;
    // Before RunStarted there is no run id to cancel: dropping the request cancels the run. An
    // external agent's cancel route answers 501; the server cancels its run when its stream's
    // client goes away (lib/http/routes/external-agent-runs.ts), so Stop closes the stream.
    if (!runId || agent.framework) return inflight.current?.abort();
    updateRun(busyTurn.id, (run) => ({ ...run, stopRequested: true }));
    cancelRun({ target: agent, runId, sessionId: runSession }).catch((error: Error) =>
      updateRun(busyTurn.id, (run) => ({ ...run, stopRequested: false, error: `Could not cancel the run: ${error.message}` })),
    );
  }

  function newChat() {
    setTurns([]);
    setHistory([]);
    setSessionId(null);
    inputRef.current?.focus();
  }

  return (
    <>
      <header className="mb-4 space-y-2">
        <div className="flex flex-wrap items-start justify-between gap-3">
          <div className="min-w-0">
            <p className="text-sm">
              <a className="text-slate-600 underline hover:text-slate-900 dark:text-slate-400 dark:hover:text-slate-100" href="/dashboard/agents">
                Agents
              </a>
            </p>
            <h1 className="text-2xl font-semibold break-words">{agent.name}</h1>
            <p className="text-sm text-slate-600 dark:text-slate-400">
              <code>{agent.id}</code> · {agent.kind === "team" ? `team, ${agent.mode} mode · ` : ""}
              {agent.framework ? <FrameworkBadge framework={agent.framework} /> : (agent.model ?? "no model configured")}
            </p>
            {agent.members && (
              <p className="text-sm text-slate-600 dark:text-slate-400" data-testid="team-members">
                Members: {agent.members.map((m) => m.name).join(", ")}
              </p>
            )}
          </div>
          <button
            type="button"
            onClick={newChat}
            disabled={!!busyTurn || (turns.length === 0 && sessionId === null)}
            className="rounded border border-slate-300 bg-white px-3 py-1.5 text-sm font-medium hover:bg-slate-100 disabled:opacity-50 dark:border-slate-600 dark:bg-slate-900 dark:hover:bg-slate-800"
          >
            New chat
          </button>
        </div>
        {agent.description && <p className="text-sm text-slate-700 dark:text-slate-300">{agent.description}</p>}
        {agent.framework ? (
          <p className="text-xs text-slate-600 dark:text-slate-400">An external agent: its model and tools are set in its framework, and it takes text only.</p>
        ) : (
          <details className="text-sm">
            <summary className="cursor-pointer text-slate-600 dark:text-slate-400">Tools ({agent.tools.length})</summary>
            <div className="mt-2">
              <ToolList tools={agent.tools} />
            </div>
          </details>
        )}
        {agent.learning && (
          <details className="text-sm">
            <summary className="cursor-pointer text-slate-600 dark:text-slate-400">
              Learning ({agent.learning.stores.length + (agent.learning.memoryOnRun ? 1 : 0) + (agent.learning.agenticMemory ? 1 : 0)})
            </summary>
            <div className="mt-2 space-y-2">
              <LearningStoreList learning={agent.learning} />
              <p className="text-xs text-slate-600 dark:text-slate-400">
                What it learned about you is on{" "}
                <a href="/dashboard/learnings" className="underline">
                  What agents know
                </a>
                , where you can correct or delete it.
              </p>
            </div>
          </details>
        )}
        {!agent.model && !agent.framework && (
          <p role="alert" className="rounded border border-amber-400 bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:bg-amber-950 dark:text-amber-100">
            This {agent.kind} has no model provider configured: its runs fail until one is set.
          </p>
        )}
        <p className="text-xs text-slate-600 dark:text-slate-400" data-testid="session">
          {sessionId ? (
            <>
              Session <code>{sessionId}</code>
            </>
          ) : (
            "A new session starts with the first message."
          )}
        </p>
      </header>

      {history.length > 0 && (
        <ol aria-label="Earlier in this session" className="mb-6 space-y-3 border-b border-slate-200 pb-4 text-sm dark:border-slate-800">
          {history.map((exchange) => (
            <li key={exchange.runId} className="space-y-2 opacity-80">
              <p className="ml-auto w-fit max-w-[85%] rounded-lg bg-sky-50 px-3 py-2 whitespace-pre-wrap dark:bg-sky-950">{exchange.input}</p>
              {exchange.output ? (
                <Markdown text={exchange.output} className="w-fit max-w-[85%] rounded-lg bg-slate-100 px-3 py-2 dark:bg-slate-800" />
              ) : (
                <p className="w-fit max-w-[85%] rounded-lg bg-slate-100 px-3 py-2 dark:bg-slate-800">(no answer)</p>
              )}
            </li>
          ))}
        </ol>
      )}

      <div role="log" aria-label="Conversation" aria-live="polite" aria-busy={!!busyTurn}>
        {turns.length === 0 ? (
          <p className="py-8 text-center text-sm text-slate-600 dark:text-slate-400">
            {history.length > 0 ? "Send a message to go on with this session." : `Send a message to start chatting with ${agent.name}.`}
          </p>
        ) : (
          <ol className="space-y-6 pb-4">
            {turns.map((turn) => (
              <TurnView key={turn.id} turn={turn} busy={!!busyTurn} onDecide={decide} />
            ))}
          </ol>
        )}
      </div>

      {/* In the flow, not sticky: nothing of the conversation is ever hidden behind it. */}
      <div ref={endRef} className="border-t border-slate-200 pt-3 pb-6 dark:border-slate-800">
        <Composer inputRef={inputRef} busy={!!busyTurn} stopping={!!busyTurn?.run.stopRequested} onSend={send} onStop={stop} />
      </div>
    </>
  );
}
