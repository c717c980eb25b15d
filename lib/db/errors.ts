/** Errors the data layer throws on purpose; lib/http maps each to its status code. */

/** A pagination request that would be silently wrong: `page` without `limit`, or below 1. */
export class PaginationError extends Error {
  override readonly name = "PaginationError";
  constructor(
    message: string,
    readonly field: "page" | "limit",
  ) {
    super(message);
  }
}

/** A write that conflicts with what is stored (a duplicate id, another owner's row). */
export class ConflictError extends Error {
  override readonly name = "ConflictError";
}

/** The scope may not do this at all (a member calling an admin-only function). */
export class PermissionError extends Error {
  override readonly name = "PermissionError";
}

/** A row that does not exist for this scope (existence is never revealed across owners). */
export class NotFoundError extends Error {
  override readonly name = "NotFoundError";
}

/**
 * The database's schema is older than this code. Names the likely cause and both fixes.
 */
export class MigrationRequiredError extends Error {
  override readonly name = "MigrationRequiredError";
  readonly errorType = "migration_required_error";
  constructor(readonly tables: { table: string; version: string | null }[]) {
    super(
      `Table ${tables.map((t) => `${t.table}${t.version ? ` (schema ${t.version})` : ""}`).join(", ")} ` +
        `has an invalid schema: the database was likely created by an older version of Agno or Agentry. ` +
        "Migrate it with `npx agentry migrate` or `POST /databases/all/migrate`.",
    );
  }
}

/**
 * Recognises a driver or Prisma error caused by a schema older than this code (a missing table
 * or column) and turns it into MigrationRequiredError; anything else comes back as it was.
 */
export function schemaErrorFrom(error: unknown): unknown {
  const e = error as { code?: string; message?: string; meta?: Record<string, unknown> } | null;
  if (!e || typeof e !== "object") return error;
  const message = e.message ?? "";
  const prismaMissing = e.code === "P2021" || e.code === "P2022";
  const sqliteMissing = /no such (table|column)/i.test(message);
  const postgresMissing = e.code === "42P01" || e.code === "42703";
  if (!prismaMissing && !sqliteMissing && !postgresMissing) return error;
  const table =
    (typeof e.meta?.table === "string" && e.meta.table) ||
    /(agno_[a-z_]+)/.exec(String(e.meta?.column ?? "") + " " + message)?.[1] ||
    "a table";
  return new MigrationRequiredError([{ table: String(table).replace(/^.*\./, ""), version: null }]);
}

/** The durable job queue holds `maxQueueDepth` queued jobs already (the API answers 429 "Job queue is full"). */
export class QueueFullError extends Error {
  override readonly name = "QueueFullError";
  constructor(readonly maxQueueDepth: number) {
    super("Job queue is full");
  }
}
