/**
 * The worker threads that read documents (document-worker.ts → read-document.ts), so parsing a
 * PDF, a DOCX, a page or a table never runs on the event loop that serves the API, the dashboard,
 * MCP, the workflow socket and the queue's lease heartbeats. Each thread has a V8 heap limit
 * (`resourceLimits`) and each document a time limit; a thread that passes either is ended and
 * replaced, and its document fails with a message naming the setting. Threads start on first use
 * and end after a minute idle. The pool is process-wide, on globalThis (Next bundles route
 * handlers, actions and instrumentation as separate module graphs).
 *
 * The threads are plain `worker_threads` rather than a pool library because Next's bundler turns
 * only the literal `new Worker(new URL("./file.ts", import.meta.url))` into a worker bundle; a
 * library taking a file name at run time would need the TypeScript source and a loader.
 */
import { Worker } from "node:worker_threads";
import type { KnowledgeLimits } from "../config/settings.ts";
import type { DocumentRequest, DocumentResult } from "./read-document.ts";

export type PoolLimits = Pick<KnowledgeLimits, "readerThreads" | "readerMemoryMiB" | "readerTimeoutSeconds">;

const IDLE_MS = 60_000;
/** A thread that has not loaded the readers by then is ended. */
const STARTUP_MS = 30_000;
/** How often the process's memory is sampled while documents are read. */
const WATCH_MS = 200;

/**
 * A worker thread running document-worker.ts. Next's bundler recognises only the literal
 * `new Worker(new URL("./document-worker.ts", import.meta.url), { … })` as a worker of its own
 * (NEXT_RUNTIME is inlined in its server bundles); from source (vitest, tsx) the TypeScript entry
 * is loaded through tsx by a plain-JavaScript bootstrap, both named without a literal URL so the
 * bundler copies neither as an asset.
 */
function startWorker(memoryMiB: number): Worker {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    return new Worker(new URL("./document-worker.ts", import.meta.url), { resourceLimits: { maxOldGenerationSizeMb: memoryMiB }, stdout: false, stderr: false });
  }
  const sibling = (...name: string[]) => new URL(`./${name.join(".")}`, import.meta.url);
  return new Worker(sibling("document-worker-boot", "mjs"), {
    resourceLimits: { maxOldGenerationSizeMb: memoryMiB },
    workerData: { entry: sibling("document-worker", "ts").href },
  });
}

interface Thread {
  worker: Worker;
  /** Settles when the thread has loaded the readers (its first message), or failed to. */
  ready: Promise<void>;
  idleTimer?: NodeJS.Timeout;
  /** Exited by itself (it must not be handed out again). */
  exited?: boolean;
  /** Ended by the pool. */
  ended?: boolean;
}

interface Waiter {
  resolve: (thread: Thread) => void;
  reject: (reason: unknown) => void;
}

/** A read in progress, as the memory watchdog sees it. */
interface BusyRead {
  rssAtStart: number;
  stop(): void;
}

export class DocumentPool {
  private readonly idle: Thread[] = [];
  private readonly waiting: Waiter[] = [];
  private readonly busy = new Set<BusyRead>();
  private watchdog?: NodeJS.Timeout;
  private threads = 0;
  private closed = false;

  constructor(private readonly limits: PoolLimits) {}

  private get memoryMessage(): string {
    return `Reading the document needed more than ${this.limits.readerMemoryMiB} MiB of memory (knowledge.readerMemoryMiB), so it was stopped; split it into smaller files and upload each.`;
  }

  /**
   * Reads and chunks one document on a thread. The bytes are copied once and moved to the thread.
   * The time and memory limits are the pool's (not the request's). An abort ends the thread and
   * rejects with the signal's reason.
   */
  async read(request: DocumentRequest, signal?: AbortSignal): Promise<DocumentResult> {
    signal?.throwIfAborted();
    let thread: Thread | undefined;
    try {
      thread = await this.acquire(signal);
      // The time limit is the document's, not the thread's start-up.
      await withTimeout(thread.ready, STARTUP_MS, "it did not start within 30 s");
    } catch (error) {
      if (thread) this.discard(thread);
      if (signal?.aborted) throw signal.reason;
      return { ok: false, message: `Processing failed: the document reader could not start (${(error as Error).message})`, limit: false };
    }
    if (signal?.aborted) {
      this.release(thread);
      throw signal.reason;
    }
    const bytes = new Uint8Array(request.bytes);
    const ready = thread;
    return new Promise<DocumentResult>((resolve, reject) => {
      const { worker } = ready;
      const done = (settle: () => void, healthy: boolean) => {
        clearTimeout(timer);
        this.busy.delete(busy);
        signal?.removeEventListener("abort", onAbort);
        worker.off("message", onMessage).off("error", onError).off("exit", onExit);
        if (healthy) this.release(ready);
        else this.discard(ready);
        settle();
      };
      const onMessage = (result: DocumentResult) => done(() => resolve(result), true);
      const onError = (error: Error & { code?: string }) => {
        const outOfMemory = error.code === "ERR_WORKER_OUT_OF_MEMORY";
        const message = outOfMemory ? this.memoryMessage : `Processing failed: the document reader stopped (${error.message})`;
        done(() => resolve({ ok: false, message, limit: outOfMemory }), false);
      };
      const onExit = (code: number) => done(() => resolve({ ok: false, message: `Processing failed: the document reader exited (code ${code})`, limit: false }), false);
      const onAbort = () => done(() => reject(signal?.reason), false);
      const timer = setTimeout(() => {
        const seconds = this.limits.readerTimeoutSeconds;
        const message = `Reading the document took longer than ${seconds} s (knowledge.readerTimeoutSeconds), so it was stopped; split it into smaller files and upload each.`;
        done(() => resolve({ ok: false, message, limit: true }), false);
      }, this.limits.readerTimeoutSeconds * 1000);
      const busy: BusyRead = { rssAtStart: process.memoryUsage.rss(), stop: () => done(() => resolve({ ok: false, message: this.memoryMessage, limit: true }), false) };
      worker.on("message", onMessage).on("error", onError).on("exit", onExit);
      signal?.addEventListener("abort", onAbort, { once: true });
      this.watch(busy);
      worker.postMessage({ ...request, bytes }, [bytes.buffer]);
    });
  }

