import { ConflictError } from "../../errors/domain-errors.ts";
import { isUniqueViolation } from "../jobs/unique-violation.ts";
import type { Db } from "../open-database.ts";
import type { Row, Statement } from "../sql.ts";
import {
  COMPONENT_COLUMNS,
  CONFIG_COLUMNS,
  CONFIG_COLUMNS_WITHOUT_BLOB,
  DELETED_STAGE,
  LINK_COLUMNS,
  PIN_LINK_KINDS,
  toComponentRow,
  toConfigRow,
  toLinkRow,
  type ComponentConfigRow,
  type ComponentLinkInput,
  type ComponentLinkRow,
  type ComponentRow,
  type StoredComponentType,
} from "./component-rows.ts";

/**
 * Statements over Agno v3's component tables. Who may see or change what is decided by
 * lib/components/store.ts; here a read takes the scoped caller's user id (`viewer`: its own rows,
 * owner-less rows and live published rows; null: every row) and a write the owner it must still
 * find on the row (`owner`, null: anyone's).
 *
 * Every write is one transaction that first takes the component's row (a row lock on PostgreSQL;
 * SQLite's transaction holds the database) and then re-checks, on what is committed by then, every
 * condition the write depends on; a condition that no longer holds fails the whole transaction as
 * ComponentWriteConflict, and nothing is written. So a compare-and-set (an expected latest or
 * current version), an archive racing a publish that pins the component, or two appends racing for
 * one version number each end with exactly one winner.
 */

/** A write lost a race: something it checked changed before it could commit (nothing was written). */
export class ComponentWriteConflict extends ConflictError {}

const epochSeconds = () => Math.floor(Date.now() / 1000);
const marks = (n: number) => Array.from({ length: n }, () => "?").join(", ");
const PIN_KINDS_SQL = PIN_LINK_KINDS.map((k) => `'${k}'`).join(", ");

// ── reads ────────────────────────────────────────────────────────────────────────────────────

/** The visibility rule of a scoped caller: its own rows, owner-less (shared) rows, and live published rows. */
function visibleTo(viewer: string | null): { clause: string; params: unknown[] } {
  if (viewer === null) return { clause: "1=1", params: [] };
  return { clause: "(user_id = ? OR user_id IS NULL OR (current_version IS NOT NULL AND deleted_at IS NULL))", params: [viewer] };
}

/** One component, if `viewer` may see it (null: anyone's); archived rows only with `includeDeleted`. */
export async function getComponentRow(
  db: Db,
  componentId: string,
  { viewer = null, includeDeleted = false }: { viewer?: string | null; includeDeleted?: boolean } = {},
): Promise<ComponentRow | undefined> {
  const visible = visibleTo(viewer);
  const [row] = await db.sql.query(`SELECT ${COMPONENT_COLUMNS} FROM agno_components WHERE component_id = ? AND ${visible.clause}${includeDeleted ? "" : " AND deleted_at IS NULL"}`, [
    componentId,
    ...visible.params,
  ]);
  return row ? toComponentRow(row) : undefined;
}

/** The rows of these ids, whoever owns them (archived ones included). */
export async function componentRowsByIds(db: Db, componentIds: readonly string[]): Promise<ComponentRow[]> {
  if (componentIds.length === 0) return [];
  const rows = await db.sql.query(`SELECT ${COMPONENT_COLUMNS} FROM agno_components WHERE component_id IN (${marks(componentIds.length)})`, [...componentIds]);
  return rows.map(toComponentRow);
}

export interface ComponentListQuery {
  componentType?: StoredComponentType;
  viewer: string | null;
  includeDeleted: boolean;
  /** Ids left out of the page and the count (components defined in code). */
  excludeIds?: readonly string[];
  limit: number;
  offset: number;
}

