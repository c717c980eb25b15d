import { QueueFullError } from "../../errors/domain-errors.ts";
import { plainJobInsert, type PlainJobInput } from "../jobs/enqueue-job.ts";
import { parseJson } from "../json.ts";
import type { Db } from "../open-database.ts";
import { pageWindow } from "../pagination.ts";
import { ownerForWrite, type DataScope } from "../scope.ts";

/**
 * Knowledge contents in `agno_knowledge`, Agno's table: one row per inserted file, URL or text,
 * `linked_to` its knowledge base's name, `user_id` its owner (null = shared). A member sees its own
 * contents and the shared ones and changes only its own; an admin sees and changes every row.
 * Agentry's `agentry_knowledge_uploads` holds an upload's bytes until it is processed.
 */

export const CONTENT_STATUSES = ["processing", "completed", "failed"] as const;
export type ContentStatus = (typeof CONTENT_STATUSES)[number];

/** The job type (and component type) of a content's processing job. */
export const KNOWLEDGE_JOB_TYPE = "knowledge_content";

/**
 * A content left `processing` with no queued or running job, whose job failed or was cancelled or
 * whose row has not moved for this long, is taken as interrupted and reads `failed`.
 */
export const STALE_CONTENT_SECONDS = 900;

export const CONTENT_SORT_FIELDS = ["created_at", "updated_at", "name", "type", "size", "status"] as const;

export interface StoredContent {
  id: string;
  user_id: string | null;
  name: string;
  description: string;
  metadata: Record<string, unknown> | null;
  type: string | null;
  size: number | null;
  linked_to: string | null;
  access_count: number | null;
  status: ContentStatus;
  status_message: string | null;
  created_at: number | null;
  updated_at: number | null;
  external_id: string | null;
}

export interface NewContent {
  id: string;
  name: string;
  description: string;
  metadata: Record<string, unknown> | null;
  type: string | null;
  size: number | null;
  linkedTo: string;
  /** Admins only: the owner to stamp (null = shared); a member's contents are always its own. */
  userId?: string | null;
}

export interface ContentUpload {
  data: Uint8Array;
  filename: string | null;
  mimeType: string | null;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);
const twice = <T>(value: T): [T, T] => [value, value];

const COLUMNS = "id, user_id, name, description, metadata, type, size, linked_to, access_count, status, status_message, created_at, updated_at, external_id";

/** The message a content interrupted in processing reads. */
const INTERRUPTED_MESSAGE = "Processing was interrupted (the server processing it stopped); upload the content again.";

/** True when a processing content has no queued or running job and its job ended or its row went stale (one `?`: the stale time). */
const INTERRUPTED_SQL = `(k.status = 'processing'
    AND NOT EXISTS (SELECT 1 FROM agno_jobs j WHERE j.component_type = '${KNOWLEDGE_JOB_TYPE}' AND j.component_id = k.id AND j.status IN ('queued', 'running'))
    AND (coalesce(k.updated_at, k.created_at, 0) < ?
      OR EXISTS (SELECT 1 FROM agno_jobs j WHERE j.component_type = '${KNOWLEDGE_JOB_TYPE}' AND j.component_id = k.id AND j.status IN ('failed', 'cancelled'))))`;

/** The status a read reports, one of CONTENT_STATUSES (one `?`: the stale time). Agno's rows may spell theirs in other cases. */
export const REPORTED_STATUS_SQL = `(CASE WHEN ${INTERRUPTED_SQL} THEN 'failed'
    WHEN lower(coalesce(k.status, '')) LIKE '%fail%' THEN 'failed'
    WHEN lower(coalesce(k.status, '')) LIKE '%complet%' THEN 'completed'
    ELSE 'processing' END)`;

/** The columns every read of a content selects from `agno_knowledge k` (two `?`: the stale time, twice; see staleBefore). */
export const CONTENT_COLUMNS_SQL = `k.id, k.user_id, k.name, k.description, k.metadata, k.type, k.size, k.linked_to, k.access_count, k.status_message,
  k.created_at, k.updated_at, k.external_id, ${REPORTED_STATUS_SQL} AS reported_status, CASE WHEN ${INTERRUPTED_SQL} THEN 1 ELSE 0 END AS interrupted`;

/** The stale time the reads' `?` take: rows processing since before it with no job are interrupted. */
export const staleBefore = (): number => nowSeconds() - STALE_CONTENT_SECONDS;

