// Pure helpers (no server imports): the dashboard's client components use them too.
import { unsafeCharacterIn } from "../input-text.ts";

/** Search params as Next hands them to a page. */
export type SearchParams = Record<string, string | string[] | undefined>;

/**
 * A value a page may use as a filter: empty text, and text no database stores the same way on
 * both dialects (a NUL, a lone surrogate), count as no value.
 */
const usable = (value: string | undefined): value is string => value !== undefined && value !== "" && unsafeCharacterIn(value) === null;

export function firstParam(params: SearchParams, name: string): string | undefined {
  const value = params[name];
  const first = Array.isArray(value) ? value[0] : value;
  return usable(first) ? first : undefined;
}

export function allParams(params: SearchParams, name: string): string[] {
  const value = params[name];
  return (Array.isArray(value) ? value : value === undefined ? [] : [value]).filter(usable);
}

/**
 * A dynamic path segment (`[runId]`) as an id to look up, or null when it is no id at all: a
 * malformed percent-escape, or text no database can store. Pages answer null with notFound().
 */
export function pathId(raw: string): string | null {
  let id: string;
  try {
    id = decodeURIComponent(raw);
  } catch {
    return null;
  }
  return usable(id) ? id : null;
}
