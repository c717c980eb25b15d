import { cappedCount, cappedCountSql, keysetPage, keysetQuery, type CappedCount, type KeysetPage, type KeysetRequest } from "../keyset.ts";
import type { Db } from "../open-database.ts";
import type { DataScope } from "../scope.ts";
import { EVAL_RUN_FROM, EVAL_RUN_SELECT, evalRunFilterSql, toStoredEvalRun, type EvalRunFilters, type EvalType, type StoredEvalRun } from "./eval-runs.ts";

/**
 * The dashboard's reads of eval runs (the API's page/limit list stays as Agno has it, in
 * eval-runs.ts): a keyset list with the Evals page's filters, and the trend of one eval — its
 * re-runs over time. Both read through the caller's DataScope.
 */

export type EvalListSort = "created_at" | "name";
export const EVAL_LIST_SORTS: readonly EvalListSort[] = ["created_at", "name"];

export interface ListEvalRunPageOptions extends Omit<KeysetRequest, "order"> {
  scope: DataScope;
  filters?: EvalRunFilters;
  sortBy?: EvalListSort;
  order?: "asc" | "desc";
}

/**
 * One page of the scope's eval runs (a member's own; an admin's everyone's, or one user's), newest
 * first by default or by name, with a count capped at COUNT_CAP. Keyset-paginated on
 * (created_at, run_id) or (name, run_id); the created_at index serves the default seek.
 */
export async function listEvalRunPage(db: Db, options: ListEvalRunPageOptions): Promise<KeysetPage<StoredEvalRun> & { total: CappedCount }> {
  const request: KeysetRequest = { ...options, order: options.order ?? "desc" };
  const sortBy: EvalListSort = options.sortBy === "name" ? "name" : "created_at";
  const { clause, params } = evalRunFilterSql(options.scope, options.filters ?? {});
  const seek =
    sortBy === "name"
      ? keysetQuery(request, { sortColumn: "COALESCE(e.name, '')", idColumn: "e.run_id", sortKind: "string" })
      : keysetQuery(request, { sortColumn: "e.created_at", idColumn: "e.run_id", sortKind: "number" });
  const [rows, counted] = await Promise.all([
    db.sql.query<Record<string, unknown>>(`SELECT ${EVAL_RUN_SELECT} FROM ${EVAL_RUN_FROM} WHERE ${clause} AND ${seek.clause} ORDER BY ${seek.orderBy} LIMIT ${seek.limit}`, [
      ...params,
      ...seek.params,
    ]),
    db.sql.query<{ n: unknown }>(cappedCountSql("agno_eval_runs e", clause, seek.countOrderBy), params),
  ]);
  const runs = rows.map(toStoredEvalRun);
  return { ...keysetPage(runs, request, seek, (r) => (sortBy === "name" ? [r.name ?? "", r.run_id] : [r.created_at, r.run_id])), total: cappedCount(counted[0]?.n) };
}

/** How many of an eval's runs a trend shows: the newest ones. */
export const TREND_POINTS = 50;

/**
 * The runs of one eval over time, oldest first: the scope's runs of the same kind, agent and name
 * (an unnamed eval: the unnamed runs of that kind and agent), the newest TREND_POINTS of them.
 */
export async function listEvalTrend(
  db: Db,
  { scope, evalType, agentId, name, limit = TREND_POINTS }: { scope: DataScope; evalType: EvalType; agentId: string | null; name: string | null; limit?: number },
): Promise<StoredEvalRun[]> {
  const { clause, params } = evalRunFilterSql(scope, { evalTypes: [evalType] });
  const where = [clause, agentId === null ? "e.agent_id IS NULL" : "e.agent_id = ?", name === null ? "e.name IS NULL" : "e.name = ?"];
  const extra = [...(agentId === null ? [] : [agentId]), ...(name === null ? [] : [name])];
  const rows = await db.sql.query<Record<string, unknown>>(`SELECT ${EVAL_RUN_SELECT} FROM ${EVAL_RUN_FROM} WHERE ${where.join(" AND ")} ORDER BY e.created_at DESC, e.run_id DESC LIMIT ?`, [
    ...params,
    ...extra,
    limit,
  ]);
  return rows.map(toStoredEvalRun).reverse();
}