  /** Ends every thread (tests, shutdown); waiting reads are rejected, busy threads end when their read does. */
  async close(): Promise<void> {
    this.closed = true;
    for (const waiter of this.waiting.splice(0)) waiter.reject(new Error("The document pool was closed"));
    for (const thread of this.idle.splice(0)) this.end(thread);
  }

  private acquire(signal?: AbortSignal): Promise<Thread> {
    if (this.closed) return Promise.reject(new Error("the document pool is closed"));
    const thread = this.idle.pop();
    if (thread) {
      clearTimeout(thread.idleTimer);
      return Promise.resolve(thread);
    }
    if (this.threads < this.limits.readerThreads) return Promise.resolve(this.spawn());
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { resolve, reject };
      this.waiting.push(waiter);
      signal?.addEventListener(
        "abort",
        () => {
          const at = this.waiting.indexOf(waiter);
          if (at >= 0) this.waiting.splice(at, 1);
          reject(signal.reason);
        },
        { once: true },
      );
    });
  }

  /** A new thread (counted only once it exists, so a failed start leaks no slot). */
  private spawn(): Thread {
    const worker = startWorker(this.limits.readerMemoryMiB);
    this.threads++;
    // An idle thread must not keep the process alive; a busy one is awaited by its caller.
    worker.unref();
    const ready = new Promise<void>((resolve, reject) => {
      worker.once("message", () => resolve());
      worker.once("error", reject);
      worker.once("exit", (code) => reject(new Error(`exited with code ${code}`)));
    });
    ready.catch(() => undefined);
    const thread: Thread = { worker, ready };
    worker.once("exit", () => {
      thread.exited = true;
      // One that dies while idle leaves the pool (a busy one is handled by its read).
      const at = this.idle.indexOf(thread);
      if (at >= 0) {
        this.idle.splice(at, 1);
        this.end(thread);
      }
    });
    return thread;
  }

  /** Gives a healthy thread to the next waiter, or parks it idle until IDLE_MS passes. */
  private release(thread: Thread): void {
    if (thread.exited || this.closed) {
      this.discard(thread);
      return;
    }
    const waiter = this.waiting.shift();
    if (waiter) {
      waiter.resolve(thread);
      return;
    }
    thread.idleTimer = setTimeout(() => {
      const at = this.idle.indexOf(thread);
      if (at >= 0) this.idle.splice(at, 1);
      this.end(thread);
    }, IDLE_MS).unref();
    this.idle.push(thread);
  }

  /** Ends a thread that failed, ran over or exited, and starts another for a waiter. */
  private discard(thread: Thread): void {
    this.end(thread);
    const waiter = this.waiting.shift();
    if (!waiter) return;
    try {
      waiter.resolve(this.spawn());
    } catch (error) {
      waiter.reject(error);
    }
  }

  /** Ends a thread once, however many paths reach it. */
  private end(thread: Thread): void {
    if (thread.ended) return;
    thread.ended = true;
    clearTimeout(thread.idleTimer);
    this.threads--;
    void thread.worker.terminate();
  }

  /**
   * The heap limit does not cover memory outside V8's heap (the ArrayBuffers a PDF's or a zip's
   * inflated streams fill), so while reads run the process's resident memory is sampled: past
   * twice readerMemoryMiB per busy thread over what it was when the oldest read began, the reads
   * in progress are stopped.
   */
  private watch(read: BusyRead): void {
    this.busy.add(read);
    this.watchdog ??= setInterval(() => {
      if (this.busy.size === 0) {
        clearInterval(this.watchdog);
        this.watchdog = undefined;
        return;
      }
      const reads = [...this.busy];
      const base = Math.min(...reads.map((r) => r.rssAtStart));
      const budget = 2 * this.limits.readerMemoryMiB * 1024 * 1024 * reads.length;
      if (process.memoryUsage.rss() - base > budget) for (const busy of reads) busy.stop();
    }, WATCH_MS).unref();
  }
}

/** The promise, or a rejection naming `what` after `ms`. */
function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(what)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

type Holder = typeof globalThis & { __agentryDocumentPool?: DocumentPool };

/** The process's document pool, made with the first caller's limits. */
export function documentPool(limits: PoolLimits): DocumentPool {
  const holder = globalThis as Holder;
  holder.__agentryDocumentPool ??= new DocumentPool(limits);
  return holder.__agentryDocumentPool;
}