const SELECT = `SELECT ${CONTENT_COLUMNS_SQL} FROM agno_knowledge k`;

const numberOrNull = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

/** A row read with CONTENT_COLUMNS_SQL as a StoredContent. */
export function toStoredContent(row: Record<string, unknown>): StoredContent {
  const metadata = parseJson(row.metadata);
  const interrupted = Number(row.interrupted) === 1 || row.interrupted === true;
  const status = (CONTENT_STATUSES as readonly string[]).includes(String(row.reported_status)) ? (row.reported_status as ContentStatus) : "processing";
  return {
    id: String(row.id),
    user_id: (row.user_id as string | null) ?? null,
    name: String(row.name ?? ""),
    description: String(row.description ?? ""),
    metadata: metadata !== null && typeof metadata === "object" && !Array.isArray(metadata) ? (metadata as Record<string, unknown>) : null,
    type: (row.type as string | null) ?? null,
    size: numberOrNull(row.size),
    linked_to: (row.linked_to as string | null) ?? null,
    access_count: numberOrNull(row.access_count),
    status,
    status_message: interrupted ? INTERRUPTED_MESSAGE : ((row.status_message as string | null) ?? null),
    created_at: numberOrNull(row.created_at),
    updated_at: numberOrNull(row.updated_at),
    external_id: (row.external_id as string | null) ?? null,
  };
}

/** The rows a scope sees: a member its own and the shared ones; an admin everyone's (or one user's and the shared ones). */
export function contentVisibleSql(scope: DataScope): { clause: string; params: unknown[] } {
  const userId = scope.userId;
  if (scope.kind === "admin" && userId === undefined) return { clause: "1=1", params: [] };
  if (userId === null || userId === undefined) return { clause: "k.user_id IS NULL", params: [] };
  return { clause: "(k.user_id = ? OR k.user_id IS NULL)", params: [userId] };
}

/** Whether the scope may change a content: its owner, or an admin (shared contents: admins only). */
export function canChangeContent(scope: DataScope, content: StoredContent): boolean {
  return scope.kind === "admin" || (content.user_id !== null && content.user_id === scope.userId);
}

export async function getContent(db: Db, { scope, id, linkedTo }: { scope: DataScope; id: string; linkedTo?: string }): Promise<StoredContent | null> {
  const visible = contentVisibleSql(scope);
  const linked = linkedTo === undefined ? { clause: "1=1", params: [] } : { clause: "k.linked_to = ?", params: [linkedTo] };
  const [row] = await db.sql.query(`${SELECT} WHERE k.id = ? AND ${visible.clause} AND ${linked.clause}`, [...twice(staleBefore()), id, ...visible.params, ...linked.params]);
  return row ? toStoredContent(row) : null;
}

export async function listContents(
  db: Db,
  {
    scope,
    linkedTo,
    page,
    limit,
    sortBy = "created_at",
    sortOrder = "desc",
    status,
  }: { scope: DataScope; linkedTo: string; page: number; limit: number; sortBy?: string; sortOrder?: "asc" | "desc"; status?: ContentStatus },
): Promise<{ contents: StoredContent[]; totalCount: number }> {
  const visible = contentVisibleSql(scope);
  const column = (CONTENT_SORT_FIELDS as readonly string[]).includes(sortBy) ? sortBy : "created_at";
  const direction = sortOrder === "asc" ? "ASC" : "DESC";
  const { take, skip } = pageWindow({ page, limit });
  const where = `k.linked_to = ? AND ${visible.clause}${status ? " AND k.status = ?" : ""}`;
  const params = [linkedTo, ...visible.params, ...(status ? [status] : [])];
  const [rows, [count]] = await Promise.all([
    db.sql.query(`${SELECT} WHERE ${where} ORDER BY k.${column} ${direction}, k.id ${direction} LIMIT ? OFFSET ?`, [...twice(staleBefore()), ...params, take, skip]),
    db.sql.query<{ n: number }>(`SELECT count(*) AS n FROM agno_knowledge k WHERE ${where}`, params),
  ]);
  return { contents: rows.map(toStoredContent), totalCount: Number(count?.n ?? 0) };
}

