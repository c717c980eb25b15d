import { createHash } from "node:crypto";
import type { Db } from "../../db/open-database.ts";
import { type EntityLearningRow, type EntityRowBucket, QUARANTINE_NAMESPACE, classifyEntityRow, jsonObject, mergeEntityContent, quarantinedEntityKey } from "./learnings-classify.ts";
import { userEntityKey } from "../../db/learnings/learning-ids.ts";

/**
 * What one re-key pass did, in Agno's report shape: `scanned` rows, `keyed` (a count: rows
 * already on a v3 key, usually most of them) and the pre-v3 keys of the rows in each other bucket.
 * Every scanned row is counted once across `keyed` and the lists, except that `quarantined` (or
 * `purged`) repeats rows listed under `contaminated` (and `purged` those under `unowned`).
 */
export interface LearningsRekeyReport {
  readonly scanned: number;
  readonly keyed: number;
  readonly dry_run: boolean;
  /** Moved to their owner's v3 key. */
  readonly rekeyed: string[];
  /** Folded into the row already on their owner's v3 key (that row wins conflicts). */
  readonly merged: string[];
  /** Contaminated rows moved to namespace `quarantined_user`, keeping their owner. */
  readonly quarantined: string[];
  /** Their content records a user other than their owner: two users wrote them. */
  readonly contaminated: string[];
  /** The same disagreement on a row already on a v3 key: left alone. */
  readonly contaminated_keyed: string[];
  /** No owner: left where they are. */
  readonly unowned: string[];
  /** No entity id or type, or content that is not an object: left alone. */
  readonly malformed: string[];
  /** The row on the v3 key holds content that is not an object: left alone. */
  readonly conflicts: string[];
  /** Could not be moved (or changed during the pass): left where they are. */
  readonly failed: string[];
  /** Contaminated and unowned rows deleted (only with `purgeUnrecoverable`). */
  readonly purged: string[];
}

export interface RekeyOptions {
  /** Report what would change without writing (default true, as Agno's helper). */
  readonly dryRun?: boolean;
  /** Delete contaminated and unowned rows instead of leaving (or quarantining) them. */
  readonly purgeUnrecoverable?: boolean;
  /** Told of each row left in place and why (the migration's log). */
  readonly log?: (message: string) => void;
}

type ListBucket = Exclude<keyof LearningsRekeyReport, "scanned" | "keyed" | "dry_run">;

interface StoredRow extends EntityLearningRow {
  [column: string]: unknown;
}

const BATCH = 500;
const COLUMNS = "learning_id, user_id, entity_id, entity_type, content, metadata";

/**
 * Re-keys `agno_learnings` entity rows of namespace `user` written before v3 (key
 * `entity_user_{type}_{id}`, shared by every user who named the entity) onto their owner's key
 * `entity_user_{sha256(user_id)[:16]}_{type}_{id}`, as Agno's `rekey_user_entity_learnings` does:
 * a row whose content records another user than its owner moves to namespace `quarantined_user`
 * (owner kept), a row with no owner stays and is reported, a row whose v3 key is taken is folded
 * into that row. Each row is read again right before it is written and moved in one transaction;
 * a row that changed meanwhile, or whose write fails, is reported `failed` and the pass goes on.
 * Unlike Agno's upsert, a quarantine never overwrites a row already holding its key (see
 * `quarantine`), and moved rows keep their timestamps.
 */
