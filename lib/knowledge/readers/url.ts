/**
 * Web addresses: fetched with safeFetch (no private or internal addresses unless an admin allowed
 * the host), then read by the reader for what was served: its Content-Type, else the final URL's
 * extension, else the bytes (pick-reader.ts).
 */
import { decodeText, extensionOf } from "./decode.ts";
import { pickReader } from "./pick-reader.ts";
import { type ReadInput, type ReadOptions, type ReadOutput, type Reader, ReaderError } from "./reader.ts";
import { type SafeFetchOptions, safeFetch } from "./safe-fetch.ts";

/** The last segment of a URL's path, as a file name for picking a reader ("report.pdf"), or undefined. */
function fileNameOf(url: string): string | undefined {
  const segment = new URL(url).pathname.split("/").pop() ?? "";
  let name: string;
  try {
    name = decodeURIComponent(segment);
  } catch {
    name = segment;
  }
  return extensionOf(name) ? name : undefined;
}

/** What a fetched URL gives a reader: the bytes, a file name and media type, and what the fetch learnt. */
export interface FetchedDocument {
  bytes: Uint8Array;
  name?: string;
  mimeType?: string;
  /** The final URL (after redirects) as `url`, the one asked for as `source_url`, and `content_type`. */
  sourceMetadata: Record<string, unknown>;
}

/** Fetches the URL (safeFetch's checks and caps) for a reader to read. */
export async function fetchForReading(url: string, options: SafeFetchOptions = {}): Promise<FetchedDocument> {
  const response = await safeFetch(url, options);
  const sourceMetadata: Record<string, unknown> = { url: response.url, source_url: url };
  if (response.mimeType) sourceMetadata.content_type = response.mimeType;
  return { bytes: response.bytes, name: fileNameOf(response.url), mimeType: response.contentType, sourceMetadata };
}

/**
 * Fetches the URL and reads what it serves, on this thread (knowledge processing reads on a worker
 * thread instead: lib/knowledge/ingest.ts). metadata.url is the final URL (after redirects),
 * metadata.source_url the one asked for; metadata.reader names the reader that read it.
 */
export async function readUrl(url: string, options: SafeFetchOptions & Pick<ReadOptions, "limits"> = {}): Promise<ReadOutput> {
  const { bytes, name, mimeType, sourceMetadata } = await fetchForReading(url, options);
  const reader = pickReader({ name, mimeType, bytes });
  const output = await reader.read({ bytes, name, mimeType }, { signal: options.signal, limits: options.limits });
  return { ...output, metadata: { ...output.metadata, ...sourceMetadata, reader: reader.id } };
}

/** The one address in a text (blank lines and "#" comment lines, as in text/uri-list, are skipped). */
export function urlFromText(text: string): string {
  const lines = text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"));
  if (lines.length === 0) throw new ReaderError("No web address was given; give one address starting with http:// or https://.");
  if (lines.length > 1) throw new ReaderError(`${lines.length} web addresses were given, and the URL reader reads one; add each address on its own.`);
  return lines[0]!;
}

/**
 * A URL reader whose fetches use these options (the admin's allowed hosts, limits). Its input is
 * the address as text; `readUrl` is the direct way in.
 */
export function createUrlReader(fetchOptions: Omit<SafeFetchOptions, "signal"> = {}): Reader {
  return {
    id: "url",
    name: "URL",
    description: "Web addresses (http and https): fetches the page or file and reads it with the reader for its type; private and internal addresses are refused.",
    mimeTypes: ["text/uri-list"],
    extensions: [],
    async read({ bytes }: ReadInput, options?: ReadOptions): Promise<ReadOutput> {
      return readUrl(urlFromText(decodeText(bytes).text), { ...fetchOptions, signal: options?.signal, limits: options?.limits });
    },
  };
}

/** The URL reader with the default limits and no allowed hosts (public addresses only). */
export const urlReader: Reader = createUrlReader();
