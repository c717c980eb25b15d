// Pure (no server imports): the API's request path and the dashboard's server actions share it.

import { unstorableCharacterIn } from "../db/storable-text.ts";
import { jsonNestsDeeperThan } from "../db/json.ts";

/** Nesting deeper than this is refused before parsing (JSON.parse recurses, and overflows at ~10k). */
export const MAX_JSON_DEPTH = 64;

/**
 * What is wrong with a string as stored text ("a NUL character (\\u0000)"), or null when nothing
 * is: the edge refuses what storage cannot hold the same way on both dialects (lib/db/storable-text.ts).
 */
export const unsafeCharacterIn = unstorableCharacterIn;

export interface UnsafeText {
  /** Where, below the value given: object keys and array indexes. */
  path: (string | number)[];
  message: string;
}

/** At most this many problems are reported for one value; one is enough to refuse it. */
const MAX_REPORTED = 10;

/**
 * Every string in a value (object keys included) that holds an unsafe character. Iterative, so a
 * value of any depth is walked without growing the call stack.
 */
export function unsafeTextIn(value: unknown): UnsafeText[] {
  const found: UnsafeText[] = [];
  const stack: { value: unknown; path: (string | number)[] }[] = [{ value, path: [] }];
  while (stack.length > 0 && found.length < MAX_REPORTED) {
    const { value: current, path } = stack.pop()!;
    if (typeof current === "string") {
      const problem = unsafeCharacterIn(current);
      if (problem) found.push({ path, message: `must not contain ${problem}` });
    } else if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) stack.push({ value: current[i], path: [...path, i] });
    } else if (current && typeof current === "object") {
      const entries = Object.entries(current as Record<string, unknown>);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i];
        const problem = unsafeCharacterIn(key);
        if (problem) found.push({ path, message: `a key must not contain ${problem}` });
        stack.push({ value: child, path: [...path, key] });
      }
    }
  }
  return found.slice(0, MAX_REPORTED);
}

export { jsonNestsDeeperThan } from "../db/json.ts";

export type DecodedJson = { ok: true; value: unknown } | { ok: false; reason: "too_deep" | "invalid"; message: string };

/** JSON text decoded, its nesting capped first (MAX_JSON_DEPTH); never throws. */
export function decodeJsonText(text: string, maxDepth = MAX_JSON_DEPTH): DecodedJson {
  if (jsonNestsDeeperThan(text, maxDepth)) {
    return { ok: false, reason: "too_deep", message: `JSON is nested deeper than the limit of ${maxDepth} levels` };
  }
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, reason: "invalid", message: `invalid JSON (${(error as Error).message})` };
  }
}
