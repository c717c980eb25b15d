import { createHash, randomUUID } from "node:crypto";

/**
 * The row keys of `agno_learnings`, the same keys Agno's learning stores build, so rows either
 * writes are found by the other. Identity-keyed rows (a user's profile,
 * a user's memories, a session's context, an entity) live at a key derived from their identity,
 * so the agent, the API and a migration all land on the same row; a decision gets a fresh key.
 * The entity slugs (`entityIdSlug`, `entityTypeSlug`) are applied by the stores before an id is
 * built: the builders below take the id and type as they are, as Agno's POST route does.
 */

/** The namespace an entity row takes when none is given (Agno's DEFAULT_LEARNING_NAMESPACE). */
export const DEFAULT_LEARNING_NAMESPACE = "global";

/** The learning types keyed by their identity fields (Agno's IDENTITY_KEYED_LEARNING_TYPES). */
export const IDENTITY_KEYED_LEARNING_TYPES: readonly string[] = Object.freeze(["user_profile", "user_memory", "session_context", "entity_memory"]);

/**
 * A namespace shaped like the digest a `user`-namespace entity key carries (`user_<16 hex>`,
 * alone or followed by more segments): an entity row stored under it could occupy some user's
 * key, so Agno's POST refuses it. (Python's `.` in Agno's pattern stops only at a newline.)
 */
export const RESERVED_ENTITY_NAMESPACE = /^user_[0-9a-f]{16}(_[^\n]*)?$/;

/** Whether an entity row may not be stored under `namespace` (RESERVED_ENTITY_NAMESPACE). */
export function isReservedEntityNamespace(namespace: string): boolean {
  return RESERVED_ENTITY_NAMESPACE.test(namespace);
}

/** First 16 hex characters of sha256(user_id): the user component of a v3 entity key. */
export function userKeyDigest(userId: string): string {
  return createHash("sha256").update(String(userId), "utf8").digest("hex").slice(0, 16);
}

/** The v3 row key of an entity learning in the `user` namespace. */
export function userEntityKey(userId: string, entityType: string, entityId: string): string {
  return `entity_user_${userKeyDigest(userId)}_${entityType}_${entityId}`;
}

/** A user's profile row: `user_profile_<user_id>`. */
export function userProfileLearningId(userId: string): string {
  return `user_profile_${userId}`;
}

/** A user's memories row: `memories_<user_id>`. */
export function userMemoryLearningId(userId: string): string {
  return `memories_${userId}`;
}

/** A session's context row: `session_context_<session_id>`. */
export function sessionContextLearningId(sessionId: string): string {
  return `session_context_${sessionId}`;
}

/** An identity-keyed learning built without a field its key needs (POST answers it with a 422). */
export class LearningIdentityError extends Error {
  override readonly name = "LearningIdentityError";
  constructor(
    readonly learningType: string,
    /** The fields the key needs and did not get, by their API names (`user_id`, `entity_type`, …). */
    readonly missing: readonly string[],
    /** The namespace of an entity row (`user` needs the owner as well as the entity). */
    readonly namespace: string | null = null,
  ) {
    super(`A '${learningType}' learning${namespace ? ` in namespace '${namespace}'` : ""} is keyed by its identity: ${missing.join(", ")} ${missing.length === 1 ? "is" : "are"} required`);
  }
}

/**
 * An entity's row: `entity_<namespace>_<type>_<id>`; in namespace `user` the owner is part of the
 * key (`entity_user_<digest>_<type>_<id>`, see userEntityKey), so a user is required there
 * (LearningIdentityError otherwise). An empty namespace is DEFAULT_LEARNING_NAMESPACE.
 */
export function entityLearningId({ namespace, entityType, entityId, userId }: { namespace?: string | null; entityType: string; entityId: string; userId?: string | null }): string {
  const effective = namespace || DEFAULT_LEARNING_NAMESPACE;
  if (effective === "user") {
    if (!userId) throw new LearningIdentityError("entity_memory", ["user_id"], "user");
    return userEntityKey(userId, entityType, entityId);
  }
  return `entity_${effective}_${entityType}_${entityId}`;
}

/** A new decision's row: `dec_` and 8 random hex digits (Agno's decision log). */
export function decisionLearningId(): string {
  return `dec_${randomUUID().replace(/-/g, "").slice(0, 8)}`;
}

/** The identity fields a learning's key may be built from (empty strings count as absent, as in Agno). */
export interface LearningIdentityFields {
  userId?: string | null;
  sessionId?: string | null;
  entityId?: string | null;
  entityType?: string | null;
  namespace?: string | null;
}

