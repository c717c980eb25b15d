import { PaginationError } from "../errors/domain-errors.ts";
import { unstorableCharacterIn } from "./storable-text.ts";

/**
 * Keyset ("seek") pagination: a page is asked for relative to a row of the previous one, never by
 * offset, so page 500 costs what page 1 does. A cursor is the (sort value, id) of that row,
 * opaque to clients (base64url JSON).
 */
export interface KeysetRequest {
  /** Rows after this cursor in the sort order (the next page). */
  after?: string;
  /** Rows before this cursor in the sort order (the previous page). */
  before?: string;
  limit: number;
  order: "asc" | "desc";
}

export interface KeysetPage<T> {
  rows: T[];
  /** Cursor for the page after this one, or null on the last page. */
  next: string | null;
  /** Cursor for the page before this one, or null on the first page. */
  prev: string | null;
}

type CursorValue = string | number;

export const MAX_PAGE_SIZE = 200;
const MAX_ID_LENGTH = 512;

/** What a cursor is bound to: the sort it was issued for, so it is never read under another. */
export interface CursorTag {
  sort: string;
  order: "asc" | "desc";
}

/** A cursor for the row (sortValue, id) under `tag`'s order (the list functions issue them; benchmarks build one). */
export function encodeCursor(tag: CursorTag, sortValue: CursorValue, id: string): string {
  return Buffer.from(JSON.stringify([tag.sort, tag.order, sortValue, id])).toString("base64url");
}

function decodeCursor(cursor: string, tag: CursorTag, sortKind: "number" | "string"): [CursorValue, string] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    parsed = null;
  }
  const fields = Array.isArray(parsed) ? (parsed as unknown[]) : [];
  const [sort, order, value, id] = fields;
  // A number must survive the trip into a BIGINT comparison (PostgreSQL rejects 1.5 or 1e20).
  const wellFormed =
    fields.length === 4 &&
    typeof value === sortKind &&
    (sortKind !== "number" || Number.isSafeInteger(value)) &&
    typeof id === "string" &&
    id.length <= MAX_ID_LENGTH &&
    // A forged cursor could carry text no database compares (PostgreSQL refuses a NUL outright).
    unstorableCharacterIn(id) === null &&
    (typeof value !== "string" || unstorableCharacterIn(value) === null);
  if (!wellFormed) throw new PaginationError("cursor is not one this server issued; start from the first page", "page");
  if (sort !== tag.sort || order !== tag.order) {
    throw new PaginationError("cursor belongs to another sort or order; start from the first page", "page");
  }
  return [value as CursorValue, id as string];
}

/**
 * The WHERE fragment, ORDER BY and LIMIT of one keyset page over (`sortColumn`, `idColumn`). The
 * leading `sortColumn <=/>= ?` lets an index on the sort column alone serve the seek; the row
 * comparison settles ties. Both columns are trusted identifiers (callers whitelist them).
 */
export function keysetQuery(
  request: KeysetRequest,
  { sortColumn, idColumn, sortKind }: { sortColumn: string; idColumn: string; sortKind: "number" | "string" },
): { clause: string; params: unknown[]; orderBy: string; countOrderBy: string; limit: number; backwards: boolean; tag: CursorTag } {
  if (!Number.isInteger(request.limit) || request.limit < 1 || request.limit > MAX_PAGE_SIZE) {
    throw new PaginationError(`limit must be an integer from 1 to ${MAX_PAGE_SIZE}, got ${request.limit}`, "limit");
  }
  if (request.after && request.before) throw new PaginationError("give either after or before, not both", "page");
  const backwards = Boolean(request.before);
  const cursor = request.after ?? request.before;
  // Walking backwards reads the opposite order, then the page is flipped back.
  const descending = (request.order === "desc") !== backwards;
  const direction = descending ? "DESC" : "ASC";
  const orderBy = `${sortColumn} ${direction}, ${idColumn} ${direction}`;
  // Counting needs no tie-break: the sort column alone lets an index on it serve the count.
  const countOrderBy = `${sortColumn} ${direction}`;
  const tag: CursorTag = { sort: sortColumn, order: request.order };
  if (!cursor) return { clause: "1=1", params: [], orderBy, countOrderBy, limit: request.limit + 1, backwards, tag };
  const [value, id] = decodeCursor(cursor, tag, sortKind);
  const [wide, strict] = descending ? ["<=", "<"] : [">=", ">"];
  return {
    clause: `${sortColumn} ${wide} ? AND (${sortColumn}, ${idColumn}) ${strict} (?, ?)`,
    params: [value, value, id],
    orderBy,
    countOrderBy,
    limit: request.limit + 1,
    backwards,
    tag,
  };
}

/**
 * Turns the rows a keysetQuery read (one more than the page, to know whether more follow) into a
 * page with its neighbours' cursors.
 */
export function keysetPage<T>(fetched: T[], request: KeysetRequest, { backwards, tag }: { backwards: boolean; tag: CursorTag }, keyOf: (row: T) => [CursorValue, string]): KeysetPage<T> {
  const more = fetched.length > request.limit;
  const rows = fetched.slice(0, request.limit);
  if (backwards) rows.reverse();
  const cursorOf = (row: T | undefined) => (row ? encodeCursor(tag, ...keyOf(row)) : null);
  const hasNext = backwards ? true : more;
  const hasPrev = backwards ? more : Boolean(request.after);
  return { rows, next: hasNext ? cursorOf(rows.at(-1)) : null, prev: hasPrev ? cursorOf(rows[0]) : null };
}

/** At most this many matching rows are counted; beyond it a list says "1,000+". */
export const COUNT_CAP = 1000;

/**
 * A count that stops at COUNT_CAP + 1 rows, so counting never costs more than that many. Given
 * the list's ORDER BY, it walks the same index the page does instead of scanning the table for
 * the first matches.
 */
export function cappedCountSql(from: string, where: string, orderBy?: string): string {
  return `SELECT COUNT(*) AS n FROM (SELECT 1 FROM ${from} WHERE ${where}${orderBy ? ` ORDER BY ${orderBy}` : ""} LIMIT ${COUNT_CAP + 1}) capped`;
}

export interface CappedCount {
  count: number;
  /** True when there are more than `count` (= COUNT_CAP) rows. */
  capped: boolean;
}

export function cappedCount(n: unknown): CappedCount {
  const count = Number(n ?? 0);
  return count > COUNT_CAP ? { count: COUNT_CAP, capped: true } : { count, capped: false };
}
