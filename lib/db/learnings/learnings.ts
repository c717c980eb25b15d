import { ConflictError } from "../../errors/domain-errors.ts";
import { parseSessionJson } from "../json.ts";
import type { Db } from "../open-database.ts";
import { pageWindow } from "../pagination.ts";
import { ownerForWrite, ownerSql, type DataScope } from "../scope.ts";

/**
 * Agno's `agno_learnings`: what the learning machine keeps about a user, a session or an entity,
 * one row per key (learning-ids.ts builds the keys). A row's owner is its `user_id`: a user's own
 * rows (profile, memories, user-namespace entities) carry it; shared rows (global entities,
 * decisions, an agent's learnings) have none. A user scope reads its own rows and the shared ones
 * and writes only its own; shared rows are written by admin (or system) scopes.
 * `created_at`/`updated_at` are epoch seconds; `content` and `metadata` JSON objects.
 */

export type LearningRow = {
  learning_id: string;
  learning_type: string;
  namespace: string | null;
  user_id: string | null;
  agent_id: string | null;
  team_id: string | null;
  workflow_id: string | null;
  session_id: string | null;
  entity_id: string | null;
  entity_type: string | null;
  content: Record<string, unknown>;
  metadata: Record<string, unknown> | null;
  created_at: number;
  updated_at: number | null;
};

export type LearningInput = {
  learningId: string;
  learningType: string;
  namespace?: string | null;
  /** The owner an admin or system scope writes (a user scope always writes itself). */
  userId?: string | null;
  agentId?: string | null;
  teamId?: string | null;
  workflowId?: string | null;
  sessionId?: string | null;
  entityId?: string | null;
  entityType?: string | null;
  content: Record<string, unknown>;
  metadata?: Record<string, unknown> | null;
};

/** insertLearning's refusal: a row with this id exists already (whoever owns it). */
export class LearningExistsError extends ConflictError {
  constructor(readonly learningId: string) {
    super(`Learning ${learningId} already exists`);
  }
}

/** upsertLearning's refusal: the id is held by a row the user scope may not write (another user's, or a shared one). */
export class LearningOwnedElsewhereError extends ConflictError {
  constructor(readonly learningId: string) {
    super(`Learning ${learningId} belongs to another owner`);
  }
}

const COLUMNS = "learning_id, learning_type, namespace, user_id, agent_id, team_id, workflow_id, session_id, entity_id, entity_type, content, metadata, created_at, updated_at";

/** The columns a list may sort by (an unknown one sorts by updated_at); JSON columns are not among them. */
export const LEARNING_SORT_COLUMNS = [
  "learning_id",
  "learning_type",
  "namespace",
  "user_id",
  "agent_id",
  "team_id",
  "workflow_id",
  "session_id",
  "entity_id",
  "entity_type",
  "created_at",
  "updated_at",
] as const;

/** A row's last change: `updated_at`, or `created_at` for a row never updated (pre-2.0 rows have none). */
const LAST_CHANGE = "COALESCE(updated_at, created_at)";

const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
const objectOrNull = (v: unknown): Record<string, unknown> | null => {
  const parsed = parseSessionJson(v);
  return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
};

/**
 * A stored row as a LearningRow. JSON is decoded whichever way it was stored (text on SQLite,
 * double-encoded by some writers); content that is not an object reads `{}` (Agno's API treats a
 * missing content the same way), metadata that is not an object null.
 */
export function toLearningRow(row: Record<string, unknown>): LearningRow {
  return {
    learning_id: String(row.learning_id),
    learning_type: str(row.learning_type) ?? "",
    namespace: str(row.namespace),
    user_id: str(row.user_id),
    agent_id: str(row.agent_id),
    team_id: str(row.team_id),
    workflow_id: str(row.workflow_id),
    session_id: str(row.session_id),
    entity_id: str(row.entity_id),
    entity_type: str(row.entity_type),
    content: objectOrNull(row.content) ?? {},
    metadata: objectOrNull(row.metadata),
    created_at: Number(row.created_at ?? 0),
    updated_at: row.updated_at === null || row.updated_at === undefined ? null : Number(row.updated_at),
  };
}