/** A page of components, newest first (ties by id), and how many match. */
export async function listComponentRows(db: Db, query: ComponentListQuery): Promise<{ rows: ComponentRow[]; total: number }> {
  const visible = visibleTo(query.viewer);
  const where = [visible.clause];
  const params: unknown[] = [...visible.params];
  if (query.componentType) {
    where.push("component_type = ?");
    params.push(query.componentType);
  }
  if (!query.includeDeleted) where.push("deleted_at IS NULL");
  if (query.excludeIds && query.excludeIds.length > 0) {
    where.push(`component_id NOT IN (${marks(query.excludeIds.length)})`);
    params.push(...query.excludeIds);
  }
  const clause = where.join(" AND ");
  const [counted] = await db.sql.query<{ n: number }>(`SELECT COUNT(*) AS n FROM agno_components WHERE ${clause}`, params);
  const rows = await db.sql.query(`SELECT ${COMPONENT_COLUMNS} FROM agno_components WHERE ${clause} ORDER BY created_at DESC, component_id LIMIT ? OFFSET ?`, [...params, query.limit, query.offset]);
  return { rows: rows.map(toComponentRow), total: Number(counted?.n ?? 0) };
}

/** How many live (not archived) components `userId` owns. */
export async function countLiveOwned(db: Db, userId: string): Promise<number> {
  const [row] = await db.sql.query<{ n: number }>("SELECT COUNT(*) AS n FROM agno_components WHERE user_id = ? AND deleted_at IS NULL", [userId]);
  return Number(row?.n ?? 0);
}

/** One config version; tombstones only with `includeDeleted`. */
export async function getConfigRow(db: Db, componentId: string, version: number, { includeDeleted = false } = {}): Promise<ComponentConfigRow | undefined> {
  const [row] = await db.sql.query(`SELECT ${CONFIG_COLUMNS} FROM agno_component_configs WHERE component_id = ? AND version = ?${includeDeleted ? "" : ` AND stage <> '${DELETED_STAGE}'`}`, [
    componentId,
    version,
  ]);
  return row ? toConfigRow(row) : undefined;
}

/** The newest version that is not a tombstone, draft or published. */
export async function latestConfigRow(db: Db, componentId: string): Promise<ComponentConfigRow | undefined> {
  const [row] = await db.sql.query(`SELECT ${CONFIG_COLUMNS} FROM agno_component_configs WHERE component_id = ? AND stage <> '${DELETED_STAGE}' ORDER BY version DESC LIMIT 1`, [componentId]);
  return row ? toConfigRow(row) : undefined;
}

/** A component's versions, newest first (without their blobs unless `includeConfig`). */
export async function listConfigRows(db: Db, componentId: string, { includeConfig = true, includeDeleted = false } = {}): Promise<ComponentConfigRow[]> {
  const rows = await db.sql.query(
    `SELECT ${includeConfig ? CONFIG_COLUMNS : CONFIG_COLUMNS_WITHOUT_BLOB} FROM agno_component_configs WHERE component_id = ?${includeDeleted ? "" : ` AND stage <> '${DELETED_STAGE}'`} ORDER BY version DESC`,
    [componentId],
  );
  return rows.map(toConfigRow);
}

export interface VersionState {
  /** The highest version ever given out, tombstones included (0: none). */
  maxVersion: number;
  /** The newest version that is not a tombstone (null: none). */
  latestVisible: number | null;
  /** Versions that are not tombstones. */
  visible: number;
}

export async function versionState(db: Db, componentId: string): Promise<VersionState> {
  const [row] = await db.sql.query(
    `SELECT COALESCE(MAX(version), 0) AS max_version,
            MAX(CASE WHEN stage <> '${DELETED_STAGE}' THEN version END) AS latest_visible,
            COALESCE(SUM(CASE WHEN stage <> '${DELETED_STAGE}' THEN 1 ELSE 0 END), 0) AS visible
       FROM agno_component_configs WHERE component_id = ?`,
    [componentId],
  );
  return {
    maxVersion: Number(row?.max_version ?? 0),
    latestVisible: row?.latest_visible === null || row?.latest_visible === undefined ? null : Number(row.latest_visible),
    visible: Number(row?.visible ?? 0),
  };
}

