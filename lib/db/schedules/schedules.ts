import { randomUUID } from "node:crypto";
import { ConflictError, NotFoundError } from "../../errors/domain-errors.ts";
import { FENCE_SQL, fenceParams, type JobFence } from "../jobs/job-fence.ts";
import { isUniqueViolation } from "../jobs/unique-violation.ts";
import { parseJson } from "../json.ts";
import type { Db } from "../open-database.ts";
import { pageWindow } from "../pagination.ts";
import { ownerSql, type DataScope } from "../scope.ts";

/**
 * agno_schedules and agno_schedule_runs: cron schedules, each owned by a user (`user_id`; null =
 * a shared, system-owned schedule only admins see), and the record of each fire. Request paths
 * read and write them through a DataScope; the scheduler's claim and release are unscoped on
 * purpose (polling fires for every user) and named `unsafe…`.
 */

export const MISFIRE_POLICIES = ["fire_once", "skip", "catch_up"] as const;
export type MisfirePolicy = (typeof MISFIRE_POLICIES)[number];

export const DEFAULT_CATCH_UP_LIMIT = 10;

export interface StoredSchedule {
  id: string;
  user_id: string | null;
  name: string;
  description: string | null;
  method: string;
  endpoint: string;
  payload: Record<string, unknown> | null;
  cron_expr: string;
  timezone: string;
  timeout_seconds: number;
  max_retries: number;
  retry_delay_seconds: number;
  enabled: boolean;
  next_run_at: number | null;
  locked_by: string | null;
  locked_at: number | null;
  created_at: number | null;
  updated_at: number | null;
  managed_by: string | null;
  target_type: string | null;
  target_id: string | null;
  created_by_run_id: string | null;
  created_by_session_id: string | null;
  updated_by_run_id: string | null;
  updated_by_session_id: string | null;
  disabled_reason: string | null;
  /** Stored null means the default (fire_once). */
  misfire_policy: MisfirePolicy;
  catch_up_limit: number;
  allow_overlap: boolean;
  jitter_seconds: number;
}

export type ScheduleRunStatus = "running" | "success" | "failed" | "paused" | "cancelled" | "timeout" | "skipped";

export interface StoredScheduleRun {
  id: string;
  schedule_id: string;
  user_id: string | null;
  attempt: number;
  triggered_at: number | null;
  completed_at: number | null;
  status: string;
  status_code: number | null;
  run_id: string | null;
  session_id: string | null;
  error: string | null;
  input: Record<string, unknown> | null;
  output: Record<string, unknown> | null;
  requirements: Record<string, unknown>[] | null;
  created_at: number | null;
  /** The slot it fired for (epoch seconds); null for a manual trigger or a row Agno wrote. */
  scheduled_for: number | null;
}

const SCHEDULE_COLUMNS =
  "id, user_id, name, description, method, endpoint, payload, cron_expr, timezone, timeout_seconds, max_retries, retry_delay_seconds, enabled, next_run_at, locked_by, locked_at, created_at, updated_at, managed_by, target_type, target_id, created_by_run_id, created_by_session_id, updated_by_run_id, updated_by_session_id, disabled_reason, misfire_policy, catch_up_limit, allow_overlap, jitter_seconds";
const RUN_COLUMNS = "id, schedule_id, user_id, attempt, triggered_at, completed_at, status, status_code, run_id, session_id, error, input, output, requirements, created_at, scheduled_for";

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const bool = (v: unknown): boolean | null => (v === null || v === undefined ? null : v === true || v === 1 || v === "1" || v === "t");
const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
const object = (v: unknown): Record<string, unknown> | null => {
  const parsed = parseJson(v);
  return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
};

