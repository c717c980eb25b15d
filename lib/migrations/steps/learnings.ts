import { createHash } from "node:crypto";
import { parseJson } from "../../db/json.ts";
import type { Statement } from "../../db/sql.ts";
import type { MigrationStep } from "../types.ts";

export const QUARANTINE_NAMESPACE = "quarantined_user";

/** First 16 hex characters of sha256(user_id): the user component of a v3 entity key. */
export function userKeyDigest(userId: string): string {
  return createHash("sha256").update(userId, "utf8").digest("hex").slice(0, 16);
}

/** The v3 row key of an entity learning in the `user` namespace. */
export function userEntityKey(userId: string, entityType: string, entityId: string): string {
  return `entity_user_${userKeyDigest(userId)}_${entityType}_${entityId}`;
}

/** The row key a quarantined pre-v3 user entity row moves to (namespace QUARANTINE_NAMESPACE). */
export function quarantinedEntityKey(entityType: string, entityId: string): string {
  return `entity_${QUARANTINE_NAMESPACE}_${entityType}_${entityId}`;
}

/**
 * The keys a quarantined row may move to, in order of preference: QUARANTINE_NAMESPACE's key for
 * the entity, then — for when another row holds it (two pre-v3 rows of one entity) — that key with
 * a digest of the row's own old key appended. Deterministic, so a rerun picks the same key.
 */
function quarantineKeyCandidates(learningId: string, entityType: string, entityId: string): string[] {
  const base = quarantinedEntityKey(entityType, entityId);
  return [base, `${base}_${createHash("sha256").update(learningId, "utf8").digest("hex").slice(0, 16)}`];
}

/**
 * Every user id the row shows evidence of having been written by: its user_id column, any
 * `metadata.user_ids` / `metadata.written_by`, and `user_id` fields inside its content (entity
 * memories record facts per writer). The pre-v3 key had no user in it, so one row could hold
 * several users' facts.
 */
export function writersOf(row: { user_id: unknown; content: unknown; metadata: unknown }): string[] {
  const writers = new Set<string>();
  const add = (value: unknown) => {
    if (typeof value === "string" && value !== "") writers.add(value);
  };
  add(row.user_id);
  const metadata = parseJson(row.metadata) as Record<string, unknown> | null;
  if (metadata && typeof metadata === "object") {
    for (const key of ["user_ids", "written_by"]) {
      const value = metadata[key];
      if (Array.isArray(value)) value.forEach(add);
      else add(value);
    }
  }
  const visit = (value: unknown, depth: number) => {
    if (depth > 5 || value === null || typeof value !== "object") return;
    if (Array.isArray(value)) {
      for (const item of value) visit(item, depth + 1);
      return;
    }
    for (const [key, child] of Object.entries(value)) {
      if (key === "user_id") add(child);
      else visit(child, depth + 1);
    }
  };
  visit(parseJson(row.content), 0);
  return [...writers].sort();
}

interface LearningRow {
  learning_id: string;
  user_id: string | null;
  entity_id: string | null;
  entity_type: string | null;
  content: unknown;
  metadata: unknown;
}

const BATCH = 500;

export const learningsSteps: MigrationStep[] = [
  {
    version: "3.0.0",
    description: "entity learnings in the user namespace are keyed per user; rows two users wrote move to entity_quarantined_user_{entity_type}_{entity_id} in namespace quarantined_user",
    async up({ db, log }) {
      const existingKeys = async (keys: string[]) => {
        const rows = await db.sql.query<{ learning_id: string }>(`SELECT learning_id FROM agno_learnings WHERE learning_id IN (${keys.map(() => "?").join(", ")})`, keys);
        return rows.map((r) => r.learning_id);
      };
      // Keys this run moves rows to: a batch's updates run only after the whole batch is planned.
      const planned = new Set<string>();
      let after = "";
      let rekeyed = 0;
      let quarantined = 0;
      for (;;) {
        const rows = await db.sql.query<LearningRow & Record<string, unknown>>(
          `SELECT learning_id, user_id, entity_id, entity_type, content, metadata FROM agno_learnings
            WHERE namespace = 'user' AND learning_id LIKE 'entity\\_user\\_%' ESCAPE '\\' AND learning_id > ?
            ORDER BY learning_id LIMIT ${BATCH}`,
          [after],
        );
        if (rows.length === 0) break;
        const statements: Statement[] = [];
        for (const row of rows) {
          const writers = writersOf(row);
          const entityType = row.entity_type ?? "";
          const entityId = row.entity_id ?? "";
          if (writers.length === 1 && row.learning_id === userEntityKey(writers[0], entityType, entityId)) continue;
          if (writers.length === 1) {
            statements.push({
              text: `UPDATE agno_learnings SET learning_id = ?, user_id = ? WHERE learning_id = ?`,
              params: [userEntityKey(writers[0], entityType, entityId), writers[0], row.learning_id],
            });
            rekeyed++;
          } else {
            const metadata = (parseJson(row.metadata) as Record<string, unknown> | null) ?? {};
            const candidates = quarantineKeyCandidates(row.learning_id, entityType, entityId);
            const taken = new Set([...planned, ...(await existingKeys(candidates))]);
            // A key another row holds is never overwritten; should both be taken (practically
            // never), the row keeps its key and only leaves the namespace.
            const key = candidates.find((candidate) => !taken.has(candidate)) ?? row.learning_id;
            planned.add(key);
            statements.push({
              text: `UPDATE agno_learnings SET learning_id = ?, namespace = ?, user_id = NULL, metadata = ? WHERE learning_id = ?`,
              params: [
                key,
                QUARANTINE_NAMESPACE,
                {
                  ...metadata,
                  quarantined_from: row.learning_id,
                  quarantined_writers: writers,
                  quarantine_reason: writers.length === 0 ? "pre-v3 user entity row with no known owner" : "pre-v3 user entity row written by several users",
                },
                row.learning_id,
              ],
            });
            quarantined++;
          }
        }
        if (statements.length > 0) await db.sql.batch(statements);
        after = rows[rows.length - 1].learning_id;
      }
      log(`agno_learnings: re-keyed ${rekeyed} user entity rows, quarantined ${quarantined}`);
    },
    irreversibleBecause: "the pre-v3 key collides users by design, so the re-key cannot be reversed",
  },
];
