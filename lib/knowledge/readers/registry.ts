/**
 * Every knowledge reader by id, and how one is chosen for a file (pick-reader.ts). The URL reader
 * here fetches public addresses only; `createUrlReader` makes one with an admin's allowed hosts.
 */
import { FILE_READERS } from "./pick-reader.ts";
import type { Reader } from "./reader.ts";
import { urlReader } from "./url.ts";

export { pickReader } from "./pick-reader.ts";

const ALL: readonly Reader[] = [...FILE_READERS, urlReader];

/** The readers by id: text, markdown, html, pdf, docx, csv, json and url. */
export const READERS: Readonly<Record<string, Reader>> = Object.freeze(Object.fromEntries(ALL.map((reader) => [reader.id, reader])));

/** The reader with this id (any case, surrounding spaces ignored), or undefined. */
export function readerForId(id: string): Reader | undefined {
  const key = id.trim().toLowerCase();
  return Object.hasOwn(READERS, key) ? READERS[key] : undefined;
}

/** Media type → ids of the readers that read it, for clients choosing a reader. */
export function readersForType(): Record<string, string[]> {
  const byType: Record<string, string[]> = {};
  for (const reader of ALL) {
    for (const mimeType of reader.mimeTypes) (byType[mimeType] ??= []).push(reader.id);
  }
  return byType;
}
