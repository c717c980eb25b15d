import "server-only";
import type { z } from "zod";
import type { DataScope } from "../../db/scope.ts";
import type { CappedCount, KeysetPage, KeysetRequest } from "../../db/keyset.ts";
import type { Db } from "../../db/open-database.ts";
import { requireDashboardSession, type DashboardSession } from "./current-user.ts";
import { anyFilterOn, filterFields, readFilters, type FilterShape, type FilterValues } from "./list-filters.ts";
import { firstParam, listScope, PAGE_SIZE, pageNumberFrom, pagingFrom, type SearchParams } from "./list-params.ts";
import type { FilterBarModel, FilterOption, ListView } from "./list-view.ts";
import { loadList } from "./load-list.ts";
import { labelOf, userLabels } from "./user-labels.ts";

/** What a list page's keyset query gets: the caller's list scope, the parsed filters, the sort column and one page's order, size and cursor. */
export interface ListQuery<S extends FilterShape, Sort extends string> {
  db: Db;
  scope: DataScope;
  filters: FilterValues<S>;
  sort: Sort;
  page: KeysetRequest;
}

/**
 * A dashboard list page: its filters (a zod object built from list-filters.ts), the columns its
 * query sorts on (the first is the default order) and its keyset query. `loadListPage` reads the
 * URL against it; the page's React side renders the result with components/dashboard/list.
 */
export interface ListPageDefinition<S extends FilterShape, Sort extends string, Item> {
  /** The page's path: the filter form's action and its Clear link. */
  path: string;
  filters: z.ZodObject<S>;
  sorts: readonly Sort[];
  query: (query: ListQuery<S, Sort>) => Promise<KeysetPage<Item> & { total: CappedCount }>;
}

/**
 * Checks a definition (a default order, a control for every filter). Pages define theirs at module
 * scope, once; a query that needs what the request resolves (the Knowledge page's base) is defined
 * per request around the module's filters.
 */
export function defineListPage<S extends FilterShape, Sort extends string, Item>(definition: ListPageDefinition<S, Sort, Item>): ListPageDefinition<S, Sort, Item> {
  if (definition.sorts.length === 0) throw new Error(`list ${definition.path} sorts on nothing: name at least its default order`);
  filterFields(definition.filters, {});
  return definition;
}

/** The props Next gives a list page. */
export interface ListPageProps {
  searchParams: Promise<SearchParams>;
}

/** The filters of one request, read for the signed-in user: the admin's user filter included. */
export interface ListFilters<S extends FilterShape> {
  session: DashboardSession;
  params: SearchParams;
  filters: FilterValues<S>;
  problems: string[];
  bar: FilterBarModel;
  filtered: boolean;
  /** The scope rows are read with: a member's own; an admin's `?user=`'s or everyone's. */
  scope: DataScope;
  isAdmin: boolean;
  /** The user an admin's list is narrowed to (`?user=`); members have none, whatever the URL says. */
  userFilter?: string;
  /** That user as the page names them: the email when known, else the id. */
  userFilterLabel?: string;
  /** Admins: every dashboard user's id → email. */
  labels: Map<string, string>;
  /** A row owner as the list shows it: the email when known, else the id; null for shared rows. */
  ownerLabel: (userId: string | null) => string | null;
}

export interface ReadListOptions<S extends FilterShape> {
  searchParams: Promise<SearchParams>;
  /** The choices of the filters whose choices depend on the request (agents, models, topics). */
  options?: FilterChoices<S> | ((request: DashboardSession & { scope: DataScope }) => FilterChoices<S> | Promise<FilterChoices<S>>);
}

type FilterChoices<S extends FilterShape> = Partial<Record<keyof S & string, readonly FilterOption[]>>;

/**
 * Reads a list's filters from the URL for the signed-in user (sign-in first otherwise), with the
 * admin's user filter: the form every list page shows, whatever its order and paging.
 */
export async function readListFilters<S extends FilterShape>(path: string, schema: z.ZodObject<S>, { searchParams, options }: ReadListOptions<S>): Promise<ListFilters<S>> {
  const session = await requireDashboardSession();
  const params = await searchParams;
  const { principal, db } = session;
  const isAdmin = principal.isAdmin;
  const read = readFilters(schema, params);
  const userFilter = isAdmin ? firstParam(params, "user") : undefined;
  const scope = listScope(principal, params);
  const [labels, choices] = await Promise.all([userLabels(db, principal), typeof options === "function" ? options({ ...session, scope }) : options]);
  const fields = filterFields(schema, read.shown, choices);
  if (isAdmin) {
    const people = [...labels].map(([id, email]) => ({ value: id, label: email }));
    // A user the filter names who has no dashboard account (an API caller) stays chosen.
    fields.push({ name: "user", label: "User", control: "select", value: userFilter, options: userFilter && !labels.has(userFilter) ? [...people, { value: userFilter, label: userFilter }] : people });
  }
  return {
    session,
    params,
    filters: read.values,
    problems: read.problems,
    bar: { action: path, sort: firstParam(params, "sort"), order: firstParam(params, "order"), fields },
    filtered: anyFilterOn(read.values) || userFilter !== undefined,
    scope,
    isAdmin,
    userFilter,
    userFilterLabel: userFilter && (labels.get(userFilter) ?? userFilter),
    labels,
    ownerLabel: (userId) => labelOf(labels, userId),
  };
}

