import { createHash } from "node:crypto";

/** What identifies a content: who inserts it, how it is described, and its bytes or address. */
export interface ContentIdentity {
  /** The owner; null for shared content. */
  userId: string | null;
  name?: string | null;
  description?: string | null;
  metadata?: Record<string, unknown> | null;
  /** A URL, or the content's bytes (a file, or text as UTF-8). */
  source: { url: string } | { bytes: Uint8Array };
}

const sha256 = (data: string | Uint8Array): string => createHash("sha256").update(data).digest("hex");

/** JSON with object keys sorted at every level, so equal metadata hashes equally. */
function sortedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${sortedJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value ?? null);
}

/**
 * The content hash, in the order Agno's `_build_content_hash` uses: the owner first (a digest of
 * the user id, so two users' identical uploads get two contents), then name, description and
 * metadata when present, then the source — the URL, or a digest of the bytes themselves (Agno
 * uses a file's name there; the bytes make a changed file a new content and the same text twice
 * the same one). Parts are joined with ':' and hashed with SHA-256.
 */
export function contentHash(identity: ContentIdentity): string {
  const parts: string[] = [];
  if (identity.userId !== null) parts.push(sha256(identity.userId).slice(0, 16));
  if (identity.name) parts.push(identity.name);
  if (identity.description) parts.push(identity.description);
  if (identity.metadata && Object.keys(identity.metadata).length > 0) parts.push(sortedJson(identity.metadata));
  parts.push("url" in identity.source ? identity.source.url : `bytes:${sha256(identity.source.bytes)}`);
  return sha256(parts.join(":"));
}

/** RFC 4122 DNS namespace, the one Agno's `generate_id` derives content ids in. */
const DNS_NAMESPACE = Buffer.from("6ba7b8109dad11d180b400c04fd430c8", "hex");

/** The content id of a hash: a name-based (version 5, SHA-1) UUID in the DNS namespace, as Agno's `generate_id`. */
export function contentIdOf(hash: string): string {
  const bytes = createHash("sha1").update(DNS_NAMESPACE).update(hash, "utf8").digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * A chunk's row id, as Agno's PgVector makes it: md5 of `<document id>_<content hash>`, and for an
 * owned chunk md5 of that and `_<user id>` (so a shared chunk keeps Agno 2.x's id).
 */
export function chunkRecordId({ documentId, hash, userId }: { documentId: string; hash: string; userId: string | null }): string {
  const md5 = (s: string) => createHash("md5").update(s).digest("hex");
  const id = md5(`${documentId}_${hash}`);
  return userId === null ? id : md5(`${id}_${userId}`);
}
