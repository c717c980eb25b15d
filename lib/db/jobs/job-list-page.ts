import { cappedCount, cappedCountSql, keysetPage, keysetQuery, type CappedCount, type KeysetPage, type KeysetRequest } from "../keyset.ts";
import type { Db } from "../open-database.ts";
import { ownerSql, type DataScope } from "../scope.ts";
import { JOB_COLUMNS, toStoredJob, type JobStatus, type StoredJob } from "./job-row.ts";

export interface ListJobPageOptions extends Omit<KeysetRequest, "order"> {
  scope: DataScope;
  statuses?: readonly JobStatus[];
  order?: "asc" | "desc";
}

/**
 * One keyset page of the scope's jobs, newest first by default (a member sees its own), with a
 * count capped at COUNT_CAP — the dashboard's queue table. The /queue API keeps its page/limit.
 */
export async function listJobPage(db: Db, options: ListJobPageOptions): Promise<KeysetPage<StoredJob> & { total: CappedCount }> {
  const request: KeysetRequest = { ...options, order: options.order ?? "desc" };
  const owner = ownerSql(options.scope);
  const statuses = options.statuses ?? [];
  const filter = [owner.clause, ...(statuses.length > 0 ? [`status IN (${statuses.map(() => "?").join(", ")})`] : [])].join(" AND ");
  const params = [...owner.params, ...statuses];
  const seek = keysetQuery(request, { sortColumn: "created_at", idColumn: "id", sortKind: "number" });
  const [rows, counted] = await Promise.all([
    db.sql.query(`SELECT ${JOB_COLUMNS} FROM agno_jobs WHERE ${filter} AND ${seek.clause} ORDER BY ${seek.orderBy} LIMIT ${seek.limit}`, [...params, ...seek.params]),
    db.sql.query<{ n: unknown }>(cappedCountSql("agno_jobs", filter, seek.countOrderBy), params),
  ]);
  return { ...keysetPage(rows.map(toStoredJob), request, seek, (job) => [job.created_at, job.id]), total: cappedCount(counted[0]?.n) };
}

/**
 * What changes whenever any of the scope's jobs does (status counts and the latest update), so a
 * live view knows when to re-read its page. One aggregate over the scope's jobs.
 */
export async function jobsFingerprint(db: Db, { scope }: { scope: DataScope }): Promise<string> {
  const owner = ownerSql(scope);
  const [row] = await db.sql.query<{ n: unknown; latest: unknown; attempts: unknown }>(
    `SELECT COUNT(*) AS n, MAX(COALESCE(updated_at, created_at)) AS latest, SUM(attempt) AS attempts FROM agno_jobs WHERE ${owner.clause}`,
    owner.params,
  );
  return `${Number(row?.n ?? 0)}:${Number(row?.latest ?? 0)}:${Number(row?.attempts ?? 0)}`;
}
