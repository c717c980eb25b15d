/**
 * Non-durable background execution: at most `max` background runs execute at once in this
 * replica; the rest wait as PENDING in submission order, and a session runs one run at a time (a
 * second submit to a busy session waits behind the first). Process-wide state on `globalThis`,
 * shared by every route bundle (Next bundles each as its own module graph).
 */
interface Task {
  readonly runId: string;
  readonly sessionId: string;
  readonly agentId: string;
  readonly userId: string | null;
  readonly run: () => Promise<unknown>;
}

/** A background run this replica holds, as the dashboard's queue page lists it. */
export interface BackgroundRun {
  runId: string;
  sessionId: string;
  agentId: string;
  userId: string | null;
  status: "PENDING" | "RUNNING";
  /** Epoch ms it was submitted (PENDING) or started (RUNNING). */
  since: number;
}

type Tracked = Task & { since: number };

interface LimiterState {
  running: number;
  readonly waiting: Tracked[];
  readonly active: Map<string, Tracked>;
  readonly busySessions: Set<string>;
}

const key = Symbol.for("agentry.background-limiter");
type Holder = { [key]?: LimiterState };

function state(): LimiterState {
  const holder = globalThis as Holder;
  holder[key] ??= { running: 0, waiting: [], active: new Map(), busySessions: new Set() };
  // A state made by an older bundle of this process (hot reload) lacks the newer fields.
  (holder[key] as { active?: Map<string, Tracked> }).active ??= new Map();
  return holder[key];
}

function pump(max: number): void {
  const limiter = state();
  for (let i = 0; i < limiter.waiting.length && limiter.running < max; ) {
    const task = limiter.waiting[i];
    if (limiter.busySessions.has(task.sessionId)) {
      i++;
      continue;
    }
    limiter.waiting.splice(i, 1);
    limiter.running++;
    limiter.busySessions.add(task.sessionId);
    limiter.active.set(task.runId, { ...task, since: Date.now() });
    void task
      .run()
      .catch(() => undefined) // a run settles its own failures; this only keeps the slot accounting right
      .finally(() => {
        limiter.running--;
        limiter.busySessions.delete(task.sessionId);
        limiter.active.delete(task.runId);
        pump(max);
      });
  }
}

/** Queues a background run; it starts as soon as a slot and its session are free. */
export function enqueueBackgroundRun(task: Task, max: number): void {
  state().waiting.push({ ...task, since: Date.now() });
  pump(Math.max(1, max));
}

/** Whether the run is waiting for a slot here (submitted, not started). */
export function isWaitingBackgroundRun(runId: string): boolean {
  return state().waiting.some((task) => task.runId === runId);
}

/** Running and waiting counts, for status pages and tests. */
export function backgroundLoad(): { running: number; waiting: number } {
  const limiter = state();
  return { running: limiter.running, waiting: limiter.waiting.length };
}

/**
 * The background runs this replica is running or holding (in start order, then submission
 * order), for owner `userId` only when given (a member sees only its own).
 */
export function backgroundRuns({ userId }: { userId?: string | null } = {}): BackgroundRun[] {
  const limiter = state();
  const view = (task: Tracked, status: BackgroundRun["status"]): BackgroundRun => ({
    runId: task.runId,
    sessionId: task.sessionId,
    agentId: task.agentId,
    userId: task.userId,
    status,
    since: task.since,
  });
  const all = [...[...limiter.active.values()].map((t) => view(t, "RUNNING")), ...limiter.waiting.map((t) => view(t, "PENDING"))];
  return userId === undefined ? all : all.filter((r) => r.userId === userId);
}