/** The visible version (other than `exceptVersion`) holding `label`, if any. */
export async function versionWithLabel(db: Db, componentId: string, label: string, exceptVersion?: number): Promise<number | undefined> {
  const [row] = await db.sql.query(
    `SELECT version FROM agno_component_configs WHERE component_id = ? AND label = ? AND stage <> '${DELETED_STAGE}'${exceptVersion === undefined ? "" : " AND version <> ?"} LIMIT 1`,
    exceptVersion === undefined ? [componentId, label] : [componentId, label, exceptVersion],
  );
  return row ? Number(row.version) : undefined;
}

/** The links a version writes, by position. */
export async function linksOf(db: Db, componentId: string, version: number): Promise<ComponentLinkRow[]> {
  const rows = await db.sql.query(`SELECT ${LINK_COLUMNS} FROM agno_component_links WHERE parent_component_id = ? AND parent_version = ? ORDER BY position, link_kind, link_key`, [
    componentId,
    version,
  ]);
  return rows.map(toLinkRow);
}

/** Parent → child edges out of these components, any version (the cycle check walks them). */
export async function childEdges(db: Db, parentIds: readonly string[]): Promise<{ parent: string; child: string }[]> {
  if (parentIds.length === 0) return [];
  const rows = await db.sql.query(`SELECT DISTINCT parent_component_id, child_component_id FROM agno_component_links WHERE parent_component_id IN (${marks(parentIds.length)})`, [...parentIds]);
  return rows.map((r) => ({ parent: String(r.parent_component_id), child: String(r.child_component_id) }));
}

/**
 * The SQL of "an active parent pins this component" (a link whose parent is not archived and whose
 * parent version is not a tombstone), optionally at one version and among parents `parentOwner`
 * owns or nobody owns.
 */
function activeDependentsSql(componentId: string, { version, parentOwner }: { version?: number; parentOwner?: string | null }): { sql: string; params: unknown[] } {
  const params: unknown[] = [componentId];
  let sql = `SELECT l.parent_component_id, l.parent_version, l.link_kind, l.link_key, l.child_component_id, l.child_version, l.position, l.meta, l.created_at, l.updated_at
      FROM agno_component_links l
      JOIN agno_components p ON p.component_id = l.parent_component_id
      JOIN agno_component_configs pc ON pc.component_id = l.parent_component_id AND pc.version = l.parent_version
     WHERE l.child_component_id = ? AND p.deleted_at IS NULL AND pc.stage <> '${DELETED_STAGE}'`;
  if (version !== undefined) {
    sql += " AND l.child_version = ?";
    params.push(version);
  }
  if (parentOwner) {
    sql += " AND (p.user_id = ? OR p.user_id IS NULL)";
    params.push(parentOwner);
  }
  return { sql, params };
}

/** Links by which active parents pin this component (see activeDependentsSql). */
export async function activeDependents(db: Db, componentId: string, options: { version?: number; parentOwner?: string | null } = {}): Promise<ComponentLinkRow[]> {
  const { sql, params } = activeDependentsSql(componentId, options);
  return (await db.sql.query(`${sql} ORDER BY l.parent_component_id`, params)).map(toLinkRow);
}

// ── the conditions a write re-checks under its lock ────────────────────────────────────────────

interface Condition {
  readonly sql: string;
  readonly params: readonly unknown[];
}
const cond = (sql: string, ...params: unknown[]): Condition => ({ sql, params });

const live = cond("deleted_at IS NULL");
const archived = cond("deleted_at IS NOT NULL");
const ownedBy = (owner: string | null | undefined): Condition[] => (owner ? [cond("user_id = ?", owner)] : []);
const currentIs = (version: number | null): Condition => (version === null ? cond("current_version IS NULL") : cond("current_version = ?", version));
const maxVersionIs = (componentId: string, version: number) => cond("(SELECT COALESCE(MAX(c.version), 0) FROM agno_component_configs c WHERE c.component_id = ?) = ?", componentId, version);
const latestVisibleIs = (componentId: string, version: number) =>
  cond(`(SELECT COALESCE(MAX(c.version), 0) FROM agno_component_configs c WHERE c.component_id = ? AND c.stage <> '${DELETED_STAGE}') = ?`, componentId, version);
