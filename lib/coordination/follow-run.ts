import type { Db } from "../db/open-database.ts";
import { getRun } from "../db/runs/runs.ts";
import type { DataScope } from "../db/scope.ts";
import { isCancelledEventOf, isFinalEventOf, type RunEvent } from "../live-runs/events.ts";
import type { RedisCoordination } from "./redis-coordination.ts";
import { eventsAfter, getLiveRun, subscribe, type LiveRun } from "../live-runs/run-registry.ts";

export const FINAL_STATUSES = new Set(["COMPLETED", "ERROR", "CANCELLED", "PAUSED"]);

export interface FollowOptions {
  db: Db;
  scope: DataScope;
  runId: string;
  /** Events after this event_index (null: from the first). */
  after: number | null;
  coordination: RedisCoordination | null;
  pollMs: number;
  signal: AbortSignal;
  /** How long one Redis read waits for new events. */
  blockMs?: number;
}

/**
 * Tails a durable run executing anywhere: from its Redis stream when there is one, otherwise (or
 * when Redis fails, or shows a gap) from the events stored with the run, polled. Yields each event
 * once, in event_index order, and ends after the run's final event — or when the stored run has
 * ended with no more events to give (e.g. failed by the lease sweeper), or is not found.
 */
export async function* followRun(options: FollowOptions): AsyncGenerator<RunEvent> {
  const { db, scope, runId, coordination, pollMs, signal } = options;
  let last = options.after ?? -1;
  const reader = coordination?.openReader() ?? null;
  try {
    while (!signal.aborted) {
      // Executing in this process (the embedded worker): its live buffer, event by event.
      const local = getLiveRun(runId);
      // An attempt that ended here without ending the run (queued again, or its lease lost) is not
      // the run's record: what follows comes from wherever the run goes next.
      const attemptOnly = local?.done && (local.status === "PENDING" || local.status === "RUNNING");
      if (local && !attemptOnly && local.firstIndex <= last + 1 && (!local.done || local.nextIndex > last + 1)) {
        let cancelled = false;
        for await (const event of liveEvents(local, last, signal)) {
          last = event.event_index as number;
          yield event;
          if (isFinalEventOf(event, runId)) return;
          cancelled = isCancelledEventOf(event, runId);
        }
        // Its stream ended at its cancel (a workflow step a person rejected): nothing follows.
        if (cancelled && local.done) return;
        continue;
      }
      // Redis when it answers; the database (the truth, kept current by the worker whenever Redis
      // is not) when it does not, or when its stream has a gap (events published while it was down).
      let events = reader ? await reader.read(runId, last, options.blockMs ?? Math.max(pollMs, 1000)) : null;
      // Any gap (events Redis missed while it was down, or a publish that failed) means this
      // stretch is read from the database instead.
      if (events?.some((e, i) => (e.event_index as number) !== (i === 0 ? last : (events![i - 1].event_index as number)) + 1)) events = null;
      let stored: Awaited<ReturnType<typeof getRun>> | undefined;
      const fromDatabase = events === null;
      if (fromDatabase || events!.length === 0) {
        stored = await getRun(db, { scope, runId });
        if (!stored) return;
        if (fromDatabase) events = ((stored.run_data.events as RunEvent[] | undefined) ?? []).filter((e) => (e.event_index as number) > last);
      }
      for (const event of events!) {
        const index = event.event_index as number;
        if (index <= last) continue;
        last = index;
        yield event;
        if (isFinalEventOf(event, runId)) return;
      }
      if (stored && FINAL_STATUSES.has(stored.status ?? "") && events!.length === 0) {
        // Ended: what it stored past `last` is all that is left (a stream that expired or missed some).
        const storedEvents = (stored.run_data.events as RunEvent[] | undefined) ?? [];
        for (const event of storedEvents) {
          if ((event.event_index as number) <= last) continue;
          last = event.event_index as number;
          yield event;
          if (isFinalEventOf(event, runId)) return;
        }
        // Its stored stream ends at its cancel (a workflow step a person rejected): nothing follows.
        const lastStored = storedEvents.at(-1);
        if (lastStored && isCancelledEventOf(lastStored, runId)) return;
        // It ended without running to a final event (cancelled while queued, failed by the lease
        // sweeper): the stream still says how, as a client of a live run would have seen it.
        yield* finalEventsOf(stored, last + 1);
        return;
      }
      if (fromDatabase && events!.length === 0) await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  } finally {
    reader?.close();
  }
}

/**
 * The last events a run that ended as stored would have sent (it ended before it could send them),
 * numbered from `eventIndex`: its final event — for a cancelled run, its cancel then its completed
 * event, as a run cancelled while running ends its stream.
 */
export function finalEventsOf(stored: NonNullable<Awaited<ReturnType<typeof getRun>>>, eventIndex: number): RunEvent[] {
  const run = stored.run_data as { content?: unknown; error?: { message?: string; error_type?: string }; requirements?: unknown; tools?: unknown; step_requirements?: unknown };
  const kind = stored.run_type === "team" ? "team" : stored.run_type === "workflow" ? "workflow" : "agent";
  const base = {
    created_at: Math.floor(Date.now() / 1000),
    ...(kind === "team" ? { team_id: stored.team_id ?? undefined } : kind === "workflow" ? { workflow_id: stored.workflow_id ?? undefined } : { agent_id: stored.agent_id ?? undefined }),
    run_id: stored.run_id,
    session_id: stored.session_id,
  };
  // A team run's events carry Team* names, a workflow's Workflow* names.
  const name = (end: "Completed" | "Paused" | "Cancelled" | "Error") => (kind === "workflow" ? `Workflow${end}` : kind === "team" ? `TeamRun${end}` : `Run${end}`);
  const numbered = (events: Record<string, unknown>[]) => events.map((event, i) => ({ ...base, ...event, event_index: eventIndex + i }) as unknown as RunEvent);
  switch (stored.status) {
    case "COMPLETED":
      return numbered([{ event: name("Completed"), content: run.content ?? null }]);
    case "PAUSED":
      return numbered([
        kind === "workflow" ? { event: name("Paused"), step_requirements: run.step_requirements ?? [] } : { event: name("Paused"), tools: run.tools ?? [], requirements: run.requirements ?? [] },
      ]);
    case "CANCELLED": {
      const reason = run.error?.message ?? "Run cancelled";
      const content = run.content ?? reason;
      return numbered([
        { event: name("Cancelled"), reason, content },
        { event: name("Completed"), content },
      ]);
    }
    default: {
      const message = run.error?.message ?? run.content ?? "Run failed";
      return numbered([{ event: name("Error"), content: message, error_type: run.error?.error_type, ...(kind === "workflow" ? { error: message } : {}) }]);
    }
  }
}

/** A live run's events after `after`: the buffered ones, then each as it is published, until it ends. */
async function* liveEvents(live: LiveRun, after: number, signal: AbortSignal): AsyncGenerator<RunEvent> {
  const pending: RunEvent[] = [];
  let ended = live.done;
  let notify: (() => void) | null = null;
  const wake = () => {
    notify?.();
    notify = null;
  };
  // Buffer read and subscription in one synchronous step: nothing published in between is lost.
  const unsubscribe = live.done
    ? () => undefined
    : subscribe(live, {
        onEvent: (event) => {
          pending.push(event);
          wake();
        },
        onEnd: () => {
          ended = true;
          wake();
        },
      });
  pending.unshift(...eventsAfter(live, after));
  const onAbort = () => wake();
  signal.addEventListener("abort", onAbort);
  let last = after;
  try {
    while (!signal.aborted) {
      while (pending.length > 0) {
        const event = pending.shift()!;
        if ((event.event_index as number) <= last) continue;
        last = event.event_index as number;
        yield event;
      }
      if (ended) return;
      await new Promise<void>((resolve) => (notify = resolve));
    }
  } finally {
    unsubscribe();
    signal.removeEventListener("abort", onAbort);
  }
}
