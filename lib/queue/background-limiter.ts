/**
 * Non-durable background execution: at most `max` background runs execute at once in this
 * replica; the rest wait as PENDING in submission order, and a session runs one run at a time (a
 * second submit to a busy session waits behind the first). Process-wide state on `globalThis`,
 * shared by every route bundle (TOOLCHAIN trap 9).
 */
interface Task {
  readonly sessionId: string;
  readonly run: () => Promise<unknown>;
}

interface LimiterState {
  running: number;
  readonly waiting: Task[];
  readonly busySessions: Set<string>;
}

const key = Symbol.for("agentry.background-limiter");
type Holder = { [key]?: LimiterState };

function state(): LimiterState {
  const holder = globalThis as Holder;
  holder[key] ??= { running: 0, waiting: [], busySessions: new Set() };
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
    void task
      .run()
      .catch(() => undefined) // a run settles its own failures; this only keeps the slot accounting right
      .finally(() => {
        limiter.running--;
        limiter.busySessions.delete(task.sessionId);
        pump(max);
      });
  }
}

/** Queues a background run; it starts as soon as a slot and its session are free. */
export function enqueueBackgroundRun(task: Task, max: number): void {
  state().waiting.push(task);
  pump(Math.max(1, max));
}

/** Running and waiting counts, for status pages and tests. */
export function backgroundLoad(): { running: number; waiting: number } {
  const limiter = state();
  return { running: limiter.running, waiting: limiter.waiting.length };
}