const stageIs = (componentId: string, version: number, stage: "draft" | "published") =>
  cond("EXISTS (SELECT 1 FROM agno_component_configs c WHERE c.component_id = ? AND c.version = ? AND c.stage = ?)", componentId, version, stage);
const labelFree = (componentId: string, label: string, exceptVersion?: number) =>
  exceptVersion === undefined
    ? cond(`NOT EXISTS (SELECT 1 FROM agno_component_configs c WHERE c.component_id = ? AND c.label = ? AND c.stage <> '${DELETED_STAGE}')`, componentId, label)
    : cond(`NOT EXISTS (SELECT 1 FROM agno_component_configs c WHERE c.component_id = ? AND c.label = ? AND c.stage <> '${DELETED_STAGE}' AND c.version <> ?)`, componentId, label, exceptVersion);
const notCurrent = (version: number) => cond("(current_version IS NULL OR current_version <> ?)", version);
const moreThanOneVisible = (componentId: string) => cond(`(SELECT COUNT(*) FROM agno_component_configs c WHERE c.component_id = ? AND c.stage <> '${DELETED_STAGE}') > 1`, componentId);
const ownedAtMost = (userId: string, max: number) => cond("(SELECT COUNT(*) FROM agno_components o WHERE o.user_id = ? AND o.deleted_at IS NULL) <= ?", userId, max);
const noActiveDependents = (componentId: string, options: { version?: number; parentOwner?: string | null }) => {
  const { sql, params } = activeDependentsSql(componentId, options);
  return cond(`NOT EXISTS (${sql})`, ...params);
};
/** Every pin of the version names a live child at a published version (`version` null: the row's current one). */
const pinsPublished = (componentId: string, version: number | null) =>
  cond(
    `NOT EXISTS (SELECT 1 FROM agno_component_links l WHERE l.parent_component_id = ? AND l.parent_version = ${version === null ? "agno_components.current_version" : "?"} AND l.link_kind IN (${PIN_KINDS_SQL})
       AND (NOT EXISTS (SELECT 1 FROM agno_component_configs cc WHERE cc.component_id = l.child_component_id AND cc.version = l.child_version AND cc.stage = 'published')
            OR EXISTS (SELECT 1 FROM agno_components k WHERE k.component_id = l.child_component_id AND k.deleted_at IS NOT NULL)))`,
    ...(version === null ? [componentId] : [componentId, version]),
  );

/** Takes the rows (PostgreSQL: row locks, held to the end of the transaction). */
function lockRows(componentIds: readonly string[]): Statement[] {
  return componentIds.length === 0 ? [] : [{ text: `UPDATE agno_components SET component_type = component_type WHERE component_id IN (${marks(componentIds.length)})`, params: [...componentIds] }];
}

/** Fails the transaction (a NOT NULL violation on component_type) unless every condition holds on the component's row. */
function assertThat(componentId: string, conditions: readonly Condition[]): Statement[] {
  if (conditions.length === 0) return [];
  return [
    {
      text: `UPDATE agno_components SET component_type = CASE WHEN ${conditions.map((c) => `(${c.sql})`).join(" AND ")} THEN component_type ELSE NULL END WHERE component_id = ?`,
      params: [...conditions.flatMap((c) => c.params), componentId],
    },
  ];
}

