import type { RunEvent } from "./events.ts";

/**
 * Process-wide live state of runs: abort controllers, cancel intents, event buffers and
 * subscribers. It lives on `globalThis` because Next bundles each route handler as its own module
 * graph; a module-level Map would exist once per route, and cancelling through one route a run
 * started by another would silently do nothing.
 */
export interface LiveRun {
  readonly runId: string;
  readonly sessionId: string;
  /** The agent or team the run belongs to. */
  readonly componentType: "agent" | "team" | "workflow";
  readonly componentId: string;
  readonly userId: string | null;
  readonly controller: AbortController;
  /** Buffered events, newest kept; `events[i]` has event_index `firstIndex + i`. */
  events: RunEvent[];
  firstIndex: number;
  nextIndex: number;
  status: string;
  done: boolean;
  finishedAt?: number;
  readonly subscribers: Set<RunSubscriber>;
}

export interface RunSubscriber {
  onEvent(event: RunEvent): void;
  onEnd(): void;
}

export const MAX_BUFFERED_EVENTS = 10_000;
const TRIM_BATCH = 1_000;
/** Finished runs stay resumable from memory this long (then from their stored events). */
const FINISHED_RUN_TTL_MS = 15 * 60 * 1000;
/** Expired entries are swept at most this often, so registering a run stays O(1). */
const SWEEP_INTERVAL_MS = 30_000;
const CANCEL_INTENT_TTL_MS = 24 * 60 * 60 * 1000;
const MAX_CANCEL_INTENTS = 100_000;

interface RegistryState {
  runs: Map<string, LiveRun>;
  /** run_id → when cancel was requested; kept even for runs that have not started yet. */
  cancelIntents: Map<string, number>;
  lastSweep: number;
}

const key = Symbol.for("agentry.run-registry");
type Holder = { [key]?: RegistryState };

function state(): RegistryState {
  const holder = globalThis as Holder;
  holder[key] ??= { runs: new Map(), cancelIntents: new Map(), lastSweep: Date.now() };
  return holder[key];
}

function sweep(now = Date.now()): void {
  const registry = state();
  if (now - registry.lastSweep < SWEEP_INTERVAL_MS) return;
  registry.lastSweep = now;
  const { runs, cancelIntents } = registry;
  for (const [id, run] of runs) if (run.done && now - (run.finishedAt ?? now) > FINISHED_RUN_TTL_MS) runs.delete(id);
  for (const [id, at] of cancelIntents) if (now - at > CANCEL_INTENT_TTL_MS) cancelIntents.delete(id);
}

/** Registers a starting (or continuing) run. A cancel requested before it started aborts it at once. */
export function registerRun({
  firstEventIndex,
  ...init
}: {
  runId: string;
  sessionId: string;
  componentType: "agent" | "team" | "workflow";
  componentId: string;
  userId: string | null;
  firstEventIndex?: number;
}): LiveRun {
  sweep();
  const existing = state().runs.get(init.runId);
  const start = Math.max(existing?.nextIndex ?? 0, firstEventIndex ?? 0);
  const run: LiveRun = {
    ...init,
    controller: new AbortController(),
    // A continued run keeps numbering its events where it left off.
    events: existing && existing.nextIndex === start ? existing.events : [],
    firstIndex: existing && existing.nextIndex === start ? existing.firstIndex : start,
    nextIndex: start,
    status: "RUNNING",
    done: false,
    // A continuation gets its own subscribers: the paused run's streams have already ended.
    subscribers: new Set(),
  };
  state().runs.set(init.runId, run);
  if (state().cancelIntents.has(init.runId)) run.controller.abort(new RunCancelledSignal());
  return run;
}

/**
 * A base class for errors that cross Next's module graphs: a signal made by one route bundle (a
 * cancel) is checked by the code of another (the run's), where the class is a different object.
 * `instanceof` checks a brand under a global symbol, the same in every graph.
 */
export function crossBundleError(name: string) {
  const brand = Symbol.for(`agentry.${name}`);
  return class extends Error {
    override readonly name: string = name;
    readonly [brand] = true;
    static [Symbol.hasInstance](value: unknown): boolean {
      return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[brand] === true;
    }
  };
}

export class RunCancelledSignal extends crossBundleError("RunCancelledSignal") {
  constructor(reason = "Run cancelled by request") {
    super(reason);
  }
}

/** A run that ran longer than its limit (queue.timeoutSeconds): it ends in ERROR. */
export class RunTimeoutSignal extends crossBundleError("RunTimeoutSignal") {
  constructor(seconds: number) {
    super(`Run timed out after ${seconds} s`);
  }
}

/** Records the intent to cancel (even before the run exists) and aborts the run if it is live here. */
export function requestCancel(runId: string): void {
  sweep();
  const intents = state().cancelIntents;
  // Bounded: the oldest intents go first if callers record a flood of them.
  if (intents.size >= MAX_CANCEL_INTENTS) intents.delete(intents.keys().next().value!);
  intents.set(runId, Date.now());
  const run = state().runs.get(runId);
  if (run && !run.done) run.controller.abort(new RunCancelledSignal());
}

export function isCancelRequested(runId: string): boolean {
  return state().cancelIntents.has(runId);
}

/** Forgets a cancel intent (a continued run starts fresh). */
export function clearCancel(runId: string): void {
  state().cancelIntents.delete(runId);
}

export function getLiveRun(runId: string): LiveRun | undefined {
  return state().runs.get(runId);
}

/** Numbers the event, buffers it (newest 10,000 kept) and hands it to every subscriber. */
export function publish(run: LiveRun, event: RunEvent): RunEvent {
  // Events are built fresh for each publish, so numbering them in place is safe (and saves a copy).
  const indexed = event;
  indexed.event_index = run.nextIndex++;
  run.events.push(indexed);
  // Trim in batches: splicing one element per event would make a long run's stream quadratic.
  if (run.events.length > MAX_BUFFERED_EVENTS + TRIM_BATCH) {
    const drop = run.events.length - MAX_BUFFERED_EVENTS;
    run.events.splice(0, drop);
    run.firstIndex += drop;
  }
  for (const subscriber of run.subscribers) subscriber.onEvent(indexed);
  return indexed;
}

export function finishRun(run: LiveRun, status: string): void {
  run.status = status;
  run.done = true;
  run.finishedAt = Date.now();
  for (const subscriber of run.subscribers) subscriber.onEnd();
}

/** Events after `lastEventIndex` still in the buffer. */
export function eventsAfter(run: LiveRun, lastEventIndex: number | null): RunEvent[] {
  const from = lastEventIndex === null ? 0 : lastEventIndex + 1;
  return run.events.slice(Math.max(0, from - run.firstIndex));
}

export function subscribe(run: LiveRun, subscriber: RunSubscriber): () => void {
  run.subscribers.add(subscriber);
  return () => run.subscribers.delete(subscriber);
}