/** The distinct metadata keys of the contents a scope sees (Agno's valid filters). */
export async function contentMetadataKeys(db: Db, { scope, linkedTo }: { scope: DataScope; linkedTo: string }): Promise<string[]> {
  const visible = contentVisibleSql(scope);
  const rows = await db.sql.query<{ metadata: unknown }>(`SELECT k.metadata FROM agno_knowledge k WHERE k.linked_to = ? AND ${visible.clause} AND k.metadata IS NOT NULL LIMIT 10000`, [
    linkedTo,
    ...visible.params,
  ]);
  const keys = new Set<string>();
  for (const row of rows) {
    const value = parseJson(row.metadata);
    if (value !== null && typeof value === "object" && !Array.isArray(value)) for (const key of Object.keys(value)) keys.add(key);
  }
  return [...keys].sort();
}

export type StoreContentResult = { content: StoredContent; created: boolean };

/**
 * Stores a new content (status processing) with its upload, and its processing job when a job is
 * given, in one transaction. The same content again (its id comes from its owner and bytes) is a
 * no-op answering the stored row, unless that one failed: then it is processed again. With a job,
 * nothing is stored when the queue is full (QueueFullError).
 */
export async function storeContent(
  db: Db,
  { scope, content, upload, job, maxQueueDepth }: { scope: DataScope; content: NewContent; upload: ContentUpload; job?: PlainJobInput & { id: string }; maxQueueDepth?: number },
): Promise<StoreContentResult> {
  const owner = ownerForWrite(scope, content.userId);
  const existing = await getContent(db, { scope, id: content.id });
  if (existing && existing.status !== "failed") return { content: existing, created: false };
  const now = nowSeconds();
  const values = [content.id, owner, content.name, content.description, content.metadata, content.type, content.size, content.linkedTo, 0, "processing", "", now, now, null];
  const guard = job ? " WHERE EXISTS (SELECT 1 FROM agno_jobs WHERE id = ?)" : " WHERE 1 = 1";
  const guardParams = job ? [job.id] : [];
  const statements = [
    ...(job
      ? [
          {
            ...plainJobInsert(job, { owner, maxQueueDepth, now }),
          },
        ]
      : []),
    {
      text: `INSERT INTO agno_knowledge (${COLUMNS}) SELECT ${values.map(() => "?").join(", ")}${guard}
             ON CONFLICT (id) DO UPDATE SET status = 'processing', status_message = '', updated_at = excluded.updated_at`,
      params: [...values, ...guardParams],
    },
    {
      text: `INSERT INTO agentry_knowledge_uploads (content_id, user_id, data, filename, mime_type, created_at) SELECT ?, ?, ?, ?, ?, ?${guard}
             ON CONFLICT (content_id) DO UPDATE SET data = excluded.data, filename = excluded.filename, mime_type = excluded.mime_type, created_at = excluded.created_at`,
      // A view of the bytes, not a copy (Buffer.from of a Uint8Array copies it element by element).
      params: [content.id, owner, Buffer.from(upload.data.buffer, upload.data.byteOffset, upload.data.byteLength), upload.filename, upload.mimeType, now, ...guardParams],
    },
  ];
  const counts = await db.sql.batch(statements);
  if (job && counts[0] === 0) throw new QueueFullError(maxQueueDepth ?? 0);
  const stored = await getContent(db, { scope, id: content.id });
  if (!stored) throw new Error(`Content ${content.id} was not stored`);
  return { content: stored, created: true };
}

/** Upload bytes are read this much per statement (unsafeGetUpload says why). */
const UPLOAD_SLICE_BYTES = 1024 * 1024;

/**
 * The upload waiting for a content's processing (null once processed, or never stored). Its bytes
 * are read a slice per statement, with the event loop free between them: one statement for 20 MiB
 * holds it for hundreds of milliseconds (PostgreSQL's hex text parsed by the driver; SQLite's
 * synchronous read).
 */
export async function unsafeGetUpload(db: Db, contentId: string): Promise<ContentUpload | null> {
  const [row] = await db.sql.query<{ size: number; filename: string | null; mime_type: string | null }>(
    "SELECT length(data) AS size, filename, mime_type FROM agentry_knowledge_uploads WHERE content_id = ?",
    [contentId],
  );
  if (!row) return null;
  const data = new Uint8Array(Number(row.size));
  for (let offset = 0; offset < data.byteLength; offset += UPLOAD_SLICE_BYTES) {
    const [slice] = await db.sql.query<{ part: Uint8Array | null }>("SELECT substr(data, ?, ?) AS part FROM agentry_knowledge_uploads WHERE content_id = ?", [
      offset + 1,
      UPLOAD_SLICE_BYTES,
      contentId,
    ]);
    // Deleted (or replaced) while it was read: as if it were gone.
    if (!slice?.part || slice.part.byteLength !== Math.min(UPLOAD_SLICE_BYTES, data.byteLength - offset)) return null;
    data.set(slice.part, offset);
  }
  return { data, filename: row.filename, mimeType: row.mime_type };
}