/** A failed re-check, a lost version number or id, or a lock cycle PostgreSQL broke: the write lost a race. */
function lostRace(error: unknown): boolean {
  const e = error as { code?: string; column?: string; message?: string } | null;
  if (!e) return false;
  if (e.code === "23502" && e.column === "component_type") return true;
  if (e.code === "SQLITE_CONSTRAINT_NOTNULL" && e.message?.includes("agno_components.component_type")) return true;
  if (isUniqueViolation(error)) return true;
  // A child that was pinned while this write checked it, or a lock cycle with another writer.
  return e.code === "23503" || e.code === "SQLITE_CONSTRAINT_FOREIGNKEY" || e.code === "40P01" || e.code === "40001";
}

async function transaction(db: Db, componentId: string, statements: readonly Statement[]): Promise<Row[][]> {
  try {
    return await db.sql.batchRows(statements);
  } catch (error) {
    if (lostRace(error)) throw new ComponentWriteConflict(`Component ${componentId} changed while this write ran; read it again and retry`);
    throw error;
  }
}

/** PostgreSQL: serializes writers counting one owner's components (the per-member limit). */
function ownerLock(db: Db, userId: string): Statement[] {
  return db.dialect === "postgres" ? [{ text: "SELECT pg_advisory_xact_lock(hashtextextended(?, 0))", params: [`agno_components.user_id:${userId}`] }] : [];
}