/** A row as a schedule, with Agno's defaults for what a row may leave null. */
export function toStoredSchedule(row: Record<string, unknown>): StoredSchedule {
  const policy = str(row.misfire_policy);
  return {
    id: String(row.id),
    user_id: str(row.user_id),
    name: String(row.name),
    description: str(row.description),
    method: str(row.method) ?? "POST",
    endpoint: str(row.endpoint) ?? "/",
    payload: object(row.payload),
    cron_expr: str(row.cron_expr) ?? "",
    timezone: str(row.timezone) ?? "UTC",
    timeout_seconds: num(row.timeout_seconds) ?? 3600,
    max_retries: num(row.max_retries) ?? 0,
    retry_delay_seconds: num(row.retry_delay_seconds) ?? 60,
    enabled: bool(row.enabled) ?? true,
    next_run_at: num(row.next_run_at),
    locked_by: str(row.locked_by),
    locked_at: num(row.locked_at),
    created_at: num(row.created_at),
    updated_at: num(row.updated_at),
    managed_by: str(row.managed_by),
    target_type: str(row.target_type),
    target_id: str(row.target_id),
    created_by_run_id: str(row.created_by_run_id),
    created_by_session_id: str(row.created_by_session_id),
    updated_by_run_id: str(row.updated_by_run_id),
    updated_by_session_id: str(row.updated_by_session_id),
    disabled_reason: str(row.disabled_reason),
    misfire_policy: (MISFIRE_POLICIES as readonly string[]).includes(policy ?? "") ? (policy as MisfirePolicy) : "fire_once",
    catch_up_limit: num(row.catch_up_limit) ?? DEFAULT_CATCH_UP_LIMIT,
    allow_overlap: bool(row.allow_overlap) ?? false,
    jitter_seconds: num(row.jitter_seconds) ?? 0,
  };
}

