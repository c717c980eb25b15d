import type { RunEvent } from "../live-runs/events.ts";
import { eventsAfter, subscribe, type LiveRun } from "../live-runs/run-registry.ts";

/** Headers that let SSE reach the client event by event: no caching, no transform, no proxy buffering. */
export const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no",
  connection: "keep-alive",
} as const;

export const HEARTBEAT_MS = 15_000;
const encoder = new TextEncoder();

/** `event: X\ndata: {…}\n\n` — the payload carries its own `event` field too (agent-ui reads only that). */
export function sseFrame(name: string, payload: unknown): Uint8Array {
  return encoder.encode(`event: ${name}\ndata: ${JSON.stringify(payload)}\n\n`);
}

export interface RunStreamOptions {
  live: LiveRun;
  /** Send buffered events after this index first (null: from the start). */
  lastEventIndex: number | null;
  /** Control frames sent before the events (resume's replay / catch_up / subscribed). */
  preamble?: (missed: RunEvent[]) => { name: string; payload: unknown }[];
  /** Called when the client goes away before the run ended (an inline run is then cancelled). */
  onDisconnect?: () => void;
  heartbeatMs?: number;
}

/**
 * Streams a live run's events: those already buffered after `lastEventIndex`, then new ones as
 * they are published, deduplicated by event_index; heartbeat comments while idle; closes after
 * the run ends. Buffered events are read and the subscription made in one synchronous step, so
 * nothing published in between can be lost.
 */
export function runEventStream(options: RunStreamOptions): ReadableStream<Uint8Array> {
  let unsubscribe: (() => void) | undefined;
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  let closed = false;
  const cleanup = () => {
    closed = true;
    unsubscribe?.();
    if (heartbeat) clearInterval(heartbeat);
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const { live } = options;
      let lastSent = options.lastEventIndex ?? -1;
      const send = (event: RunEvent) => {
        const index = event.event_index as number;
        if (closed || index <= lastSent) return;
        lastSent = index;
        controller.enqueue(sseFrame(event.event, event));
      };
      const end = () => {
        if (closed) return;
        cleanup();
        controller.close();
      };
      const missed = eventsAfter(live, options.lastEventIndex);
      if (!live.done) unsubscribe = subscribe(live, { onEvent: send, onEnd: end });
      for (const frame of options.preamble?.(missed) ?? []) controller.enqueue(sseFrame(frame.name, frame.payload));
      missed.forEach(send);
      if (live.done) return end();
      heartbeat = setInterval(() => {
        if (!closed) controller.enqueue(encoder.encode(": heartbeat\n\n"));
      }, options.heartbeatMs ?? HEARTBEAT_MS);
    },
    cancel() {
      const wasLive = !options.live.done;
      cleanup();
      if (wasLive) options.onDisconnect?.();
    },
  });
}

/**
 * Streams events from an async source (a durable run tailed from Redis or the database), after
 * optional preamble frames, with heartbeats while idle. A client going away stops the source.
 */
export function iterableEventStream({
  preamble = [],
  events,
  heartbeatMs = HEARTBEAT_MS,
}: {
  preamble?: { name: string; payload: unknown }[];
  events: (signal: AbortSignal) => AsyncIterable<RunEvent>;
  heartbeatMs?: number;
}): ReadableStream<Uint8Array> {
  const abort = new AbortController();
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  return new ReadableStream<Uint8Array>({
    async start(controller) {
      for (const frame of preamble) controller.enqueue(sseFrame(frame.name, frame.payload));
      heartbeat = setInterval(() => controller.enqueue(encoder.encode(": heartbeat\n\n")), heartbeatMs);
      try {
        for await (const event of events(abort.signal)) {
          if (abort.signal.aborted) return;
          controller.enqueue(sseFrame(event.event, event));
        }
        controller.close();
      } catch (error) {
        if (!abort.signal.aborted) controller.error(error);
      } finally {
        clearInterval(heartbeat);
      }
    },
    cancel() {
      clearInterval(heartbeat);
      abort.abort();
    },
  });
}

/** A stream of fixed frames (resume's DB fallback and its error). */
export function frameStream(frames: { name: string; payload: unknown }[]): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (const frame of frames) controller.enqueue(sseFrame(frame.name, frame.payload));
      controller.close();
    },
  });
}

export function sseResponse(body: ReadableStream<Uint8Array>): Response {
  return new Response(body, { status: 200, headers: SSE_HEADERS });
}