/**
 * The key a learning of `learningType` must be stored at: undefined for a type not keyed by its
 * identity (a decision, a custom type: the caller generates one); for an identity-keyed type,
 * its key, or LearningIdentityError naming the fields missing.
 */
export function identityLearningId(learningType: string, fields: LearningIdentityFields): string | undefined {
  const { userId, sessionId, entityId, entityType, namespace } = fields;
  const need = (entries: [string, string | null | undefined][]): void => {
    const missing = entries.filter(([, value]) => !value).map(([name]) => name);
    if (missing.length > 0) throw new LearningIdentityError(learningType, missing, learningType === "entity_memory" ? namespace || DEFAULT_LEARNING_NAMESPACE : null);
  };
  switch (learningType) {
    case "user_profile":
      need([["user_id", userId]]);
      return userProfileLearningId(userId!);
    case "user_memory":
      need([["user_id", userId]]);
      return userMemoryLearningId(userId!);
    case "session_context":
      need([["session_id", sessionId]]);
      return sessionContextLearningId(sessionId!);
    case "entity_memory": {
      const inUserNamespace = (namespace || DEFAULT_LEARNING_NAMESPACE) === "user";
      need([["entity_id", entityId], ["entity_type", entityType], ...(inUserNamespace ? [["user_id", userId] as [string, string | null | undefined]] : [])]);
      return entityLearningId({ namespace, entityType: entityType!, entityId: entityId!, userId });
    }
    default:
      return undefined;
  }
}

// ── entity slugs ──────────────────────────────────────────────────────────────────────────────

/** Symbols that name a thing rather than separate words: C, C++ and C# are three languages. */
const IDENTITY_SYMBOLS: readonly [string, string][] = [
  ["++", "plus_plus"],
  ["+", "plus"],
  ["#", "sharp"],
];

const combiningCache = new Map<string, boolean>();

/**
 * Whether a mark has a non-zero canonical combining class (Python's `unicodedata.combining`):
 * such a mark sorts before U+0345 (class 240, the highest) under canonical reordering, while a
 * class-0 mark is a starter and stays put.
 */
function hasCombiningClass(mark: string): boolean {
  let known = combiningCache.get(mark);
  if (known === undefined) {
    known = mark === "\u0345" || `a\u0345${mark}`.normalize("NFD") === `a${mark}\u0345`;
    combiningCache.set(mark, known);
  }
  return known;
}

/**
 * An entity's id from its display name, as Agno's entity store derives it: lowercased, accents
 * folded (NFKD, combining marks dropped), letters of any script kept, `++`/`+`/`#` spelled out
 * (`plus_plus`, `plus`, `sharp`), every run of other non-word characters one `_`, no `_` at
 * either end; a name with nothing left is its trimmed lowercase self.
 */
export function entityIdSlug(name: string): string {
  let folded = [...name.trim().toLowerCase().normalize("NFKD")].filter((ch) => !(/\p{M}/u.test(ch) && hasCombiningClass(ch))).join("");
  for (const [symbol, word] of IDENTITY_SYMBOLS) folded = folded.split(symbol).join(`_${word}_`);
  const slug = folded.replace(/[^\p{L}\p{N}_]+/gu, "_").replace(/^_+|_+$/g, "");
  return slug || name.trim().toLowerCase();
}

/** entityIdSlug, or null for a name with no identity in it (blank, or only punctuation). */
export function entityIdSlugOrNull(name: string | null | undefined): string | null {
  if (!name?.trim()) return null;
  const slug = entityIdSlug(name!);
  return /[\p{L}\p{N}]/u.test(slug) ? slug : null;
}

/** The entity types Agno folds plurals and case onto. */
const CANONICAL_ENTITY_TYPES = new Set(["person", "project", "company", "system", "product"]);
const IRREGULAR_ENTITY_TYPES: Record<string, string> = { people: "person", persons: "person", companies: "company" };

/**
 * An entity type as Agno's entity store keys it: lowercased, whitespace runs `_`, the plurals of
 * its canonical types (person, project, company, system, product; `people`, `companies`)
 * singular; anything else as it is after that; a blank type unchanged.
 */
export function entityTypeSlug(entityType: string): string {
  if (!entityType.trim()) return entityType;
  const normalized = entityType.trim().toLowerCase().replace(/\s+/g, "_");
  if (CANONICAL_ENTITY_TYPES.has(normalized)) return normalized;
  if (Object.hasOwn(IRREGULAR_ENTITY_TYPES, normalized)) return IRREGULAR_ENTITY_TYPES[normalized]!;
  if (normalized.endsWith("s") && CANONICAL_ENTITY_TYPES.has(normalized.slice(0, -1))) return normalized.slice(0, -1);
  return normalized;
}
