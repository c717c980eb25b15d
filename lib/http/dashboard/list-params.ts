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
  return {
    sort,
    order,
    after: firstParam(params, "after"),
    before: firstParam(params, "before"),
    page: pageNumberFrom(params),
    limit: PAGE_SIZE,
    problems,
  };
}

/** The URL's page number (`?page=`): 1 unless it is a whole number from 1. */
export function pageNumberFrom(params: SearchParams): number {
  const pageNumber = Number(firstParam(params, "page") ?? 1);
  return Number.isInteger(pageNumber) && pageNumber >= 1 ? pageNumber : 1;
}

/** The scope a dashboard list reads with: a member's own rows; an admin's `?user=` or everyone's. */
export function listScope(principal: Principal, params: SearchParams): DataScope {
  return dataScopeFor(principal, principal.isAdmin ? firstParam(params, "user") : undefined);
}