export function toStoredScheduleRun(row: Record<string, unknown>): StoredScheduleRun {
  const requirements = parseJson(row.requirements);
  return {
    id: String(row.id),
    schedule_id: String(row.schedule_id),
    user_id: str(row.user_id),
    attempt: num(row.attempt) ?? 1,
    triggered_at: num(row.triggered_at),
    completed_at: num(row.completed_at),
    status: str(row.status) ?? "running",
    status_code: num(row.status_code),
    run_id: str(row.run_id),
    session_id: str(row.session_id),
    error: str(row.error),
    input: object(row.input),
    output: object(row.output),
    requirements: Array.isArray(requirements) ? (requirements as Record<string, unknown>[]) : null,
    created_at: num(row.created_at),
    scheduled_for: num(row.scheduled_for),
  };
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** The 409 for a name the owner already uses (owner-less names are unique among themselves). */
export const duplicateName = (name: string) => new ConflictError(`Schedule with name '${name}' already exists`);

export interface NewSchedule {
  id?: string;
  name: string;
  description?: string | null;
  method: string;
  endpoint: string;
  payload?: Record<string, unknown> | null;
  cron_expr: string;
  timezone: string;
  timeout_seconds: number;
  max_retries: number;
  retry_delay_seconds: number;
  enabled?: boolean;
  next_run_at: number | null;
  misfire_policy?: MisfirePolicy | null;
  catch_up_limit?: number | null;
  allow_overlap?: boolean | null;
  jitter_seconds?: number | null;
  /** Provenance: who manages it and which component it targets, which run/session created it. */
  managed_by?: string | null;
  target_type?: string | null;
  target_id?: string | null;
  created_by_run_id?: string | null;
  created_by_session_id?: string | null;
}

/**
 * An owner already has the most schedules its creator may give it (`maxPerOwner`): `count` is how
 * many it has now.
 */
export class ScheduleLimitError extends Error {
  override readonly name = "ScheduleLimitError";
  constructor(
    readonly owner: string,
    readonly limit: number,
    readonly count: number,
  ) {
    super(`User '${owner}' has ${count} schedules; the limit is ${limit}`);
  }
}

/** How many schedules `owner` has (one statement on the user_id-led index). */
export async function countSchedulesOf(db: Db, { scope, owner }: { scope: DataScope; owner: string }): Promise<number> {
  const scoped = ownerSql(scope);
  const [row] = await db.sql.query<{ n: number }>(`SELECT COUNT(*) AS n FROM agno_schedules WHERE user_id = ? AND ${scoped.clause}`, [owner, ...scoped.params]);
  return Number(row?.n ?? 0);
}

/**
 * Creates a schedule owned by the scope's user (a non-admin: itself; an admin: `owner`, or the
 * user it acts for, or nobody). A name the owner already uses is a ConflictError (the unique
 * indexes decide, so two concurrent creates cannot both win).
 *
 * With `maxPerOwner` and an owner, the insert is guarded by the owner's count in the same
 * statement (`INSERT … SELECT … WHERE (SELECT COUNT(*) …) < ?`): an owner already at the limit gets
 * a ScheduleLimitError and nothing is written. SQLite runs the statement under its one write lock;
 * PostgreSQL first takes a transaction-scoped advisory lock on the owner, so concurrent creates
 * for one owner count one after another and a burst cannot pass the limit together.
 */
export async function createSchedule(
  db: Db,
  { scope, schedule, owner, maxPerOwner = null }: { scope: DataScope; schedule: NewSchedule; owner?: string | null; maxPerOwner?: number | null },
): Promise<StoredSchedule> {
  const userId = scope.kind === "user" ? scope.userId : owner !== undefined ? owner : (scope.userId ?? null);
  const now = nowSeconds();
  const columns = `id, user_id, name, description, method, endpoint, payload, cron_expr, timezone, timeout_seconds,
         max_retries, retry_delay_seconds, enabled, next_run_at, locked_by, locked_at, created_at, updated_at, managed_by, target_type,
         target_id, created_by_run_id, created_by_session_id, misfire_policy, catch_up_limit, allow_overlap, jitter_seconds`;
  const values = "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL, ?, NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?";
  const params = [
    schedule.id ?? randomUUID(),
    userId,
    schedule.name,
    schedule.description ?? null,
    schedule.method,
    schedule.endpoint,
    schedule.payload ?? null,
    schedule.cron_expr,
    schedule.timezone,
    schedule.timeout_seconds,
    schedule.max_retries,
    schedule.retry_delay_seconds,
    schedule.enabled ?? true,
    schedule.next_run_at,
    now,
    schedule.managed_by ?? null,
    schedule.target_type ?? null,
    schedule.target_id ?? null,
    schedule.created_by_run_id ?? null,
    schedule.created_by_session_id ?? null,
    schedule.misfire_policy ?? null,
    schedule.catch_up_limit ?? null,
    schedule.allow_overlap ?? null,
    schedule.jitter_seconds ?? null,
  ];
  try {
    if (maxPerOwner === null || userId === null) {
      const rows = await db.sql.query(`INSERT INTO agno_schedules (${columns}) VALUES (${values}) RETURNING ${SCHEDULE_COLUMNS}`, params);
      return toStoredSchedule(rows[0]!);
    }
    const guarded = {
      text: `INSERT INTO agno_schedules (${columns})
             SELECT ${values} WHERE (SELECT COUNT(*) FROM agno_schedules WHERE user_id = ?) < ?
             RETURNING ${SCHEDULE_COLUMNS}`,
      params: [...params, userId, maxPerOwner],
    };
    const rows =
      db.dialect === "postgres"
        ? (await db.sql.batchRows([{ text: "SELECT pg_advisory_xact_lock(hashtextextended(?, 0))", params: [`agno_schedules.user_id:${userId}`] }, guarded]))[1]!
        : await db.sql.query(guarded.text, guarded.params);
    if (rows[0]) return toStoredSchedule(rows[0]);
    throw new ScheduleLimitError(userId, maxPerOwner, await countSchedulesOf(db, { scope, owner: userId }));
  } catch (error) {
    if (isUniqueViolation(error)) throw duplicateName(schedule.name);
    throw error;
  }
}

export async function getSchedule(db: Db, { scope, id }: { scope: DataScope; id: string }): Promise<StoredSchedule | null> {
  const owner = ownerSql(scope);
  const [row] = await db.sql.query(`SELECT ${SCHEDULE_COLUMNS} FROM agno_schedules WHERE id = ? AND ${owner.clause}`, [id, ...owner.params]);
  return row ? toStoredSchedule(row) : null;
}

/** The schedule of `owner` (null: the owner-less ones) named `name`. */
export async function getScheduleByName(db: Db, { scope, name, owner }: { scope: DataScope; name: string; owner: string | null }): Promise<StoredSchedule | null> {
  const scoped = ownerSql(scope);
  const [row] = await db.sql.query(`SELECT ${SCHEDULE_COLUMNS} FROM agno_schedules WHERE name = ? AND ${owner === null ? "user_id IS NULL" : "user_id = ?"} AND ${scoped.clause}`, [
    name,
    ...(owner === null ? [] : [owner]),
    ...scoped.params,
  ]);
  return row ? toStoredSchedule(row) : null;
}

export interface ScheduleListOptions {
  scope: DataScope;
  enabled?: boolean;
  page: number;
  limit: number;
}

/** A page of the scope's schedules, newest first (as Agno orders them), with the total count. */
export async function listSchedules(db: Db, { scope, enabled, page, limit }: ScheduleListOptions): Promise<{ schedules: StoredSchedule[]; totalCount: number }> {
  const window = pageWindow({ page, limit });
  const owner = ownerSql(scope);
  // A row with enabled NULL counts as enabled (Agno's default).
  const where = [owner.clause, ...(enabled === undefined ? [] : [enabled ? "(enabled = ? OR enabled IS NULL)" : "enabled = ?"])];
  const params = [...owner.params, ...(enabled === undefined ? [] : [enabled])];
  const [count] = await db.sql.query<{ n: number }>(`SELECT COUNT(*) AS n FROM agno_schedules WHERE ${where.join(" AND ")}`, params);
  const rows = await db.sql.query(`SELECT ${SCHEDULE_COLUMNS} FROM agno_schedules WHERE ${where.join(" AND ")} ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`, [
    ...params,
    window.take ?? limit,
    window.skip,
  ]);
  return { schedules: rows.map(toStoredSchedule), totalCount: Number(count?.n ?? 0) };
}

/**
 * The columns a generic schedule update may write. Everything else — the owner, the provenance
 * columns, the lock state — moves only through its own function (the owner never moves), so an
 * update built from user input can never repoint who a schedule belongs to or what wrote it.
 * Agentry's own policy columns (misfire_policy, catch_up_limit, allow_overlap, jitter_seconds)
 * are definition, like the cron expression.
 */
export const SCHEDULE_MUTABLE_COLUMNS = [
  "name",
  "description",
  "method",
  "endpoint",
  "payload",
  "cron_expr",
  "timezone",
  "timeout_seconds",
  "max_retries",
  "retry_delay_seconds",
  "enabled",
  "next_run_at",
  "disabled_reason",
  "misfire_policy",
  "catch_up_limit",
  "allow_overlap",
  "jitter_seconds",
] as const;
export type ScheduleUpdate = Partial<Pick<StoredSchedule, (typeof SCHEDULE_MUTABLE_COLUMNS)[number]>>;

/** An update naming a column outside SCHEDULE_MUTABLE_COLUMNS (a programming error, not a request's). */
export class ScheduleUpdateError extends Error {
  override readonly name = "ScheduleUpdateError";
}

/** Throws ScheduleUpdateError naming every key of `updates` outside the mutable columns. */
export function assertScheduleUpdate(updates: Record<string, unknown>): void {
  const rejected = Object.keys(updates)
    .filter((key) => !(SCHEDULE_MUTABLE_COLUMNS as readonly string[]).includes(key))
    .sort();
  if (rejected.length > 0) {
    throw new ScheduleUpdateError(
      `updateSchedule cannot modify ${rejected.join(", ")}: only ${[...SCHEDULE_MUTABLE_COLUMNS].sort().join(", ")} are mutable; ` +
        "ownership, provenance and lock state move only through their own functions",
    );
  }
}

/**
 * Writes `updates` (SCHEDULE_MUTABLE_COLUMNS only; anything else throws ScheduleUpdateError
 * before anything is written) to the scope's schedule `id`, and stamps updated_at. Enabling
 * clears disabled_reason unless the update sets it. A rename onto a name the owner already uses is
 * a ConflictError. Null when the scope has no such schedule.
 */
export async function updateSchedule(
  db: Db,
  { scope, id, updates, by }: { scope: DataScope; id: string; updates: ScheduleUpdate; by?: { runId?: string | null; sessionId?: string | null } },
): Promise<StoredSchedule | null> {
  assertScheduleUpdate(updates);
  const entries = Object.entries(updates).filter(([, v]) => v !== undefined);
  if (updates.enabled === true && !("disabled_reason" in updates)) entries.push(["disabled_reason", null]);
  const sets = [...entries.map(([k]) => `${k} = ?`), "updated_at = ?"];
  const params: unknown[] = [...entries.map(([, v]) => v), nowSeconds()];
  // Provenance of the last change, when an agent's run made it (its own columns, not the update's).
  if (by?.runId !== undefined) sets.push("updated_by_run_id = ?"), params.push(by.runId);
  if (by?.sessionId !== undefined) sets.push("updated_by_session_id = ?"), params.push(by.sessionId);
  const owner = ownerSql(scope);
  try {
    const [row] = await db.sql.query(`UPDATE agno_schedules SET ${sets.join(", ")} WHERE id = ? AND ${owner.clause} RETURNING ${SCHEDULE_COLUMNS}`, [...params, id, ...owner.params]);
    return row ? toStoredSchedule(row) : null;
  } catch (error) {
    if (isUniqueViolation(error) && updates.name !== undefined) throw duplicateName(updates.name);
    throw error;
  }
}

/** Deletes the scope's schedule `id` (its runs go with it). False when the scope has none. */
export async function deleteSchedule(db: Db, { scope, id }: { scope: DataScope; id: string }): Promise<boolean> {
  const owner = ownerSql(scope);
  // SQLite enforces the runs' ON DELETE CASCADE only with foreign_keys on: delete them explicitly.
  const [runs, schedules] = await db.sql.batch([
    { text: `DELETE FROM agno_schedule_runs WHERE schedule_id IN (SELECT id FROM agno_schedules WHERE id = ? AND ${owner.clause})`, params: [id, ...owner.params] },
    { text: `DELETE FROM agno_schedules WHERE id = ? AND ${owner.clause}`, params: [id, ...owner.params] },
  ]);
  void runs;
  return (schedules ?? 0) > 0;
}

// ---------------------------------------------------------------------------------------------
// Schedule runs

export interface NewScheduleRun {
  scheduleId: string;
  attempt: number;
  scheduledFor: number | null;
  status?: ScheduleRunStatus;
  error?: string | null;
  completedAt?: number | null;
}

/** The fire job's claim no longer holds: another worker took the fire over, and records its attempts. */
export class FireLeaseLostError extends Error {
  override readonly name = "FireLeaseLostError";
}

/**
 * Records one attempt of a fire, owned by the schedule's owner (the scope acts for it).
 * NotFoundError when the scope has no such schedule (deleted meanwhile). With `fence` (the fire
 * job's claim) the row is written only while that claim holds, in the same statement: a worker
 * whose fire was taken over records nothing beside its taker (FireLeaseLostError).
 */
export async function createScheduleRun(db: Db, { scope, run, fence }: { scope: DataScope; run: NewScheduleRun; fence?: JobFence }): Promise<StoredScheduleRun> {
  const owner = ownerSql(scope, "s.user_id");
  const now = nowSeconds();
  const held = fence ? ` AND EXISTS (SELECT 1 FROM agno_jobs WHERE ${FENCE_SQL})` : "";
  const rows = await db.sql.query(
    `INSERT INTO agno_schedule_runs (id, schedule_id, user_id, attempt, triggered_at, completed_at, status, status_code, run_id, session_id,
       error, input, output, requirements, created_at, scheduled_for)
     SELECT ?, s.id, s.user_id, ?, ?, ?, ?, NULL, NULL, NULL, ?, NULL, NULL, NULL, ?, ? FROM agno_schedules s WHERE s.id = ? AND ${owner.clause}${held}
     RETURNING ${RUN_COLUMNS}`,
    [randomUUID(), run.attempt, now, run.completedAt ?? null, run.status ?? "running", run.error ?? null, now, run.scheduledFor, run.scheduleId, ...owner.params, ...(fence ? fenceParams(fence) : [])],
  );
  if (!rows[0]) {
    if (fence && (await getSchedule(db, { scope, id: run.scheduleId }))) throw new FireLeaseLostError(`Lease on fire job ${fence.id} was lost; its taker records the attempt`);
    throw new NotFoundError("Schedule not found");
  }
  return toStoredScheduleRun(rows[0]);
}

export type ScheduleRunUpdate = Partial<Pick<StoredScheduleRun, "completed_at" | "status" | "status_code" | "run_id" | "session_id" | "error" | "input" | "output" | "requirements">>;

export async function updateScheduleRun(db: Db, { scope, id, updates }: { scope: DataScope; id: string; updates: ScheduleRunUpdate }): Promise<StoredScheduleRun | null> {
  const entries = Object.entries(updates).filter(([, v]) => v !== undefined);
  if (entries.length === 0) return getScheduleRun(db, { scope, id });
  const owner = ownerSql(scope);
  const [row] = await db.sql.query(`UPDATE agno_schedule_runs SET ${entries.map(([k]) => `${k} = ?`).join(", ")} WHERE id = ? AND ${owner.clause} RETURNING ${RUN_COLUMNS}`, [
    ...entries.map(([, v]) => v),
    id,
    ...owner.params,
  ]);
  return row ? toStoredScheduleRun(row) : null;
}

export async function getScheduleRun(db: Db, { scope, id }: { scope: DataScope; id: string }): Promise<StoredScheduleRun | null> {
  const owner = ownerSql(scope);
  const [row] = await db.sql.query(`SELECT ${RUN_COLUMNS} FROM agno_schedule_runs WHERE id = ? AND ${owner.clause}`, [id, ...owner.params]);
  return row ? toStoredScheduleRun(row) : null;
}

/** A page of a schedule's runs, newest first, with the total count. */
export async function listScheduleRuns(
  db: Db,
  { scope, scheduleId, page, limit }: { scope: DataScope; scheduleId: string; page: number; limit: number },
): Promise<{ runs: StoredScheduleRun[]; totalCount: number }> {
  const window = pageWindow({ page, limit });
  const owner = ownerSql(scope);
  const params = [scheduleId, ...owner.params];
  const [count] = await db.sql.query<{ n: number }>(`SELECT COUNT(*) AS n FROM agno_schedule_runs WHERE schedule_id = ? AND ${owner.clause}`, params);
  const rows = await db.sql.query(`SELECT ${RUN_COLUMNS} FROM agno_schedule_runs WHERE schedule_id = ? AND ${owner.clause} ORDER BY created_at DESC, attempt DESC, id DESC LIMIT ? OFFSET ?`, [
    ...params,
    window.take ?? limit,
    window.skip,
  ]);
  return { runs: rows.map(toStoredScheduleRun), totalCount: Number(count?.n ?? 0) };
}

/** The runs recorded for one slot of a schedule, in attempt order. */
export async function scheduleRunsForSlot(db: Db, { scope, scheduleId, slot }: { scope: DataScope; scheduleId: string; slot: number }): Promise<StoredScheduleRun[]> {
  const owner = ownerSql(scope);
  const rows = await db.sql.query(`SELECT ${RUN_COLUMNS} FROM agno_schedule_runs WHERE schedule_id = ? AND scheduled_for = ? AND ${owner.clause} ORDER BY attempt, created_at`, [
    scheduleId,
    slot,
    ...owner.params,
  ]);
  return rows.map(toStoredScheduleRun);
}

/**
 * Whether a fire of another slot (or a manual trigger) of the schedule is still running: one
 * whose attempt started after `since` (older "running" rows are left over by a process that died
 * and are not waited for).
 */
export async function otherFireRunning(db: Db, { scope, scheduleId, slot, since }: { scope: DataScope; scheduleId: string; slot: number | null; since: number }): Promise<StoredScheduleRun | null> {
  const owner = ownerSql(scope);
  const [row] = await db.sql.query(
    `SELECT ${RUN_COLUMNS} FROM agno_schedule_runs
      WHERE schedule_id = ? AND status = 'running' AND triggered_at >= ? AND (scheduled_for IS NULL OR ${slot === null ? "1 = 1" : "scheduled_for <> ?"}) AND ${owner.clause}
      ORDER BY triggered_at DESC LIMIT 1`,
    [scheduleId, since, ...(slot === null ? [] : [slot]), ...owner.params],
  );
  return row ? toStoredScheduleRun(row) : null;
}

// ---------------------------------------------------------------------------------------------
// The scheduler's claim and release: UNSAFE (unscoped) — polling fires for every user; what a
// fire does runs as the schedule's owner.

/**
 * UNSAFE (unscoped): claims up to `limit` enabled schedules due at `now` (next_run_at <= now) that
 * no live claimer holds (unlocked, or locked longer than `lockGraceSeconds` ago by a claimer that
 * died), oldest due first, in ONE statement: each gets locked_by = workerId, locked_at = now.
 * PostgreSQL locks the candidates FOR UPDATE SKIP LOCKED (concurrent schedulers skip each other's
 * rows); SQLite runs it under its one write lock. The claimer then decides the slots and releases
 * each schedule with its next run (unsafeReleaseSchedules).
 */
export async function unsafeClaimDueSchedules(
  db: Db,
  { workerId, now, limit, lockGraceSeconds }: { workerId: string; now: number; limit: number; lockGraceSeconds: number },
): Promise<StoredSchedule[]> {
  if (limit < 1) return [];
  const lock = db.dialect === "postgres" ? " FOR UPDATE SKIP LOCKED" : "";
  const rows = await db.sql.query(
    `UPDATE agno_schedules SET locked_by = ?, locked_at = ?
      WHERE id IN (SELECT id FROM agno_schedules
                    WHERE enabled = ? AND next_run_at IS NOT NULL AND next_run_at <= ? AND (locked_by IS NULL OR locked_at <= ?)
                    ORDER BY next_run_at LIMIT ?${lock})
      RETURNING ${SCHEDULE_COLUMNS}`,
    [workerId, now, true, now, now - lockGraceSeconds, limit],
  );
  return rows.map(toStoredSchedule).sort((a, b) => (a.next_run_at ?? 0) - (b.next_run_at ?? 0));
}

/**
 * UNSAFE (unscoped): when a claimer should look next (epoch seconds; null when nothing is armed):
 * the earliest next_run_at among enabled schedules, where a schedule another claimer holds counts
 * from when its lock would expire (it is released long before that unless its claimer died).
 */
export async function unsafeNextDueAt(db: Db, { lockGraceSeconds }: { lockGraceSeconds: number }): Promise<number | null> {
  const [row] = await db.sql.query<{ at: number | null }>(
    `SELECT MIN(CASE WHEN locked_by IS NULL OR locked_at + ? <= next_run_at THEN next_run_at ELSE locked_at + ? END) AS at
       FROM agno_schedules WHERE enabled = ? AND next_run_at IS NOT NULL`,
    [lockGraceSeconds, lockGraceSeconds, true],
  );
  return row?.at === null || row?.at === undefined ? null : Number(row.at);
}

/** What a claimer does with one claimed schedule, written in one transaction with the rest (unsafeReleaseSchedules). */
export interface ScheduleRelease {
  id: string;
  /** The next slot to arm (null: none, the schedule is disabled). */
  nextRunAt: number | null;
  /** Set when the schedule can no longer fire (its expression stopped parsing): it is disabled with this reason. */
  disabledReason?: string;
}

/**
 * UNSAFE (unscoped): releases claimed schedules in one transaction: `statements` first (the fire
 * jobs of their slots), then each one's next_run_at, lock cleared — only where this claimer still
 * holds the lock (a claimer that took longer than the grace period lost it, and its release is a
 * no-op; its fire jobs are deduplicated by their idempotency keys). The re-armed schedules are
 * one statement, however many.
 */
export async function unsafeReleaseSchedules(
  db: Db,
  {
    workerId,
    releases,
    statements = [],
    now = nowSeconds(),
  }: { workerId: string; releases: readonly ScheduleRelease[]; statements?: readonly { text: string; params?: readonly unknown[] }[]; now?: number },
): Promise<void> {
  if (releases.length === 0) return;
  const rearmed = releases.filter((r) => r.disabledReason === undefined);
  const disabled = releases.filter((r) => r.disabledReason !== undefined);
  await db.sql.batch([
    ...statements,
    ...(rearmed.length === 0
      ? []
      : [
          {
            text: `WITH v (id, next_run_at) AS (VALUES ${rearmed.map(() => "(CAST(? AS TEXT), CAST(? AS BIGINT))").join(", ")})
                   UPDATE agno_schedules SET next_run_at = v.next_run_at, locked_by = NULL, locked_at = NULL, updated_at = ?
                     FROM v WHERE agno_schedules.id = v.id AND agno_schedules.locked_by = ?`,
            params: [...rearmed.flatMap((r) => [r.id, r.nextRunAt]), now, workerId],
          },
        ]),
    ...disabled.map((r) => ({
      text: `UPDATE agno_schedules SET enabled = ?, next_run_at = NULL, disabled_reason = ?, locked_by = NULL, locked_at = NULL, updated_at = ? WHERE id = ? AND locked_by = ?`,
      params: [false, r.disabledReason, now, r.id, workerId],
    })),
  ]);
}

/** UNSAFE (unscoped): a schedule by id, for the fire that runs it (as its owner afterwards). */
export async function unsafeScheduleById(db: Db, id: string): Promise<StoredSchedule | null> {
  const [row] = await db.sql.query(`SELECT ${SCHEDULE_COLUMNS} FROM agno_schedules WHERE id = ?`, [id]);
  return row ? toStoredSchedule(row) : null;
}

/** UNSAFE (unscoped): disables a schedule the system can no longer fire, with the reason. */
export async function unsafeDisableSchedule(db: Db, { id, reason }: { id: string; reason: string }): Promise<void> {
  await db.sql.exec(`UPDATE agno_schedules SET enabled = ?, disabled_reason = ?, updated_at = ? WHERE id = ?`, [false, reason, nowSeconds(), id]);
}
