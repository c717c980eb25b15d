/**
 * The chunkers by the names Agno's config gives them (its `ChunkingStrategyType` values, which
 * `/knowledge/config` lists and content uploads name), with short lower-case aliases.
 */
import type { Chunker } from "./chunk.ts";
import { fixedSizeChunker } from "./fixed-size.ts";
import { markdownChunker } from "./markdown.ts";
import { recursiveChunker } from "./recursive.ts";

/** The strategy names this module implements, spelled as Agno spells them. */
export type ChunkerKey = "FixedSizeChunker" | "RecursiveChunker" | "MarkdownChunker";

/** Every chunker, keyed by its Agno name. */
export const CHUNKERS: Readonly<Record<ChunkerKey, Chunker>> = Object.freeze({
  FixedSizeChunker: fixedSizeChunker,
  RecursiveChunker: recursiveChunker,
  MarkdownChunker: markdownChunker,
});

const ALIASES: Readonly<Record<string, ChunkerKey>> = Object.freeze({
  fixed: "FixedSizeChunker",
  recursive: "RecursiveChunker",
  markdown: "MarkdownChunker",
});

/**
 * The chunker an Agno key ("FixedSizeChunker", exact case as Agno matches it) or an alias
 * ("fixed", "recursive", "markdown", any case) names, surrounding spaces ignored; undefined for
 * any other name.
 */
export function chunkerFor(keyOrAlias: string): Chunker | undefined {
  const name = keyOrAlias.trim();
  if (Object.hasOwn(CHUNKERS, name)) return CHUNKERS[name as ChunkerKey];
  const alias = name.toLowerCase();
  return Object.hasOwn(ALIASES, alias) ? CHUNKERS[ALIASES[alias]] : undefined;
}

/**
 * The chunker a document gets when none is named, as Agno's readers choose: the Markdown reader
 * defaults to MarkdownChunking, the text reader (and the base reader) to FixedSizeChunking.
 */
export function defaultChunkerFor(format: "text" | "markdown"): Chunker {
  return format === "markdown" ? markdownChunker : fixedSizeChunker;
}
