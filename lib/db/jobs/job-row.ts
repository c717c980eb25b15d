import { parseJson } from "../json.ts";
import type { Db } from "../open-database.ts";

/** Agno's ticket statuses. The API shows queued as PENDING and failed as ERROR. */
export const JOB_STATUSES = ["queued", "running", "completed", "failed", "cancelled", "paused"] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** Statuses a job never leaves on its own; retention deletes them, requeue revives failed/cancelled. */
export const FINISHED_JOB_STATUSES: readonly JobStatus[] = ["completed", "failed", "cancelled"];

/** One agno_jobs row. Times are epoch seconds. */
export interface StoredJob {
  /** The run id: one job per durable background run. */
  id: string;
  component_type: string;
  job_type: string;
  deployment_id: string | null;
  component_id: string;
  session_id: string | null;
  user_id: string | null;
  payload: Record<string, unknown> | null;
  status: JobStatus;
  /** Claims so far, lost leases included: the fencing token. Never decreases, never reused. */
  attempt: number;
  /** Claims whose lease was lost (worker died or shut down); they do not spend attempts. */
  lease_losses: number;
  max_attempts: number;
  /** Epoch seconds a cancel was requested, or null. Survives a requeue unless it clears it. */
  cancel_requested_at: number | null;
  idempotency_key: string | null;
  available_at: number;
  locked_by: string | null;
  locked_at: number | null;
  error: string | null;
  created_at: number;
  updated_at: number | null;
  completed_at: number | null;
}

/** Attempts a job has really spent: claims minus the leases it lost. Compared with max_attempts. */
export const spentAttempts = (job: Pick<StoredJob, "attempt" | "lease_losses">): number => job.attempt - job.lease_losses;

export const JOB_COLUMNS =
  "id, component_type, job_type, deployment_id, component_id, session_id, user_id, payload, status, attempt, lease_losses, " +
  "max_attempts, cancel_requested_at, idempotency_key, available_at, locked_by, locked_at, error, created_at, updated_at, completed_at";

const numberOrNull = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

/** A raw row (BIGINTs as numbers or bigints, JSON as text on SQLite) as a StoredJob. */
export function toStoredJob(row: Record<string, unknown>): StoredJob {
  const payload = parseJson(row.payload);
  return {
    id: String(row.id),
    component_type: String(row.component_type),
    job_type: String(row.job_type),
    deployment_id: (row.deployment_id as string | null) ?? null,
    component_id: String(row.component_id),
    session_id: (row.session_id as string | null) ?? null,
    user_id: (row.user_id as string | null) ?? null,
    payload: payload && typeof payload === "object" ? (payload as Record<string, unknown>) : null,
    status: row.status as JobStatus,
    attempt: Number(row.attempt),
    lease_losses: Number(row.lease_losses ?? 0),
    max_attempts: Number(row.max_attempts),
    cancel_requested_at: numberOrNull(row.cancel_requested_at),
    idempotency_key: (row.idempotency_key as string | null) ?? null,
    available_at: Number(row.available_at),
    locked_by: (row.locked_by as string | null) ?? null,
    locked_at: numberOrNull(row.locked_at),
    error: (row.error as string | null) ?? null,
    created_at: Number(row.created_at),
    updated_at: numberOrNull(row.updated_at),
    completed_at: numberOrNull(row.completed_at),
  };
}

/** Reads one job by id, unscoped: callers have already checked the scope or hold the job's fence. */
export async function readJob(db: Db, id: string): Promise<StoredJob | null> {
  const [row] = await db.sql.query(`SELECT ${JOB_COLUMNS} FROM agno_jobs WHERE id = ?`, [id]);
  return row ? toStoredJob(row) : null;
}

export const epochSeconds = (): number => Math.floor(Date.now() / 1000);

/** NULL-safe equality in either dialect. */
export const nullSafeEquals = (db: Db, column: string): string => (db.dialect === "postgres" ? `${column} IS NOT DISTINCT FROM ?` : `${column} IS ?`);
