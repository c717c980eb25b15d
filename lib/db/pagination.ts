import { PaginationError } from "../errors/domain-errors.ts";

export interface PageRequest {
  /** 1-indexed; requires `limit`. */
  page?: number;
  limit?: number;
}

export interface PageWindow {
  take?: number;
  skip: number;
}

/**
 * Turns a 1-indexed page request into take/skip. `page` without `limit`, or `page`/`limit` below
 * 1, throws: a caller asking for page 3 must never silently get page 1.
 */
export function pageWindow({ page, limit }: PageRequest): PageWindow {
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) {
    throw new PaginationError(`limit must be an integer of at least 1, got ${limit}`, "limit");
  }
  if (page === undefined) return { take: limit, skip: 0 };
  if (!Number.isInteger(page) || page < 1) {
    throw new PaginationError(`page must be an integer of at least 1 (pages are 1-indexed), got ${page}`, "page");
  }
  if (limit === undefined) throw new PaginationError("page was given without limit; pass both", "page");
  return { take: limit, skip: (page - 1) * limit };
}

export interface PageMeta {
  page: number;
  limit: number;
  total_pages: number;
  total_count: number;
}

export function pageMeta({ page, limit, totalCount }: { page: number; limit: number; totalCount: number }): PageMeta {
  return { page, limit, total_pages: Math.ceil(totalCount / limit), total_count: totalCount };
}