/** A content read without a scope: the processing job's, which runs for the content's owner. */
export async function unsafeGetContent(db: Db, id: string): Promise<StoredContent | null> {
  const [row] = await db.sql.query(`${SELECT} WHERE k.id = ?`, [...twice(staleBefore()), id]);
  return row ? toStoredContent(row) : null;
}

/**
 * Ends a content's processing (completed or failed, with a message a person can act on) and
 * drops its upload, in one transaction; a progress update (processing) keeps the upload.
 */
export async function unsafeSetContentStatus(
  db: Db,
  { id, status, message, size, type }: { id: string; status: ContentStatus; message?: string; size?: number | null; type?: string | null },
): Promise<void> {
  const now = nowSeconds();
  await db.sql.batch([
    {
      text: `UPDATE agno_knowledge SET status = ?, status_message = ?, size = coalesce(?, size), type = coalesce(?, type), updated_at = ? WHERE id = ?`,
      params: [status, message ?? "", size ?? null, type ?? null, now, id],
    },
    ...(status === "processing" ? [] : [{ text: "DELETE FROM agentry_knowledge_uploads WHERE content_id = ?", params: [id] }]),
  ]);
}

/** Renames, re-describes or re-tags a content (the caller checked it may). Metadata is replaced. */
export async function updateContent(
  db: Db,
  { scope, id, patch }: { scope: DataScope; id: string; patch: { name?: string; description?: string; metadata?: Record<string, unknown> } },
): Promise<StoredContent | null> {
  const sets: string[] = [];
  const params: unknown[] = [];
  if (patch.name !== undefined) sets.push("name = ?"), params.push(patch.name);
  if (patch.description !== undefined) sets.push("description = ?"), params.push(patch.description);
  if (patch.metadata !== undefined) sets.push("metadata = ?"), params.push(patch.metadata);
  sets.push("updated_at = ?");
  params.push(nowSeconds());
  const owner = scope.kind === "admin" ? { clause: "1=1", params: [] } : { clause: "user_id = ?", params: [scope.userId] };
  await db.sql.exec(`UPDATE agno_knowledge SET ${sets.join(", ")} WHERE id = ? AND ${owner.clause}`, [...params, id, ...owner.params]);
  return getContent(db, { scope, id });
}

/** Deletes contents the scope may change (members: their own; admins: any), with their uploads. Returns the ids deleted. */
export async function deleteContents(db: Db, { scope, ids, linkedTo }: { scope: DataScope; ids?: readonly string[]; linkedTo: string }): Promise<string[]> {
  const owner =
    scope.kind === "admin"
      ? scope.userId === undefined
        ? { clause: "1=1", params: [] as unknown[] }
        : scope.userId === null
          ? { clause: "user_id IS NULL", params: [] }
          : { clause: "user_id = ?", params: [scope.userId] }
      : { clause: "user_id = ?", params: [scope.userId] };
  const which = ids ? { clause: "id IN (SELECT value FROM json_each(?))", params: [JSON.stringify(ids)] } : { clause: "1=1", params: [] };
  const whichSql = db.dialect === "postgres" && ids ? { clause: "id IN (SELECT jsonb_array_elements_text(?::jsonb))", params: which.params } : which;
  const rows = await db.sql.query<{ id: string }>(`SELECT id FROM agno_knowledge WHERE linked_to = ? AND ${owner.clause} AND ${whichSql.clause}`, [linkedTo, ...owner.params, ...whichSql.params]);
  const found = rows.map((r) => r.id);
  if (found.length === 0) return [];
  const list = db.dialect === "postgres" ? "(SELECT jsonb_array_elements_text(?::jsonb))" : "(SELECT value FROM json_each(?))";
  await db.sql.batch([
    { text: `DELETE FROM agentry_knowledge_uploads WHERE content_id IN ${list}`, params: [JSON.stringify(found)] },
    { text: `DELETE FROM agno_knowledge WHERE id IN ${list}`, params: [JSON.stringify(found)] },
  ]);
  return found;
}