export interface LoadListOptions<S extends FilterShape> extends ReadListOptions<S> {
  /** Problems the page found in the URL itself (the Knowledge page: a base it has not), listed after the order's. */
  problems?: string[];
}

/** One loaded page of a list: its rows as the query gave them, and what the pattern renders around them. */
export type LoadedList<S extends FilterShape, Item> = ListFilters<S> & ListView & { items: Item[] };

/**
 * Loads one page of `definition` for this request: the filters, the order (`sort`, `order`), the
 * keyset cursor (`after`, `before`) and page number (`page`) from the URL, problems with any of
 * them shown rather than thrown (an unreadable cursor: the first page, said so).
 */
export async function loadListPage<S extends FilterShape, Sort extends string, Item>(
  definition: ListPageDefinition<S, Sort, Item>,
  { problems: earlier = [], ...options }: LoadListOptions<S>,
): Promise<LoadedList<S, Item>> {
  const read = await readListFilters(definition.path, definition.filters, options);
  const paging = pagingFrom(read.params, definition.sorts, definition.sorts[0]!);
  const problems = [...paging.problems, ...earlier, ...read.problems];
  const sort = paging.sort as Sort;
  const page = await loadList(
    (cursor) => definition.query({ db: read.session.db, scope: read.scope, filters: read.filters, sort, page: { order: paging.order, limit: paging.limit, ...cursor } }),
    { after: paging.after, before: paging.before },
    problems,
  );
  return {
    ...read,
    problems,
    items: page.rows,
    sort: { field: sort, order: paging.order },
    page: { next: page.next, prev: page.prev, total: page.total, page: page.restarted ? 1 : paging.page },
    showUser: read.isAdmin,
  };
}

/** What a numbered list's query gets: the caller's list scope, the parsed filters, one page's number (from 1) and size. */
export interface NumberedListQuery<S extends FilterShape> {
  db: Db;
  scope: DataScope;
  filters: FilterValues<S>;
  page: number;
  limit: number;
}

/**
 * A list its storage pages by number, in its own order (`page`/`limit` over Agno's tables: the
 * Traces page): the same filters, admin's user filter, table and pager as a keyset list, with
 * `?page=` in the URL and no order to choose.
 */
export interface NumberedListPageDefinition<S extends FilterShape, Item> {
  path: string;
  filters: z.ZodObject<S>;
  query: (query: NumberedListQuery<S>) => Promise<{ rows: Item[]; totalCount: number }>;
}

/** Checks a numbered list's definition (a control for every filter), as defineListPage does. */
export function defineNumberedListPage<S extends FilterShape, Item>(definition: NumberedListPageDefinition<S, Item>): NumberedListPageDefinition<S, Item> {
  filterFields(definition.filters, {});
  return definition;
}

/**
 * Loads one numbered page of `definition` for this request: the filters as loadListPage reads
 * them, the page number from `?page=`; a page past the last is the first page, said so.
 */
export async function loadNumberedListPage<S extends FilterShape, Item>(
  definition: NumberedListPageDefinition<S, Item>,
  { problems: earlier = [], ...options }: LoadListOptions<S>,
): Promise<LoadedList<S, Item>> {
  const read = await readListFilters(definition.path, definition.filters, options);
  const problems = [...earlier, ...read.problems];
  const load = (page: number) => definition.query({ db: read.session.db, scope: read.scope, filters: read.filters, page, limit: PAGE_SIZE });
  let page = pageNumberFrom(read.params);
  let loaded = await load(page);
  if (loaded.rows.length === 0 && page > 1) {
    problems.push(`page ${page} is past the last one; showing the first page`);
    page = 1;
    loaded = await load(page);
  }
  const next = page * PAGE_SIZE < loaded.totalCount ? String(page + 1) : null;
  return {
    ...read,
    problems,
    // The list's own order: the filter form carries none.
    bar: { ...read.bar, sort: undefined, order: undefined },
    items: loaded.rows,
    sort: { field: "", order: "desc" },
    page: { page, prev: page > 1 ? String(page - 1) : null, next, total: { count: loaded.totalCount, capped: false }, numbered: true },
    showUser: read.isAdmin,
  };
}