function insertLinks(componentId: string, version: number, links: readonly ComponentLinkInput[], now: number): Statement[] {
  return links.map((link) => ({
    text: `INSERT INTO agno_component_links (${LINK_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    params: [componentId, version, link.link_kind, link.link_key, link.child_component_id, link.child_version, link.position, link.meta ?? null, now, null],
  }));
}

/** The row fields a published version projects onto its component (only the keys present are written). */
export interface ComponentRowFields {
  name?: string | null;
  description?: string | null;
  metadata?: Record<string, unknown> | null;
}

function fieldAssignments(fields: ComponentRowFields): { sql: string[]; params: unknown[] } {
  const sql: string[] = [];
  const params: unknown[] = [];
  for (const key of ["name", "description", "metadata"] as const) {
    if (!(key in fields)) continue;
    sql.push(`${key} = ?`);
    params.push(fields[key] ?? null);
  }
  return { sql, params };
}

/** Publishing a version: it must pin only live published children; the row's pointer moves to it and takes the version's fields. */
function publishStatements(componentId: string, version: number, fields: ComponentRowFields, now: number): Statement[] {
  const set = fieldAssignments(fields);
  return [
    ...assertThat(componentId, [pinsPublished(componentId, version)]),
    { text: `UPDATE agno_components SET ${["current_version = ?", "updated_at = ?", ...set.sql].join(", ")} WHERE component_id = ?`, params: [version, now, ...set.params, componentId] },
  ];
}

// ── writes ───────────────────────────────────────────────────────────────────────────────────

export interface NewComponent {
  component_id: string;
  component_type: StoredComponentType;
  name: string | null;
  user_id: string | null;
  description: string | null;
  metadata: Record<string, unknown> | null;
}

export interface NewConfig {
  config: Record<string, unknown>;
  label: string | null;
  stage: "draft" | "published";
  notes: string | null;
}

/**
 * A new component with its version 1 (and that version's links), in one transaction. A published
 * version 1 is the current version and must pin only live published children. With `limit`, the
 * owner may hold at most `max` live components once this one is in. A taken id (even an archived
 * one) is ComponentWriteConflict.
 */
export async function insertComponentWithConfig(
  db: Db,
  input: { component: NewComponent; config: NewConfig; links: readonly ComponentLinkInput[]; limit?: { userId: string; max: number }; now?: number },
): Promise<{ component: ComponentRow; config: ComponentConfigRow }> {
  const { component, config, links, limit, now = epochSeconds() } = input;
  const id = component.component_id;
  const published = config.stage === "published";
  const children = published ? [...new Set(links.filter((l) => (PIN_LINK_KINDS as readonly string[]).includes(l.link_kind)).map((l) => l.child_component_id))].sort() : [];
  const statements: Statement[] = [
    ...(limit ? ownerLock(db, limit.userId) : []),
    {
      text: `INSERT INTO agno_components (${COMPONENT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${COMPONENT_COLUMNS}`,
      params: [id, component.component_type, component.name, component.user_id, component.description, published ? 1 : null, component.metadata, now, null, null],
    },
    {
      text: `INSERT INTO agno_component_configs (${CONFIG_COLUMNS}) VALUES (?, 1, ?, ?, ?, ?, ?, ?) RETURNING ${CONFIG_COLUMNS}`,
      params: [id, config.label, config.stage, config.config, config.notes, now, null],
    },
    ...insertLinks(id, 1, links, now),
    ...lockRows(children),
    ...assertThat(id, [...(limit ? [ownedAtMost(limit.userId, limit.max)] : []), ...(published ? [pinsPublished(id, 1)] : [])]),
  ];
  const results = await transaction(db, id, statements);
  const offset = limit ? ownerLock(db, limit.userId).length : 0;
  return { component: toComponentRow(results[offset]![0]!), config: toConfigRow(results[offset + 1]![0]!) };
}

/**
 * Appends version `version` (the read maximum + 1: a number once given out, tombstones included,
 * is never given again), with its links. Re-checked under the lock: the component is live (and
 * `owner`'s), no version above `version - 1` exists, the label is free and, with `expectedLatest`,
 * the newest visible version is that one. `publish`: the new version becomes current (see
 * publishStatements), `lockChildren` being the children its pins name.
 */
export async function appendConfig(
  db: Db,
  input: {
    componentId: string;
    version: number;
    owner?: string | null;
    expectedLatest?: number;
    config: NewConfig;
    links?: readonly ComponentLinkInput[];
    publish?: { fields: ComponentRowFields; lockChildren: readonly string[] };
    now?: number;
  },
): Promise<ComponentConfigRow> {
  const { componentId: id, version, config, now = epochSeconds() } = input;
  const statements: Statement[] = [
    ...lockRows([id]),
    ...lockRows(input.publish?.lockChildren ?? []),
    ...assertThat(id, [
      live,
      ...ownedBy(input.owner),
      maxVersionIs(id, version - 1),
      ...(input.expectedLatest !== undefined ? [latestVisibleIs(id, input.expectedLatest)] : []),
      ...(config.label !== null ? [labelFree(id, config.label)] : []),
    ]),
    {
      text: `INSERT INTO agno_component_configs (${CONFIG_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${CONFIG_COLUMNS}`,
      params: [id, version, config.label, config.stage, config.config, config.notes, now, null],
    },
    ...insertLinks(id, version, input.links ?? [], now),
    ...(input.publish ? publishStatements(id, version, input.publish.fields, now) : []),
  ];
  return configRowOf(await transaction(db, id, statements));
}

/**
 * Changes a draft in place: the fields given (`set`), its links when `links` is given (replaced
 * whole), and with `publish` its stage (it becomes the current version, see publishStatements).
 * Re-checked under the lock: the component is live (and `owner`'s), the version is still a draft,
 * the label is free and, with `expectedLatest`, the newest visible version is that one.
 */
export async function updateDraftConfig(
  db: Db,
  input: {
    componentId: string;
    version: number;
    owner?: string | null;
    expectedLatest?: number;
    set: { config?: Record<string, unknown>; label?: string; notes?: string };
    links?: readonly ComponentLinkInput[];
    publish?: { fields: ComponentRowFields; lockChildren: readonly string[] };
    now?: number;
  },
): Promise<ComponentConfigRow> {
  const { componentId: id, version, set, now = epochSeconds() } = input;
  const assignments: string[] = ["updated_at = ?"];
  const params: unknown[] = [now];
  for (const key of ["config", "label", "notes"] as const) {
    if (set[key] === undefined) continue;
    assignments.push(`${key} = ?`);
    params.push(set[key]);
  }
  if (input.publish) assignments.push("stage = 'published'");
  const statements: Statement[] = [
    ...lockRows([id]),
    ...lockRows(input.publish?.lockChildren ?? []),
    ...assertThat(id, [
      live,
      ...ownedBy(input.owner),
      stageIs(id, version, "draft"),
      ...(set.label !== undefined ? [labelFree(id, set.label, version)] : []),
      ...(input.expectedLatest !== undefined ? [latestVisibleIs(id, input.expectedLatest)] : []),
    ]),
    { text: `UPDATE agno_component_configs SET ${assignments.join(", ")} WHERE component_id = ? AND version = ? RETURNING ${CONFIG_COLUMNS}`, params: [...params, id, version] },
    ...(input.links !== undefined
      ? [{ text: "DELETE FROM agno_component_links WHERE parent_component_id = ? AND parent_version = ?", params: [id, version] }, ...insertLinks(id, version, input.links, now)]
      : []),
    ...(input.publish ? publishStatements(id, version, input.publish.fields, now) : []),
  ];
  return configRowOf(await transaction(db, id, statements));
}

/** The config row a transaction's statements returned (the one statement whose rows carry a `stage`). */
function configRowOf(results: Awaited<ReturnType<typeof transaction>>): ComponentConfigRow {
  const rows = results.find((r) => r.length > 0 && "stage" in r[0]!);
  return toConfigRow(rows![0]!);
}

/**
 * Moves the current version to `version` (a published one whose pinned children are all live;
 * `lockChildren` names them) and/or writes row fields. Re-checked under the lock: the component is
 * live (and `owner`'s) and, with `expectedCurrent`, its current version is that one.
 */
export async function updateComponentRow(
  db: Db,
  input: { componentId: string; owner?: string | null; expectedCurrent?: number | null; version?: number; lockChildren?: readonly string[]; fields: ComponentRowFields; now?: number },
): Promise<ComponentRow> {
  const { componentId: id, version, now = epochSeconds() } = input;
  const set = fieldAssignments(input.fields);
  const assignments = ["updated_at = ?", ...(version !== undefined ? ["current_version = ?"] : []), ...set.sql];
  const statements: Statement[] = [
    ...lockRows([id]),
    ...lockRows(input.lockChildren ?? []),
    ...assertThat(id, [
      live,
      ...ownedBy(input.owner),
      ...(input.expectedCurrent !== undefined ? [currentIs(input.expectedCurrent)] : []),
      ...(version !== undefined ? [stageIs(id, version, "published"), pinsPublished(id, version)] : []),
    ]),
    {
      text: `UPDATE agno_components SET ${assignments.join(", ")} WHERE component_id = ? RETURNING ${COMPONENT_COLUMNS}`,
      params: [now, ...(version !== undefined ? [version] : []), ...set.params, id],
    },
  ];
  const results = await transaction(db, id, statements);
  return toComponentRow(results[results.length - 1]![0]!);
}

/**
 * Deletes a draft: it becomes a `_deleted` tombstone (label cleared, number kept) and its links go.
 * Re-checked under the lock: the component is live (and `owner`'s), the version is a draft, not
 * the current one, not the last visible one, and no active parent pins it.
 */
export async function tombstoneDraftConfig(db: Db, input: { componentId: string; version: number; owner?: string | null; now?: number }): Promise<void> {
  const { componentId: id, version, now = epochSeconds() } = input;
  await transaction(db, id, [
    ...lockRows([id]),
    ...assertThat(id, [live, ...ownedBy(input.owner), stageIs(id, version, "draft"), notCurrent(version), moreThanOneVisible(id), noActiveDependents(id, { version })]),
    { text: `UPDATE agno_component_configs SET stage = '${DELETED_STAGE}', label = NULL, updated_at = ? WHERE component_id = ? AND version = ?`, params: [now, id, version] },
    { text: "DELETE FROM agno_component_links WHERE parent_component_id = ? AND parent_version = ?", params: [id, version] },
  ]);
}

/**
 * The run endpoints a schedule aimed at a component may call it by (lib/scheduler's form, with and
 * without a trailing slash), its id as written and percent-encoded (an id with letters beyond
 * ASCII is scheduled encoded).
 */
function runEndpoints(type: StoredComponentType, componentId: string): [string, string, string, string] {
  const endpoint = `/${type}s/${componentId}/runs`;
  const encoded = `/${type}s/${encodeURIComponent(componentId)}/runs`;
  return [endpoint, `${endpoint}/`, encoded, `${encoded}/`];
}

/**
 * Archives a live component (`deleted_at` set; every version kept, the id reserved) and, in the
 * same transaction, disables every enabled schedule aimed at it — by its provenance
 * (`target_type`, `target_id`) or its run endpoint — with `disabled_reason`
 * `target_archived:<type>:<id>`. Re-checked under the lock: the component is live (and `owner`'s),
 * with `expectedCurrent` its current version is that one, and no active parent pins it (with
 * `parentOwner`, among the parents that user owns or nobody owns). Answers how many schedules it
 * disabled.
 */
export async function archiveComponentRow(
  db: Db,
  input: { componentId: string; componentType: StoredComponentType; owner?: string | null; expectedCurrent?: number | null; parentOwner?: string | null; now?: number },
): Promise<{ schedulesDisabled: number }> {
  const { componentId: id, componentType: type, now = epochSeconds() } = input;
  const endpoints = runEndpoints(type, id);
  const results = await transaction(db, id, [
    ...lockRows([id]),
    ...assertThat(id, [live, ...ownedBy(input.owner), ...(input.expectedCurrent !== undefined ? [currentIs(input.expectedCurrent)] : []), noActiveDependents(id, { parentOwner: input.parentOwner })]),
    { text: "UPDATE agno_components SET deleted_at = ?, updated_at = ? WHERE component_id = ? AND deleted_at IS NULL", params: [now, now, id] },
    {
      text: `UPDATE agno_schedules SET enabled = ?, disabled_reason = ?, updated_at = ?
              WHERE ((target_type = ? AND target_id = ?) OR endpoint IN (?, ?, ?, ?)) AND enabled = ?
                AND EXISTS (SELECT 1 FROM agno_components WHERE component_id = ? AND deleted_at = ?)
             RETURNING id`,
      params: [false, `target_archived:${type}:${id}`, now, type, id, ...endpoints, true, id, now],
    },
  ]);
  return { schedulesDisabled: results[results.length - 1]!.length };
}

/**
 * Restores an archived component (`deleted_at` cleared; its current version and schedules stay as
 * they are). Re-checked under the lock: the component is archived (and `owner`'s), its current
 * version's pinned children are live and, with `limit`, the owner holds fewer than `max` live
 * components.
 */
export async function restoreComponentRow(db: Db, input: { componentId: string; owner?: string | null; limit?: { userId: string; max: number }; now?: number }): Promise<ComponentRow> {
  const { componentId: id, limit, now = epochSeconds() } = input;
  const results = await transaction(db, id, [
    ...(limit ? ownerLock(db, limit.userId) : []),
    ...lockRows([id]),
    ...assertThat(id, [archived, ...ownedBy(input.owner), pinsLiveOnCurrent(id), ...(limit ? [ownedAtMost(limit.userId, limit.max - 1)] : [])]),
    { text: `UPDATE agno_components SET deleted_at = NULL, updated_at = ? WHERE component_id = ? RETURNING ${COMPONENT_COLUMNS}`, params: [now, id] },
  ]);
  return toComponentRow(results[results.length - 1]![0]!);
}

/** The current version's pinned children are all live (a component without a current version passes). */
const pinsLiveOnCurrent = (componentId: string) =>
  cond(
    `NOT EXISTS (SELECT 1 FROM agno_component_links l JOIN agno_components k ON k.component_id = l.child_component_id
       WHERE l.parent_component_id = ? AND l.parent_version = agno_components.current_version AND l.link_kind IN (${PIN_KINDS_SQL}) AND k.deleted_at IS NOT NULL)`,
    componentId,
  );
