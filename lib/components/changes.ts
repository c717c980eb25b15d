import { randomUUID } from "node:crypto";
import { COMPONENT_TYPES, type ComponentType } from "../config/component-config.ts";
import type { Settings } from "../config/settings.ts";
import { redisCoordination, type RedisCoordination } from "../coordination/redis-coordination.ts";
import type { Db } from "../db/open-database.ts";
import { log } from "../log.ts";

/** What changed which components may be run: a version published, a rollback (set current), an archive, a restore. */
export type ComponentChangeAction = "published" | "current" | "archived" | "restored";

export interface ComponentChange {
  type: ComponentType;
  id: string;
  action: ComponentChangeAction;
}

/**
 * Hears the changes of one deployment (its database): a change this process made or another
 * replica announced over Redis, or `null` when the periodic check of `agno_components` saw the
 * table change (a replica without Redis wrote it; which component, the check cannot tell).
 */
export type ComponentChangeListener = (change: ComponentChange | null) => void;

/** How often the components table is checked while anyone listens (the only way to hear a replica when Redis is down or absent). */
export const CHANGE_POLL_MS = 5_000;

const ACTIONS: readonly ComponentChangeAction[] = ["published", "current", "archived", "restored"];
const TOPIC = "components";

interface Watch {
  settings: Settings;
  db: () => Promise<Db>;
  listeners: Set<ComponentChangeListener>;
  timer: ReturnType<typeof setInterval>;
  stopRedis: (() => void) | null;
  /** The table's last fingerprint; null before the first check. */
  fingerprint: string | null;
  checking: boolean;
  /** A change was heard (not by the check) while a check was reading: the table is read again as the new baseline. */
  rebaseline: boolean;
}

interface Bus {
  /** This process, in the messages it publishes: its own come back from Redis and are skipped. */
  origin: string;
  watches: Map<string, Watch>;
}

const key = Symbol.for("agentry.component-changes");
type Holder = { [key]?: Bus };

/** On `globalThis`: Next bundles the routes that write and the MCP route as separate module graphs. */
function bus(): Bus {
  const holder = globalThis as Holder;
  return (holder[key] ??= { origin: randomUUID(), watches: new Map() });
}

/** One deployment: the database its components live in. */
function deploymentKey(settings: Settings): string {
  return `${settings.osId}:${settings.database.id}`;
}

/** The Redis coordination of the deployment, the same connection set as the queue's (lib/queue/embedded-worker.ts); null without Redis. */
function coordinationOf(settings: Settings): RedisCoordination | null {
  return redisCoordination(settings.queue.redis, `agentry:${settings.osId}:${settings.database.id}:`);
}

function deliver(watch: Watch, change: ComponentChange | null): void {
  for (const listener of [...watch.listeners]) {
    try {
      listener(change);
    } catch (error) {
      log.warn(`[components] a change listener failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

/** A change heard as an event (not by the check): listeners hear it now, and the table is read at once as the check's new baseline, so the check does not report it again. */
function heard(watch: Watch, change: ComponentChange): void {
  queueMicrotask(() => deliver(watch, change));
  void check(watch, true);
}

function parseChange(message: string): { origin: string; change: ComponentChange } | null {
  try {
    const value = JSON.parse(message) as { origin?: unknown; type?: unknown; id?: unknown; action?: unknown };
    if (typeof value.origin !== "string" || typeof value.id !== "string" || !COMPONENT_TYPES.includes(value.type as ComponentType) || !ACTIONS.includes(value.action as ComponentChangeAction))
      return null;
    return { origin: value.origin, change: { type: value.type as ComponentType, id: value.id, action: value.action as ComponentChangeAction } };
  } catch {
    return null;
  }
}

/**
 * Announces that a component was published, rolled back, archived or restored, after the write
 * committed (lib/components/store.ts calls it): this process's listeners hear it at once, every
 * other replica over Redis when it is configured (a publish Redis does not take is dropped: their
 * periodic check sees the table change instead). Never throws.
 */
export function componentsChanged(settings: Settings, change: ComponentChange): void {
  const watch = bus().watches.get(deploymentKey(settings));
  if (watch) heard(watch, { type: change.type, id: change.id, action: change.action });
  try {
    coordinationOf(settings)?.publishTopic(TOPIC, JSON.stringify({ origin: bus().origin, type: change.type, id: change.id, action: change.action }));
  } catch (error) {
    log.warn(`[components] could not announce a change over Redis: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * A cheap summary of `agno_components` that any publish, rollback, archive or restore changes:
 * each of them rewrites the row's `current_version`, `deleted_at` and `updated_at` (epoch seconds).
 */
async function fingerprintOf(db: Db): Promise<string> {
  const [row] = await db.sql.query(
    "SELECT COUNT(*) AS n, COUNT(deleted_at) AS archived, SUM(current_version) AS versions, MAX(updated_at) AS updated, MAX(deleted_at) AS deleted FROM agno_components",
  );
  return JSON.stringify([row?.n, row?.archived, row?.versions, row?.updated, row?.deleted].map((v) => (v === null || v === undefined ? null : String(v))));
}

/**
 * The periodic check: a fingerprint that moved since the last read is reported as `null`. A
 * `baseline` read (after a change heard as an event) only takes the table as it is.
 */
async function check(watch: Watch, baseline: boolean): Promise<void> {
  if (watch.checking) {
    if (baseline) watch.rebaseline = true;
    return;
  }
  watch.checking = true;
  try {
    let asBaseline = baseline;
    for (;;) {
      watch.rebaseline = false;
      const fingerprint = await fingerprintOf(await watch.db());
      // A change heard while reading may or may not be in this read: read again, as the baseline.
      if (watch.rebaseline) {
        asBaseline = true;
        continue;
      }
      const moved = !asBaseline && watch.fingerprint !== null && fingerprint !== watch.fingerprint;
      watch.fingerprint = fingerprint;
      if (moved) deliver(watch, null);
      return;
    }
  } catch (error) {
    log.debug(`[components] the change check could not read agno_components: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    watch.checking = false;
  }
}

/**
 * Listens to the deployment's component changes until the answered function is called: changes
 * this process makes, other replicas' over Redis when configured, and — Redis or not — a check of
 * the components table every `pollMs` (default CHANGE_POLL_MS) while anyone listens, one per
 * deployment however many listen. `db` opens the deployment's database for that check.
 */
export function onComponentsChanged(settings: Settings, db: () => Promise<Db>, listener: ComponentChangeListener, options: { pollMs?: number } = {}): () => void {
  const watches = bus().watches;
  const id = deploymentKey(settings);
  let watch = watches.get(id);
  if (!watch) {
    const created: Watch = { settings, db, listeners: new Set(), timer: undefined as never, stopRedis: null, fingerprint: null, checking: false, rebaseline: false };
    created.timer = setInterval(() => void check(created, false), options.pollMs ?? CHANGE_POLL_MS);
    created.timer.unref?.();
    created.stopRedis =
      coordinationOf(settings)?.onTopic(TOPIC, (message) => {
        const parsed = parseChange(message);
        if (parsed && parsed.origin !== bus().origin) heard(created, parsed.change);
      }) ?? null;
    watches.set(id, created);
    watch = created;
    void check(created, true);
  }
  const current = watch;
  current.listeners.add(listener);
  let stopped = false;
  return () => {
    if (stopped) return;
    stopped = true;
    current.listeners.delete(listener);
    if (current.listeners.size > 0 || watches.get(id) !== current) return;
    clearInterval(current.timer);
    current.stopRedis?.();
    watches.delete(id);
  };
}
