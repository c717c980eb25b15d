import { Redis } from "ioredis";
import { log } from "../log.ts";
import type { RunEvent } from "../live-runs/events.ts";

/** Live event streams are kept this long after their last event. */
export const STREAM_TTL_SECONDS = 30 * 60;
/** About this many events stay in a run's stream (trimmed approximately, as XADD MAXLEN ~ does). */
export const STREAM_MAX_EVENTS = 10_000;
/** After a failed write to Redis, the database stays the live copy this long. */
const FAILURE_MEMORY_MS = 5_000;
/** How long a reader waits for a connection still being made. */
const CONNECT_WAIT_MS = 2_000;

/** Reads a run's Redis stream for one follower. */
export interface StreamReader {
  /** Events after `afterIndex` (null: from the start), waiting up to `blockMs` for one; null when Redis cannot answer. */
  read(runId: string, afterIndex: number | null, blockMs: number): Promise<RunEvent[] | null>;
  close(): void;
}

/**
 * Redis as coordination, never truth: each durable run's events in a stream (so any replica can
 * tail or resume it), cancel signals and job wake-ups over pub/sub. Every operation degrades
 * instead of failing: a publish that cannot reach Redis is dropped (the database has the run and
 * its events), a read answers null (the caller falls back to the database).
 *
 * Stream entry ids are `<event_index + 1>-0`, so "events after index n" is `XREAD … <n+1>-0`.
 */
export class RedisCoordination {
  private readonly commands: Redis;
  private subscriber: Redis | null = null;
  private readonly expiresAt = new Map<string, number>();
  private readonly cancelHandlers = new Set<(runId: string) => void>();
  private readonly wakeHandlers = new Set<() => void>();
  private readonly topicHandlers = new Map<string, Set<(message: string) => void>>();
  private warnedAt = 0;
  private failedAt = 0;

  constructor(
    readonly url: string,
    /** Namespaces every key and channel (one per database, so deployments never mix). */
    readonly prefix: string,
  ) {
    this.commands = new Redis(url, {
      lazyConnect: false,
      // Commands issued while (re)connecting wait for the connection, so a run's first events are
      // not dropped at start-up; while Redis stays down they fail after one retry (bounded).
      maxRetriesPerRequest: 1,
      enableOfflineQueue: true,
      connectTimeout: 2_000,
      retryStrategy: (times) => Math.min(times * 200, 2_000),
      // Commands issued in one tick of the event loop (a run's events, wake-ups) go out as one
      // write: a socket write per command was a large share of a busy worker's CPU.
      enableAutoPipelining: true,
    });
    this.commands.on("error", (error) => this.warn(error));
  }

  private streamKey(runId: string) {
    return `${this.prefix}run:${runId}:events`;
  }

  private warn(error: unknown) {
    const now = Date.now();
    if (now - this.warnedAt < 30_000) return;
    this.warnedAt = now;
    log.warn(`[redis] ${(error as Error)?.message ?? String(error)}: continuing on the database alone`);
  }

  get ready(): boolean {
    return this.commands.status === "ready";
  }

  /**
   * Whether live streams can rely on Redis now: connected, and no write to it failed lately (the
   * events of a failed write are only in the database; writers keep the database current meanwhile).
   */
  get healthy(): boolean {
    return this.ready && Date.now() - this.failedAt > FAILURE_MEMORY_MS;
  }

