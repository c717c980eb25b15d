import "server-only";
import type { Settings } from "../../config/settings.ts";
import type { Db } from "../../db/open-database.ts";
import type { DataScope } from "../../db/scope.ts";
import { HEARTBEAT_MS, sseFrame } from "../sse.ts";
import { queueSnapshot } from "./queue-snapshot.ts";

/** How often the live queue view re-reads the queue; a snapshot is sent only when it changed. */
export const QUEUE_POLL_MS = 1000;

/**
 * An SSE stream of the queue as `scope` sees it: a `snapshot` event at once and whenever it
 * changes, a comment every HEARTBEAT_MS so proxies keep the connection open. Stops when the client
 * goes away; a failed read is sent as an `error` event and retried at the next tick.
 */
export function queueEventStream({ db, settings, scope, signal }: { db: Db; settings: Settings; scope: DataScope; signal: AbortSignal }): ReadableStream<Uint8Array> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let last = "";
  let lastSent = Date.now();
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const stop = () => {
        clearTimeout(timer);
        try {
          controller.close();
        } catch {
          // already closed
        }
      };
      signal.addEventListener("abort", stop, { once: true });
      const tick = async () => {
        if (signal.aborted) return;
        try {
          const snapshot = await queueSnapshot(db, settings, scope);
          const text = JSON.stringify(snapshot);
          if (text !== last) {
            last = text;
            controller.enqueue(sseFrame("snapshot", snapshot));
            lastSent = Date.now();
          } else if (Date.now() - lastSent >= HEARTBEAT_MS) {
            controller.enqueue(new TextEncoder().encode(": keep-alive\n\n"));
            lastSent = Date.now();
          }
        } catch (error) {
          if (signal.aborted) return;
          controller.enqueue(sseFrame("error", { detail: `Could not read the queue: ${(error as Error).message}` }));
        }
        if (!signal.aborted) timer = setTimeout(() => void tick(), QUEUE_POLL_MS);
      };
      void tick();
    },
    cancel() {
      clearTimeout(timer);
    },
  });
}
