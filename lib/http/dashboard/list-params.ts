import type { DataScope } from "../../db/scope.ts";
import { dataScopeFor, type Principal } from "../../auth/principal.ts";

import { firstParam, type SearchParams } from "./search-params.ts";

export type { SearchParams } from "./search-params.ts";
export { allParams, firstParam } from "./search-params.ts";

export const PAGE_SIZE = 25;

/** The paging and ordering part of a list URL; problems are shown above the table, never thrown. */
export function pagingFrom(params: SearchParams, sortFields: readonly string[], defaultSort: string) {
  const problems: string[] = [];
  const requestedSort = firstParam(params, "sort");
  if (requestedSort && !sortFields.includes(requestedSort)) problems.push(`sort must be one of ${sortFields.join(", ")}; showing the default order`);
  const sort = requestedSort && sortFields.includes(requestedSort) ? requestedSort : defaultSort;
  const rawOrder = firstParam(params, "order");
  if (rawOrder && rawOrder !== "asc" && rawOrder !== "desc") problems.push("order must be asc or desc");
  const order: "asc" | "desc" = rawOrder === "asc" ? "asc" : "desc";
  const pageNumber = Number(firstParam(params, "page") ?? 1);
  return {
    sort,
    order,
    after: firstParam(params, "after"),
    before: firstParam(params, "before"),
    page: Number.isInteger(pageNumber) && pageNumber >= 1 ? pageNumber : 1,
    limit: PAGE_SIZE,
    problems,
  };
}

/** A `YYYY-MM-DD` (UTC) as epoch seconds; `endOfDay` gives the next midnight (an exclusive bound). */
export function dayParam(params: SearchParams, name: string, problems: string[], { endOfDay = false } = {}): number | undefined {
  const raw = firstParam(params, name);
  if (!raw) return undefined;
  const ms = /^\d{4}-\d{2}-\d{2}$/.test(raw) ? Date.parse(`${raw}T00:00:00Z`) : Number.NaN;
  // Date.parse rolls 2026-02-31 over to March; a date that does not survive the round trip is no date.
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== raw) {
    problems.push(`${name} must be a date like 2026-12-01, got "${raw}"`);
    return undefined;
  }
  return Math.floor(ms / 1000) + (endOfDay ? 86_400 : 0);
}

/** The scope a dashboard list reads with: a member's own rows; an admin's `?user=` or everyone's. */
export function listScope(principal: Principal, params: SearchParams): DataScope {
  return dataScopeFor(principal, principal.isAdmin ? firstParam(params, "user") : undefined);
}