  /** Ready now, or within a moment when the connection is still being made; false when Redis is down. */
  async available(): Promise<boolean> {
    if (this.ready) return true;
    if (!["wait", "connecting", "connect"].includes(this.commands.status)) return false;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.commands.off("ready", done);
        resolve();
      };
      const timer = setTimeout(done, CONNECT_WAIT_MS);
      this.commands.once("ready", done);
    });
    return this.ready;
  }

  /** Appends a run's event to its stream (fire and forget; order is kept by the one connection). */
  publishEvent(runId: string, event: RunEvent): void {
    if (this.commands.status === "end") return;
    const key = this.streamKey(runId);
    const index = event.event_index as number;
    this.commands.xadd(key, "MAXLEN", "~", String(STREAM_MAX_EVENTS), `${index + 1}-0`, "e", JSON.stringify(event)).catch((error: Error) => {
      // An id at or below the stream's top: this index was published before (by an attempt
      // whose numbering this one could not see). The stream cannot be trusted for this stretch:
      // writers keep the database current meanwhile (healthy turns false), followers check it.
      this.failedAt = Date.now();
      if (!/equal or smaller/.test(error.message)) this.warn(error);
    });
    const now = Date.now();
    if ((this.expiresAt.get(key) ?? 0) < now + (STREAM_TTL_SECONDS * 1000) / 2) {
      this.expiresAt.set(key, now + STREAM_TTL_SECONDS * 1000);
      this.commands.expire(key, STREAM_TTL_SECONDS).catch((error) => this.warn(error));
    }
  }

  /** Forgets local bookkeeping for a finished run (the stream itself expires in Redis). */
  forget(runId: string): void {
    this.expiresAt.delete(this.streamKey(runId));
  }

  /**
   * A reader for one follower: blocking reads hold their connection, so each follower gets one of
   * its own, reused for all its reads and closed with it.
   */
  openReader(): StreamReader {
    let connection: Redis | null = null;
    return {
      read: async (runId, afterIndex, blockMs) => {
        if (!(await this.available())) return null;
        if (!connection) {
          connection = this.commands.duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: 0 });
          connection.on("error", () => undefined);
        }
        const from = `${(afterIndex ?? -1) + 1}-0`;
        try {
          const reply = (await connection.xread("COUNT", 1000, "BLOCK", Math.max(1, blockMs), "STREAMS", this.streamKey(runId), from)) as [string, [string, string[]][]][] | null;
          if (!reply) return [];
          return reply[0][1].map(([, fields]) => JSON.parse(fields[1]) as RunEvent);
        } catch (error) {
          this.warn(error);
          connection.disconnect();
          connection = null;
          return null;
        }
      },
      close: () => {
        connection?.disconnect();
        connection = null;
      },
    };
  }

  /** The highest event_index in a run's stream, or null (none, or Redis unavailable). */
  async lastEventIndex(runId: string): Promise<number | null> {
    // A worker that just started may still be connecting: wait for it, or a re-executed attempt
    // would number its events over the ones already in the stream.
    if (!(await this.available())) return null;
    try {
      const [entry] = (await this.commands.xrevrange(this.streamKey(runId), "+", "-", "COUNT", 1)) as [string, string[]][];
      return entry ? Number(entry[0].split("-")[0]) - 1 : null;
    } catch (error) {
      this.warn(error);
      return null;
    }
  }

  /** Tells every replica to cancel the run now (the intent itself is already in the database). */
  publishCancel(runId: string): void {
    if (this.commands.status !== "end") this.commands.publish(`${this.prefix}cancel`, runId).catch((error) => this.warn(error));
  }

  /** Tells every worker a job is ready (they would see it within the poll interval anyway). */
  publishWake(): void {
    if (this.commands.status !== "end") this.commands.publish(`${this.prefix}wake`, "1").catch((error) => this.warn(error));
  }

  onCancel(handler: (runId: string) => void): () => void {
    this.cancelHandlers.add(handler);
    this.ensureSubscriber();
    return () => this.cancelHandlers.delete(handler);
  }

  onWake(handler: () => void): () => void {
    this.wakeHandlers.add(handler);
    this.ensureSubscriber();
    return () => this.wakeHandlers.delete(handler);
  }

  /** Tells every replica (this one too) a message on one of this namespace's topics; dropped while Redis is down. */
  publishTopic(topic: string, message: string): void {
    if (this.commands.status !== "end") this.commands.publish(`${this.prefix}topic:${topic}`, message).catch((error) => this.warn(error));
  }

  /** Hears a topic's messages from every replica (this one's too); answers the unsubscribe. */
  onTopic(topic: string, handler: (message: string) => void): () => void {
    let handlers = this.topicHandlers.get(topic);
    if (!handlers) {
      this.topicHandlers.set(topic, (handlers = new Set()));
      this.ensureSubscriber();
      this.subscriber?.subscribe(`${this.prefix}topic:${topic}`).catch((error) => this.warn(error));
    }
    handlers.add(handler);
    return () => handlers.delete(handler);
  }

  private ensureSubscriber() {
    if (this.subscriber) return;
    const subscriber = new Redis(this.url, { maxRetriesPerRequest: null, connectTimeout: 2_000, retryStrategy: (times) => Math.min(times * 200, 2_000) });
    subscriber.on("error", (error) => this.warn(error));
    subscriber.subscribe(`${this.prefix}cancel`, `${this.prefix}wake`).catch((error) => this.warn(error));
    subscriber.on("message", (channel: string, message: string) => {
      if (channel === `${this.prefix}cancel`) for (const handler of this.cancelHandlers) handler(message);
      else if (channel === `${this.prefix}wake`) for (const handler of this.wakeHandlers) handler();
      else if (channel.startsWith(`${this.prefix}topic:`)) for (const handler of this.topicHandlers.get(channel.slice(this.prefix.length + 6)) ?? []) handler(message);
    });
    this.subscriber = subscriber;
  }

  async close(): Promise<void> {
    this.subscriber?.disconnect();
    this.commands.disconnect();
  }
}

const key = Symbol.for("agentry.redis-coordination");
type Holder = { [key]?: Map<string, RedisCoordination> };

/**
 * The process's coordination for a Redis URL and prefix: one connection set per process, kept on
 * `globalThis` because Next bundles route handlers, pages and instrumentation.ts as separate
 * module graphs, each with its own module-level state.
 */
export function redisCoordination(url: string | undefined, prefix: string): RedisCoordination | null {
  if (!url) return null;
  const holder = globalThis as Holder;
  const all = (holder[key] ??= new Map());
  const id = `${url}|${prefix}`;
  let coordination = all.get(id);
  if (!coordination) all.set(id, (coordination = new RedisCoordination(url, prefix)));
  return coordination;
}

/** Closes every coordination this process opened (tests, worker shutdown). */
export async function closeRedisCoordinations(): Promise<void> {
  const all = (globalThis as Holder)[key];
  if (!all) return;
  await Promise.all([...all.values()].map((c) => c.close()));
  all.clear();
}
