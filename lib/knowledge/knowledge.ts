import { readFile } from "node:fs/promises";
import type { KnowledgeLimits } from "../config/settings.ts";
import { basename } from "node:path";
import { getContent, storeContent, type StoredContent } from "../db/knowledge/contents.ts";
import { unsafeSystemScope } from "../db/scope.ts";
import { processContent } from "./ingest.ts";
import type { KnowledgeBase, KnowledgeSearchResult } from "./knowledge-base.ts";
import { prepareContent, type ContentSource } from "./prepare-content.ts";
import type { SearchType } from "./stores/vector-store.ts";

/** One content for `insert` (the seed's replacement of `add_content`): exactly one of path, url or textContent. */
export interface KnowledgeInsert {
  name?: string;
  description?: string;
  /** A file on this machine. */
  path?: string;
  url?: string;
  textContent?: string;
  metadata?: Record<string, unknown>;
  /** The owner; null or absent: shared with every user. */
  userId?: string | null;
  readerId?: string;
  chunker?: string;
  chunkSize?: number;
  chunkOverlap?: number;
}

/**
 * Knowledge as code uses it (scripts, seeds, tests): `insert` and `insertMany` read, chunk, embed
 * and store contents before they return (no queue), for a given owner or shared; `search` finds
 * chunks for a given user. The caller is trusted with the owner it names, as Agno's `user_id`
 * parameter is; requests never come through here (they get lib/knowledge/ingestion/submit-content.ts).
 */
export class Knowledge {
  constructor(
    readonly base: KnowledgeBase,
    private readonly options: { allowHosts?: readonly string[]; limits?: KnowledgeLimits } = {},
  ) {}

  /** Inserts one content and processes it; the same owner inserting the same content again changes nothing. */
  async insert(input: KnowledgeInsert): Promise<StoredContent> {
    const sources = [input.path, input.url, input.textContent].filter((s) => s !== undefined);
    if (sources.length !== 1) throw new Error("Knowledge.insert needs exactly one of path, url or textContent");
    const source: ContentSource =
      input.path !== undefined
        ? { file: { bytes: new Uint8Array(await readFile(input.path)), filename: basename(input.path), mimeType: null } }
        : input.url !== undefined
          ? { url: input.url }
          : { text: input.textContent! };
    const scope = unsafeSystemScope("code inserts knowledge for the owner it names", { actingAs: input.userId ?? null });
    const { id, content, upload, options } = prepareContent({
      base: this.base,
      scope,
      submission: {
        source,
        name: input.name ?? null,
        description: input.description ?? null,
        metadata: input.metadata ?? null,
        options: { readerId: input.readerId, chunker: input.chunker, chunkSize: input.chunkSize, chunkOverlap: input.chunkOverlap },
      },
    });
    const stored = await storeContent(this.base.db, { scope, content, upload });
    if (stored.created) await processContent(this.base, { contentId: id, options, allowHosts: this.options.allowHosts ?? [], limits: this.options.limits });
    return (await getContent(this.base.db, { scope, id })) ?? stored.content;
  }

  /** Inserts several contents one after another (the seed's `insert_many`). */
  async insertMany(inputs: readonly KnowledgeInsert[]): Promise<StoredContent[]> {
    const stored: StoredContent[] = [];
    for (const input of inputs) stored.push(await this.insert(input));
    return stored;
  }

  /** Searches as `userId` (its chunks and the shared ones), or everyone's when it is undefined. */
  search(query: string, options: { userId?: string | null; maxResults?: number; filters?: Record<string, unknown>; searchType?: SearchType } = {}): Promise<KnowledgeSearchResult> {
    const scope = unsafeSystemScope("code searches knowledge as the user it names", options.userId === undefined ? {} : { actingAs: options.userId });
    return this.base.search({ scope, query, maxResults: options.maxResults, filters: options.filters, searchType: options.searchType });
  }
}