const epochSeconds = () => Math.floor(Date.now() / 1000);

function insertValues(owner: string | null, learning: LearningInput, now: number): unknown[] {
  return [
    learning.learningId,
    learning.learningType,
    learning.namespace ?? null,
    owner,
    learning.agentId ?? null,
    learning.teamId ?? null,
    learning.workflowId ?? null,
    learning.sessionId ?? null,
    learning.entityId ?? null,
    learning.entityType ?? null,
    learning.content,
    learning.metadata ?? null,
    now,
    now,
  ];
}

const INSERT = `INSERT INTO agno_learnings (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/**
 * Writes a learning at its id, as Agno's `upsert_learning`: a new id is inserted whole; an existing
 * one gets only its `content`, `metadata` and `updated_at` replaced — its owner, namespace, ids
 * and `created_at` never change. The owner written is `ownerForWrite(scope, learning.userId)`.
 * A user scope changes only a row it owns: one held by another user, or a shared one, is left as
 * it is and LearningOwnedElsewhereError (a ConflictError) thrown. `now`: epoch seconds.
 */
export async function upsertLearning(db: Db, { scope, learning, now = epochSeconds() }: { scope: DataScope; learning: LearningInput; now?: number }): Promise<LearningRow> {
  const owner = ownerForWrite(scope, learning.userId);
  // The owner check and the write are one statement, so no other writer can slip in between.
  // A shared write (an admin scope acting for no one: the runtime's shared rows) changes only a
  // shared row: one a user created at that id stays theirs, untouched.
  const guard = scope.kind === "user" || (scope.kind === "admin" && scope.userId === null && owner === null) ? "WHERE agno_learnings.user_id IS NOT DISTINCT FROM excluded.user_id" : "";
  const rows = await db.sql.query(
    `${INSERT}
     ON CONFLICT (learning_id) DO UPDATE SET content = excluded.content, metadata = excluded.metadata, updated_at = excluded.updated_at
     ${guard}
     RETURNING ${COLUMNS}`,
    insertValues(owner, learning, now),
  );
  if (rows.length === 0) throw new LearningOwnedElsewhereError(learning.learningId);
  return toLearningRow(rows[0]!);
}

/**
 * Inserts a new learning; an id that exists already (whoever owns it) is LearningExistsError and
 * nothing is written. The owner written is `ownerForWrite(scope, learning.userId)`.
 */
export async function insertLearning(db: Db, { scope, learning, now = epochSeconds() }: { scope: DataScope; learning: LearningInput; now?: number }): Promise<LearningRow> {
  const rows = await db.sql.query(`${INSERT} ON CONFLICT (learning_id) DO NOTHING RETURNING ${COLUMNS}`, insertValues(ownerForWrite(scope, learning.userId), learning, now));
  if (rows.length === 0) throw new LearningExistsError(learning.learningId);
  return toLearningRow(rows[0]!);
}

/**
 * A compare-and-set write of a learning the caller read: `expected` is the content it read (null:
 * there was no row). The row is written only if it still holds exactly that content (or, for
 * null, is still absent) — content, metadata and updated_at replaced, as the upsert does — and
 * undefined is answered when another writer got there first: read again and retry. Two runs of
 * one user adding a memory at once each keep theirs this way (a plain upsert of a read-modify-
 * write loses one). The scope's owner rules are upsertLearning's.
 */
export async function replaceLearning(
  db: Db,
  { scope, learning, expected, now = epochSeconds() }: { scope: DataScope; learning: LearningInput; expected: Record<string, unknown> | null; now?: number },
): Promise<LearningRow | undefined> {
  if (expected === null) {
    const rows = await db.sql.query(`${INSERT} ON CONFLICT (learning_id) DO NOTHING RETURNING ${COLUMNS}`, insertValues(ownerForWrite(scope, learning.userId), learning, now));
    return rows[0] ? toLearningRow(rows[0]) : undefined;
  }
  const owner = ownerSql(scope);
  const same = db.dialect === "postgres" ? "content::jsonb = ?::jsonb" : "json(content) = json(?)";
  const rows = await db.sql.query(`UPDATE agno_learnings SET content = ?, metadata = ?, updated_at = ? WHERE learning_id = ? AND ${owner.clause} AND ${same} RETURNING ${COLUMNS}`, [
    learning.content,
    learning.metadata ?? null,
    now,
    learning.learningId,
    ...owner.params,
    JSON.stringify(expected),
  ]);
  return rows[0] ? toLearningRow(rows[0]) : undefined;
}

/** One learning the scope may read (a user scope: its own and the shared ones); undefined otherwise. */
export async function getLearning(db: Db, { scope, learningId }: { scope: DataScope; learningId: string }): Promise<LearningRow | undefined> {
  const owner = ownerSql(scope, "user_id", { includeShared: true });
  const rows = await db.sql.query(`SELECT ${COLUMNS} FROM agno_learnings WHERE learning_id = ? AND ${owner.clause}`, [learningId, ...owner.params]);
  return rows[0] ? toLearningRow(rows[0]) : undefined;
}

/** Filters on a learning's columns; each one given is an equality (`userId`: rows owned by that user). */
export interface LearningFilters {
  learningType?: string;
  userId?: string;
  agentId?: string;
  teamId?: string;
  workflowId?: string;
  sessionId?: string;
  namespace?: string;
  entityId?: string;
  entityType?: string;
  /** true: only rows with an owner; false: only shared (owner-less) rows. */
  owned?: boolean;
}

const FILTER_COLUMNS: [keyof LearningFilters, string][] = [
  ["learningType", "learning_type"],
  ["userId", "user_id"],
  ["agentId", "agent_id"],
  ["teamId", "team_id"],
  ["workflowId", "workflow_id"],
  ["sessionId", "session_id"],
  ["namespace", "namespace"],
  ["entityId", "entity_id"],
  ["entityType", "entity_type"],
];

/** The WHERE of a read: the scope's rows (own and shared for a user scope) and each filter given. */
function readWhere(scope: DataScope, filters: LearningFilters): { where: string; params: unknown[] } {
  const owner = ownerSql(scope, "user_id", { includeShared: true });
  const clauses = [owner.clause];
  if (filters.owned !== undefined) clauses.push(filters.owned ? "user_id IS NOT NULL" : "user_id IS NULL");
  const params = [...owner.params];
  for (const [key, column] of FILTER_COLUMNS) {
    const value = filters[key];
    if (value !== undefined) clauses.push(`${column} = ?`), params.push(value);
  }
  return { where: clauses.join(" AND "), params };
}

export interface ListLearningsOptions extends LearningFilters {
  scope: DataScope;
  /** Page size; absent: every row. */
  limit?: number;
  /** 1-indexed; needs `limit`. */
  page?: number;
  /** A column of LEARNING_SORT_COLUMNS; anything else sorts by updated_at (Agno: unknown fields are ignored). */
  sortBy?: string;
  sortOrder?: "asc" | "desc";
}

/** The ORDER BY of a list: the column (updated_at falls back to created_at), nulls last, then the id. */
function learningOrder(sortBy: string | undefined, sortOrder: "asc" | "desc" | undefined): string {
  const column = (LEARNING_SORT_COLUMNS as readonly string[]).includes(sortBy ?? "") ? sortBy! : "updated_at";
  const expression = column === "updated_at" ? LAST_CHANGE : column;
  const direction = sortOrder === "asc" ? "ASC" : "DESC";
  return `(${expression}) IS NULL, ${expression} ${direction}, learning_id ${direction}`;
}

/**
 * A page of the learnings the scope may read (a user scope: its own and the shared ones), filtered
 * and sorted, with the total across pages.
 */
export async function listLearnings(db: Db, options: ListLearningsOptions): Promise<{ rows: LearningRow[]; total: number }> {
  const { take, skip } = pageWindow(options);
  const { where, params } = readWhere(options.scope, options);
  const [rows, counts] = await Promise.all([
    db.sql.query(
      `SELECT ${COLUMNS} FROM agno_learnings WHERE ${where} ORDER BY ${learningOrder(options.sortBy, options.sortOrder)}
       ${take !== undefined ? `LIMIT ${take} OFFSET ${skip}` : ""}`,
      params,
    ),
    db.sql.query<{ n: number }>(`SELECT COUNT(*) AS n FROM agno_learnings WHERE ${where}`, params),
  ]);
  return { rows: rows.map(toLearningRow), total: Number(counts[0]?.n ?? 0) };
}

/**
 * The LIKE patterns of a text search, as Agno builds them (`learning_search_patterns`): `%` and
 * `\` escaped; each run of spaces, `_` and `-` one single-character wildcard, so "sarah chen"
 * meets "sarah_chen"; and the query's JSON-escaped form too (quotes, and the `\uXXXX` escapes of
 * rows written with ensure_ascii, each a six-character wildcard), since the match is over the
 * stored JSON text. Empty when the query holds nothing but wildcards and whitespace.
 */
export function learningSearchPatterns(query: string): string[] {
  const stripped = query.trim();
  if (!stripped.replace(/[%_\s]+/g, "")) return [];
  // A sentinel for the escapes' wildcards, kept apart until the separator runs are collapsed.
  const WILD = "\u0000";
  const jsonForm = JSON.stringify(stripped)
    .slice(1, -1)
    .replace(/\\u[0-9a-fA-F]{4}/g, WILD.repeat(6))
    .split("")
    .map((unit) => (unit.charCodeAt(0) > 0x7f ? WILD.repeat(6) : unit))
    .join("");
  const variants = jsonForm === stripped ? [stripped] : [stripped, jsonForm];
  const patterns: string[] = [];
  for (const variant of variants) {
    const escaped = variant.replace(/\\/g, "\\\\").replace(/%/g, "\\%");
    const pattern = `%${escaped.replace(/[\s_-]+/g, "_").replaceAll(WILD, "_")}%`;
    if (!patterns.includes(pattern)) patterns.push(pattern);
  }
  return patterns;
}

/**
 * Learnings of one type whose content matches `query` case-insensitively (learningSearchPatterns:
 * a LIKE over the stored JSON text, keys included — a caller wanting value-only precision checks
 * the rows it gets), most recently changed first. No `query` (or a blank one) lists by the filters
 * alone; a query of only wildcards and whitespace finds nothing. The scope's rows only.
 */
export async function searchLearnings(
  db: Db,
  options: { scope: DataScope; learningType: string; namespace?: string; userId?: string; agentId?: string; teamId?: string; entityType?: string; query?: string; limit: number },
): Promise<LearningRow[]> {
  const { where, params } = readWhere(options.scope, options);
  const clauses = [where];
  const query = options.query?.trim() ? options.query : undefined;
  if (query !== undefined) {
    const patterns = learningSearchPatterns(query);
    if (patterns.length === 0) return [];
    clauses.push(`(${patterns.map(() => "LOWER(CAST(content AS TEXT)) LIKE LOWER(?) ESCAPE '\\'").join(" OR ")})`);
    params.push(...patterns);
  }
  const { take } = pageWindow({ limit: options.limit });
  const rows = await db.sql.query(`SELECT ${COLUMNS} FROM agno_learnings WHERE ${clauses.join(" AND ")} ORDER BY ${LAST_CHANGE} DESC, learning_id DESC LIMIT ${take}`, params);
  return rows.map(toLearningRow);
}

/**
 * Replaces a learning's `content` and/or `metadata` (each given one whole) and stamps `updated_at`,
 * in one UPDATE: never an insert, so a row deleted meanwhile stays deleted. Only a row the scope
 * may write (a user scope: its own; shared rows are an admin's). Undefined when there is none;
 * with neither field given, the row as it is.
 */
export async function updateLearning(
  db: Db,
  {
    scope,
    learningId,
    content,
    metadata,
    ifVersion,
    now = epochSeconds(),
  }: {
    scope: DataScope;
    learningId: string;
    content?: Record<string, unknown>;
    metadata?: Record<string, unknown> | null;
    /** Only while the row's last change (updated_at, else created_at) is still this: a compare-and-set. */
    ifVersion?: number;
    now?: number;
  },
): Promise<LearningRow | undefined> {
  const owner = ownerSql(scope);
  if (ifVersion !== undefined) {
    owner.clause = `${owner.clause} AND ${LAST_CHANGE} = ?`;
    owner.params = [...owner.params, ifVersion];
  }
  const sets: string[] = [];
  const params: unknown[] = [];
  if (content !== undefined) sets.push("content = ?"), params.push(content);
  if (metadata !== undefined) sets.push("metadata = ?"), params.push(metadata);
  if (sets.length === 0) {
    const rows = await db.sql.query(`SELECT ${COLUMNS} FROM agno_learnings WHERE learning_id = ? AND ${owner.clause}`, [learningId, ...owner.params]);
    return rows[0] ? toLearningRow(rows[0]) : undefined;
  }
  const rows = await db.sql.query(`UPDATE agno_learnings SET ${sets.join(", ")}, updated_at = ? WHERE learning_id = ? AND ${owner.clause} RETURNING ${COLUMNS}`, [
    ...params,
    now,
    learningId,
    ...owner.params,
  ]);
  return rows[0] ? toLearningRow(rows[0]) : undefined;
}

/** Deletes a learning the scope may write (a user scope: its own); whether one went. */
export async function deleteLearning(db: Db, { scope, learningId }: { scope: DataScope; learningId: string }): Promise<boolean> {
  const owner = ownerSql(scope);
  return (await db.sql.exec(`DELETE FROM agno_learnings WHERE learning_id = ? AND ${owner.clause}`, [learningId, ...owner.params])) > 0;
}

/**
 * Deletes the learnings `userId` owns (of one type, if given) within the scope — a user scope
 * reaches only its own, so naming another user deletes nothing; shared rows are never touched.
 * How many went.
 */
export async function deleteUserLearnings(db: Db, { scope, userId, learningType }: { scope: DataScope; userId: string; learningType?: string }): Promise<number> {
  const owner = ownerSql(scope);
  const typeClause = learningType !== undefined ? " AND learning_type = ?" : "";
  return db.sql.exec(`DELETE FROM agno_learnings WHERE user_id = ?${typeClause} AND ${owner.clause}`, [userId, ...(learningType !== undefined ? [learningType] : []), ...owner.params]);
}

export interface LearningUser {
  user_id: string;
  /** Epoch seconds of the user's most recent change: max(coalesce(updated_at, created_at)). */
  last_learning_updated_at: number | null;
}

/**
 * The users owning learnings (owner-less rows are nobody's) within the scope — a user scope sees
 * itself at most — with their last change, a page at a time, and how many there are. `sortBy`
 * `user_id` or `last_learning_updated_at` (anything else: the latter).
 */
export async function listLearningUsers(
  db: Db,
  options: { scope: DataScope; learningType?: string; userId?: string; limit?: number; page?: number; sortBy?: string; sortOrder?: "asc" | "desc" },
): Promise<{ rows: LearningUser[]; total: number }> {
  const { take, skip } = pageWindow(options);
  const owner = ownerSql(options.scope);
  const clauses = ["user_id IS NOT NULL", owner.clause];
  const params = [...owner.params];
  if (options.learningType !== undefined) clauses.push("learning_type = ?"), params.push(options.learningType);
  if (options.userId !== undefined) clauses.push("user_id = ?"), params.push(options.userId);
  const where = clauses.join(" AND ");
  const direction = options.sortOrder === "asc" ? "ASC" : "DESC";
  const sortColumn = options.sortBy === "user_id" ? "user_id" : "last_learning_updated_at";
  const [rows, counts] = await Promise.all([
    db.sql.query(
      `SELECT user_id, MAX(${LAST_CHANGE}) AS last_learning_updated_at FROM agno_learnings WHERE ${where} GROUP BY user_id
        ORDER BY ${sortColumn} ${direction}, user_id ${direction} ${take !== undefined ? `LIMIT ${take} OFFSET ${skip}` : ""}`,
      params,
    ),
    db.sql.query<{ n: number }>(`SELECT COUNT(DISTINCT user_id) AS n FROM agno_learnings WHERE ${where}`, params),
  ]);
  return {
    rows: rows.map((row) => ({ user_id: String(row.user_id), last_learning_updated_at: row.last_learning_updated_at === null ? null : Number(row.last_learning_updated_at) })),
    total: Number(counts[0]?.n ?? 0),
  };
}
