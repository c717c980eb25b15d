import type { SearchParams } from "@/lib/http/dashboard/search-params.ts";

/**
 * The list state every dashboard table keeps in its URL (sort, order, after/before cursors, page,
 * filters): the path with `changes`, keeping `current`'s other filters; undefined drops a parameter. */
export function hrefWith(path: string, current: URLSearchParams | SearchParams, changes: Record<string, string | number | undefined>): string {
  const next = new URLSearchParams();
  const entries =
    current instanceof URLSearchParams
      ? [...current.entries()]
      : Object.entries(current).flatMap(([k, v]) => (Array.isArray(v) ? v.map((x) => [k, x] as const) : v === undefined ? [] : [[k, v] as const]));
  for (const [key, value] of entries) if (!(key in changes)) next.append(key, value);
  for (const [key, value] of Object.entries(changes)) if (value !== undefined && value !== "") next.set(key, String(value));
  const query = next.toString();
  return query ? `${path}?${query}` : path;
}
