import type { Db } from "../open-database.ts";
import { pageWindow, type PageRequest } from "../pagination.ts";
import { ownerSql, type DataScope } from "../scope.ts";
import { epochSeconds, toStoredJob, JOB_COLUMNS, JOB_STATUSES, type JobStatus, type StoredJob } from "./job-row.ts";

/** One job within the scope (a non-admin sees only its own), or null. */
export async function getJob(db: Db, { scope, id }: { scope: DataScope; id: string }): Promise<StoredJob | null> {
  const owner = ownerSql(scope);
  const [row] = await db.sql.query(`SELECT ${JOB_COLUMNS} FROM agno_jobs WHERE id = ? AND ${owner.clause}`, [id, ...owner.params]);
  return row ? toStoredJob(row) : null;
}

export type JobSortField = "created_at" | "updated_at" | "available_at" | "completed_at" | "status";
const SORT_FIELDS: readonly JobSortField[] = ["created_at", "updated_at", "available_at", "completed_at", "status"];

/**
 * Which kinds of job a list or count covers: jobs of these job types, or of these component
 * types (`agent`, `team`, `workflow`: run jobs); every kind when absent.
 */
export type JobKindFilter = { jobTypes: readonly string[] } | { componentTypes: readonly string[] };

function kindClause(kinds: JobKindFilter | undefined): { clause: string[]; params: string[] } {
  if (!kinds) return { clause: [], params: [] };
  const [column, values] = "jobTypes" in kinds ? ["job_type", kinds.jobTypes] : ["component_type", kinds.componentTypes];
  // No value matches nothing (never widens to every job).
  if (values.length === 0) return { clause: ["1 = 0"], params: [] };
  return { clause: [`${column} IN (${values.map(() => "?").join(", ")})`], params: [...values] };
}

export interface ListJobsOptions extends PageRequest {
  scope: DataScope;
  kinds?: JobKindFilter;
  /** Any of these statuses (all when absent or empty). */
  statuses?: readonly JobStatus[];
  sortBy?: JobSortField;
  sortOrder?: "asc" | "desc";
}

/** Jobs within the scope, one page, with the total count for pagination. Default: newest first. */
export async function listJobs(db: Db, options: ListJobsOptions): Promise<{ jobs: StoredJob[]; totalCount: number }> {
  const { take, skip } = pageWindow(options);
  const owner = ownerSql(options.scope);
  // Bound as parameters; an unknown status simply matches nothing (never widens to every job).
  const statuses = options.statuses ?? [];
  const kinds = kindClause(options.kinds);
  const where = [owner.clause, ...kinds.clause, ...(statuses.length > 0 ? [`status IN (${statuses.map(() => "?").join(", ")})`] : [])].join(" AND ");
  const params = [...owner.params, ...kinds.params, ...statuses];
  // Whitelisted: the field is spliced into the SQL.
  const sortBy = SORT_FIELDS.includes(options.sortBy as JobSortField) ? options.sortBy! : "created_at";
  const order = options.sortOrder === "asc" ? "ASC" : "DESC";
  const [rows, counts] = await Promise.all([
    db.sql.query(
      `SELECT ${JOB_COLUMNS} FROM agno_jobs WHERE ${where}
        ORDER BY (CASE WHEN ${sortBy} IS NULL THEN 1 ELSE 0 END), ${sortBy} ${order}, id ${order}
        ${take !== undefined ? `LIMIT ${take} OFFSET ${skip}` : ""}`,
      params,
    ),
    db.sql.query<{ n: number }>(`SELECT COUNT(*) AS n FROM agno_jobs WHERE ${where}`, params),
  ]);
  return { jobs: rows.map(toStoredJob), totalCount: Number(counts[0]?.n ?? 0) };
}

export interface QueueStats {
  /** Every status, zero included. */
  counts: Record<JobStatus, number>;
  /** Seconds since the oldest queued job was submitted; null when none is queued. */
  oldest_queued_age_seconds: number | null;
}

/** Job counts per status and the age of the oldest queued job, within the scope (and the kinds). */
export async function queueStats(db: Db, { scope, kinds: only, now = epochSeconds() }: { scope: DataScope; kinds?: JobKindFilter; now?: number }): Promise<QueueStats> {
  const scoped = ownerSql(scope);
  const kinds = kindClause(only);
  const owner = { clause: [scoped.clause, ...kinds.clause].join(" AND "), params: [...scoped.params, ...kinds.params] };
  const [rows, oldest] = await Promise.all([
    db.sql.query<{ status: string; n: number }>(`SELECT status, COUNT(*) AS n FROM agno_jobs WHERE ${owner.clause} GROUP BY status`, owner.params),
    db.sql.query<{ at: number | null }>(`SELECT MIN(created_at) AS at FROM agno_jobs WHERE status = 'queued' AND ${owner.clause}`, owner.params),
  ]);
  const counts = Object.fromEntries(JOB_STATUSES.map((s) => [s, 0])) as Record<JobStatus, number>;
  for (const row of rows) if ((JOB_STATUSES as readonly string[]).includes(row.status)) counts[row.status as JobStatus] = Number(row.n);
  const at = oldest[0]?.at;
  return { counts, oldest_queued_age_seconds: at === null || at === undefined ? null : Math.max(0, now - Number(at)) };
}
