/**
 * Web addresses: fetched with safeFetch (no private or internal addresses unless an admin allowed
 * the host), then read by the reader for what was served: its Content-Type, else the final URL's
 * extension, else the bytes (pick-reader.ts).
 */
import { decodeText, extensionOf } from "./decode.ts";
import { pickReader } from "./pick-reader.ts";
import { type ReadInput, type ReadOutput, type Reader, ReaderError } from "./reader.ts";
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

/**
 * Fetches the URL and reads what it serves. metadata.url is the final URL (after redirects),
 * metadata.source_url the one asked for; metadata.reader names the reader that read it.
 */
export async function readUrl(url: string, options: SafeFetchOptions = {}): Promise<ReadOutput> {
  const response = await safeFetch(url, options);
  const name = fileNameOf(response.url);
  const reader = pickReader({ name, mimeType: response.contentType, bytes: response.bytes });
  const output = await reader.read({ bytes: response.bytes, name, mimeType: response.contentType }, { signal: options.signal });
  const metadata: Record<string, unknown> = { ...output.metadata, url: response.url, source_url: url, reader: reader.id };
  if (response.mimeType) metadata.content_type = response.mimeType;
  return { ...output, metadata };
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
    async read({ bytes }: ReadInput, options?: { signal?: AbortSignal }): Promise<ReadOutput> {
      return readUrl(urlFromText(decodeText(bytes).text), { ...fetchOptions, signal: options?.signal });
    },
  };
}

/** The URL reader with the default limits and no allowed hosts (public addresses only). */
export const urlReader: Reader = createUrlReader();
