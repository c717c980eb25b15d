/**
 * Positions in the source text. Chunkers work on spans (start inclusive, end exclusive) so every
 * chunk is an exact slice of the source, trimmed of the whitespace at its edges.
 */

/** A half-open range [start, end) of the source text. */
export interface Span {
  start: number;
  end: number;
}

const WHITESPACE = /\s/;

/** Whether the UTF-16 unit at `i` is whitespace (false past the end). */
export function isWhitespaceAt(text: string, i: number): boolean {
  return i >= 0 && i < text.length && WHITESPACE.test(text[i]);
}

/** The first position at or after `from` (and before `to`) that is not whitespace, else `to`. */
export function skipWhitespace(text: string, from: number, to = text.length): number {
  let i = from;
  while (i < to && WHITESPACE.test(text[i])) i++;
  return i;
}

/** [start, end) without the whitespace at either edge; null when nothing else is left. */
export function trimSpan(text: string, start: number, end: number): Span | null {
  const from = skipWhitespace(text, start, end);
  if (from >= end) return null;
  let to = end;
  while (to > from && WHITESPACE.test(text[to - 1])) to--;
  return { start: from, end: to };
}

/** Whether a cut at `i` would separate the two halves of a surrogate pair (an emoji, say). */
export function splitsSurrogatePair(text: string, i: number): boolean {
  if (i <= 0 || i >= text.length) return false;
  const before = text.charCodeAt(i - 1);
  const after = text.charCodeAt(i);
  return before >= 0xd800 && before <= 0xdbff && after >= 0xdc00 && after <= 0xdfff;
}

/**
 * Moves a cut that would split a surrogate pair one unit earlier, as long as it stays above `min`;
 * a window too small for the pair is cut anyway, because a chunk never exceeds its size.
 */
export function keepSurrogatePair(text: string, cut: number, min: number): number {
  return cut - 1 > min && splitsSurrogatePair(text, cut) ? cut - 1 : cut;
}