export async function rekeyUserEntityLearnings(db: Db, options: RekeyOptions = {}): Promise<LearningsRekeyReport> {
  const dryRun = options.dryRun ?? true;
  const purge = !!options.purgeUnrecoverable;
  const warn = options.log ?? (() => undefined);
  const lists: Record<ListBucket, string[]> = {
    rekeyed: [],
    merged: [],
    quarantined: [],
    contaminated: [],
    contaminated_keyed: [],
    unowned: [],
    malformed: [],
    conflicts: [],
    failed: [],
    purged: [],
  };
  let scanned = 0;
  let keyed = 0;
  // v3 keys this pass created: the keyset walk would meet them later and count them again.
  const created = new Set<string>();

  const read = async (id: string) => (await db.sql.query<StoredRow>(`SELECT ${COLUMNS} FROM agno_learnings WHERE learning_id = ?`, [id]))[0];
  /** The row as stored now, when it is still in `expected`'s bucket. */
  const fresh = async (id: string, expected: EntityRowBucket) => {
    const row = await read(id);
    const bucket = row ? classifyEntityRow(row).bucket : "vanished";
    if (row && bucket === expected) return row;
    warn(`agno_learnings: ${id} changed during the re-key (${bucket}); left in place`);
    return null;
  };
  const deleted = async (id: string) => (await db.sql.exec("DELETE FROM agno_learnings WHERE learning_id = ?", [id])) > 0 || !(await read(id));

  let after = "";
  for (;;) {
    const rows = await db.sql.query<StoredRow>(
      `SELECT ${COLUMNS} FROM agno_learnings WHERE learning_type = 'entity_memory' AND namespace = 'user' AND learning_id > ? ORDER BY learning_id LIMIT ${BATCH}`,
      [after],
    );
    if (rows.length === 0) break;
    after = rows[rows.length - 1].learning_id;
    for (const row of rows) {
      if (created.has(row.learning_id)) continue;
      scanned++;
      const id = row.learning_id;
      try {
        const { bucket } = classifyEntityRow(row);
        if (bucket === "keyed") {
          keyed++;
          continue;
        }
        if (bucket !== "legacy") {
          lists[bucket].push(id);
          if (purge && (bucket === "contaminated" || bucket === "unowned")) {
            if (dryRun || (await deleted(id))) lists.purged.push(id);
            else {
              warn(`agno_learnings: could not purge ${id}; the row is still there`);
              lists.failed.push(id);
            }
          } else if (bucket === "contaminated") {
            const source = dryRun ? row : await fresh(id, "contaminated");
            if (!source) lists.failed.push(id);
            else if (dryRun || (await quarantine(db, source))) lists.quarantined.push(id);
            else {
              warn(`agno_learnings: could not quarantine ${id}`);
              lists.failed.push(id);
            }
          }
          continue;
        }
        const source = dryRun ? row : await fresh(id, "legacy");
        if (!source) {
          lists.failed.push(id);
          continue;
        }
        const key = userEntityKey(source.user_id as string, source.entity_type as string, source.entity_id as string);
        const target = await read(key);
        if (dryRun) {
          lists[target ? "merged" : "rekeyed"].push(id);
          continue;
        }
        if (!target) {
          // The row itself moves: content, owner, timestamps as they are.
          const moved = await db.sql.exec("UPDATE agno_learnings SET learning_id = ? WHERE learning_id = ?", [key, id]);
          if (moved > 0) created.add(key);
          lists[moved > 0 ? "rekeyed" : "failed"].push(id);
          continue;
        }
        const targetContent = jsonObject(target.content);
        if (!targetContent) {
          warn(`agno_learnings: ${key} holds content that is not an object; ${id} left in place`);
          lists.conflicts.push(id);
          continue;
        }
        const content = mergeEntityContent(jsonObject(source.content) ?? {}, targetContent);
        const metadata = jsonObject(target.metadata) ?? jsonObject(source.metadata);
        await db.sql.batch([
          { text: "UPDATE agno_learnings SET content = ?, metadata = ?, updated_at = ? WHERE learning_id = ?", params: [content, metadata, Math.floor(Date.now() / 1000), key] },
          { text: "DELETE FROM agno_learnings WHERE learning_id = ?", params: [id] },
        ]);
        lists.merged.push(id);
      } catch (error) {
        warn(`agno_learnings: skipping ${id}: ${(error as Error).message}`);
        lists.failed.push(id);
      }
    }
  }
  return { scanned, keyed, dry_run: dryRun, ...lists };
}

/**
 * Moves a contaminated row to namespace `quarantined_user` with its owner, content and metadata.
 * Its key is `entity_quarantined_user_{type}_{id}`, or — when another row holds that one — that
 * key with a digest of the row's old key appended: a row already there is never overwritten.
 * False when both are taken or the row is gone (it stays where it is).
 */
async function quarantine(db: Db, row: StoredRow): Promise<boolean> {
  const base = quarantinedEntityKey(row.entity_type as string, row.entity_id as string);
  const candidates = [base, `${base}_${createHash("sha256").update(row.learning_id, "utf8").digest("hex").slice(0, 16)}`];
  const taken = new Set((await db.sql.query<{ learning_id: string }>("SELECT learning_id FROM agno_learnings WHERE learning_id IN (?, ?)", candidates)).map((r) => r.learning_id));
  const key = candidates.find((candidate) => !taken.has(candidate));
  if (!key) return false;
  return (await db.sql.exec("UPDATE agno_learnings SET learning_id = ?, namespace = ? WHERE learning_id = ?", [key, QUARANTINE_NAMESPACE, row.learning_id])) > 0;
}
