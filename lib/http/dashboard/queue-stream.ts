import { randomUUID } from "node:crypto";
import type { Settings } from "../../config/settings.ts";
import type { Db } from "../../db/open-database.ts";
import type { DataScope } from "../../db/scope.ts";
import { log } from "../../log.ts";
import { HEARTBEAT_MS, sseFrame } from "../sse.ts";
import { queueSnapshot, type QueueSnapshot } from "./queue-snapshot.ts";

/** How often the live queue view re-reads the queue; a snapshot is sent only when it changed. */
export const QUEUE_POLL_MS = 1000;
/** How often the stream checks again who is watching (a disabled or demoted user stops seeing it). */
export const REAUTHORIZE_MS = 15_000;

/**
 * One read of the queue per scope per poll interval in this process, however many pages watch it:
 * streams of the same scope share the read in flight or just made (within QUEUE_POLL_MS).
 */
const sharedReads = new Map<string, { at: number; read: Promise<QueueSnapshot> }>();

function sharedSnapshot(db: Db, settings: Settings, scope: DataScope, maxAgeMs: number): Promise<QueueSnapshot> {
  const key = `${settings.database.id}|${JSON.stringify(scope)}`;
  const now = Date.now();
  const recent = sharedReads.get(key);
  if (recent && now - recent.at < maxAgeMs) return recent.read;
  for (const [k, entry] of sharedReads) if (now - entry.at >= maxAgeMs) sharedReads.delete(k);
  const read = queueSnapshot(db, settings, scope);
  sharedReads.set(key, { at: now, read });
  // A failed read is not shared: the next tick of any stream tries again.
  read.catch(() => sharedReads.get(key)?.read === read && sharedReads.delete(key));
  return read;
}

/**
 * An SSE stream of the queue as the viewer may see it: a `snapshot` event at once and whenever it
 * changes, a comment every HEARTBEAT_MS so proxies keep the connection open. `authorize` gives the
 * viewer's scope now (null once they are signed out, disabled or no longer allowed); it is asked
 * again every `reauthorizeMs` and the stream ends when it says null. A failed read is an `error`
 * event naming an error id (the cause goes to the log); the next good read is sent whatever it holds.
 */
export function queueEventStream({
  db,
  settings,
  scope: initialScope,
  authorize,
  signal,
  pollMs = QUEUE_POLL_MS,
  reauthorizeMs = REAUTHORIZE_MS,
}: {
  db: Db;
  settings: Settings;
  scope: DataScope;
  authorize: () => Promise<DataScope | null>;
  signal: AbortSignal;
  pollMs?: number;
  reauthorizeMs?: number;
}): ReadableStream<Uint8Array> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let closed = false;
  let scope = initialScope;
  let last = "";
  let lastSent = Date.now();
  let authorizedAt = Date.now();
  let failures = 0;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const stop = () => {
        if (closed) return;
        closed = true;
        clearTimeout(timer);
        try {
          controller.close();
        } catch {
          // the client has gone already
        }
      };
      const send = (chunk: Uint8Array) => {
        try {
          controller.enqueue(chunk);
        } catch {
          stop();
        }
      };
      if (signal.aborted) return stop();
      signal.addEventListener("abort", stop, { once: true });
      const tick = async () => {
        try {
          if (Date.now() - authorizedAt >= reauthorizeMs) {
            const now = await authorize();
            if (closed) return;
            if (!now) return stop();
            scope = now;
            authorizedAt = Date.now();
          }
          const snapshot = await sharedSnapshot(db, settings, scope, pollMs);
          if (closed) return;
          failures = 0;
          const text = JSON.stringify(snapshot);
          if (text !== last) {
            last = text;
            send(sseFrame("snapshot", snapshot));
            lastSent = Date.now();
          } else if (Date.now() - lastSent >= HEARTBEAT_MS) {
            send(new TextEncoder().encode(": keep-alive\n\n"));
            lastSent = Date.now();
          }
        } catch (error) {
          if (closed) return;
          failures++;
          const errorId = randomUUID();
          log.error(`[error ${errorId}] dashboard queue stream: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
          // Whatever the next good read holds, it is sent: the page must not keep showing the error.
          last = "";
          send(sseFrame("error", { detail: `Could not read the queue (error ${errorId}); retrying.` }));
        }
        // While reads fail, wait longer between tries (up to 30 s), so an outage is not hammered.
        if (!closed) timer = setTimeout(() => void tick(), failures === 0 ? pollMs : Math.min(30_000, pollMs * 2 ** failures));
      };
      void tick();
    },
    cancel() {
      closed = true;
      clearTimeout(timer);
    },
  });
}
