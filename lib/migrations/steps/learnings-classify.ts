import { parseSessionJson } from "../../db/json.ts";

/** The namespace contaminated rows move to: no entity store reads it, so their content stays for an operator. */
export const QUARANTINE_NAMESPACE = "quarantined_user";

/** The row key an entity learning had before v3 in `namespace` (no user in it). */
export function legacyEntityKey(entityType: string, entityId: string, namespace: string): string {
  return `entity_${namespace}_${entityType}_${entityId}`;
}

/** The row key a contaminated pre-v3 user entity row moves to (namespace QUARANTINE_NAMESPACE). */
export function quarantinedEntityKey(entityType: string, entityId: string): string {
  return legacyEntityKey(entityType, entityId, QUARANTINE_NAMESPACE);
}

/** An `agno_learnings` row as the re-key reads it. */
export interface EntityLearningRow {
  learning_id: string;
  user_id: string | null;
  entity_id: string | null;
  entity_type: string | null;
  content: unknown;
  metadata: unknown;
}

/**
 * Where the re-key puts a `user`-namespace entity row (Agno's buckets):
 * - `keyed`: not on the pre-v3 key, nothing to do;
 * - `contaminated_keyed`: not on the pre-v3 key, but its content records a user other than its
 *   owner (the owner's own later writes merged into it) — reported, left alone;
 * - `malformed`: no entity id or type, or content that is not an object — reported, left alone;
 * - `unowned`: on the pre-v3 key with no `user_id`: no user owns it — reported, left alone;
 * - `contaminated`: on the pre-v3 key, its content's `user_id` is not its owner's: two users
 *   wrote it and the first one's data is gone — moved to QUARANTINE_NAMESPACE;
 * - `legacy`: on the pre-v3 key, owned, consistent — moved to its owner's v3 key.
 */
export type EntityRowBucket = "keyed" | "contaminated_keyed" | "malformed" | "unowned" | "contaminated" | "legacy";

/** A JSON column as an object, decoding a double-encoded one; null when it holds no object. */
export function jsonObject(value: unknown): Record<string, unknown> | null {
  const parsed = parseSessionJson(value);
  return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
}

/** Two user ids name the same user: compared as text (the owner column is text); a missing id matches nothing. */
function sameUser(left: unknown, right: unknown): boolean {
  if (left === null || left === undefined || right === null || right === undefined) return false;
  return String(left) === String(right);
}

/** Sorts a `user`-namespace entity row into its bucket; `content` is set only for `legacy` rows. */
export function classifyEntityRow(row: EntityLearningRow): { bucket: EntityRowBucket; content: Record<string, unknown> | null } {
  if (!row.entity_id || !row.entity_type) return { bucket: "malformed", content: null };
  const content = jsonObject(row.content);
  if (!content) return { bucket: "malformed", content: null };
  const owner = row.user_id;
  const recorded = content.user_id;
  const contaminated = !!owner && recorded !== null && recorded !== undefined && !sameUser(recorded, owner);
  if (row.learning_id !== legacyEntityKey(row.entity_type, row.entity_id, "user")) return { bucket: contaminated ? "contaminated_keyed" : "keyed", content: null };
  if (!owner) return { bucket: "unowned", content: null };
  if (contaminated) return { bucket: "contaminated", content: null };
  return { bucket: "legacy", content };
}

/** Case folded, whitespace collapsed: how the entity store compares facts and names. */
function folded(text: string): string {
  return text.trim().toLowerCase().replace(/\s+/g, " ");
}

/** The identity the entity store gives an entry of `facts`, `events` or `relationships`. */
function entryKey(field: string, entry: unknown): string {
  if (entry === null || typeof entry !== "object" || Array.isArray(entry)) return JSON.stringify(["text", folded(String(entry))]);
  const e = entry as Record<string, unknown>;
  if (field === "facts") return e.content ? JSON.stringify(["text", folded(String(e.content))]) : JSON.stringify(["id", e.id ?? null]);
  if (field === "events") return JSON.stringify([e.content ?? null, e.date ?? null]);
  return JSON.stringify([e.entity_id ?? null, e.entity_type ?? null, e.relation ?? null, e.direction ?? null]);
}

function collection(content: Record<string, unknown>, field: string): unknown[] {
  const entries = content[field];
  if (entries === null || entries === undefined) return [];
  // Merging around a value the store would not read as a list would drop it: the row fails instead.
  if (!Array.isArray(entries)) throw new TypeError(`${field} is not a list`);
  return entries;
}

/**
 * A pre-v3 row's content folded into the content of the row already on its v3 key. The target is
 * the newer state (the application wrote it after the upgrade): it wins every conflict, the source
 * fills gaps. Collections keep the store's order (newest last): the source's entries the target
 * lacks go first. Throws when a collection is not a list.
 */
export function mergeEntityContent(source: Record<string, unknown>, target: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...source, ...target };
  for (const field of ["facts", "events", "relationships"]) {
    const targetEntries = collection(target, field);
    const seen = new Set(targetEntries.map((entry) => entryKey(field, entry)));
    const carried = collection(source, field).filter((entry) => !seen.has(entryKey(field, entry)));
    merged[field] = [...carried, ...targetEntries];
  }
  if (!merged.description && source.description) merged.description = source.description;
  merged.properties = { ...asObject(source.properties), ...asObject(target.properties) };
  const names = new Set([target.name, ...asList(target.aliases)].filter(Boolean).map((n) => String(n).trim().toLowerCase()));
  const aliases = [...asList(target.aliases)];
  for (const candidate of [source.name, ...asList(source.aliases)]) {
    if (!candidate) continue;
    const name = String(candidate).trim().toLowerCase();
    if (names.has(name)) continue;
    aliases.push(String(candidate));
    names.add(name);
  }
  merged.aliases = aliases;
  return merged;
}

function asObject(value: unknown): Record<string, unknown> {
  return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function asList(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
