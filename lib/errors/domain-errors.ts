/**
 * Errors that say what went wrong in the domain's words, thrown on purpose by lib/db, lib/auth,
 * lib/queue and lib/runtime; lib/http/errors.ts maps each to its status code.
 */

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

/** The durable job queue holds `maxQueueDepth` queued jobs already (the API answers 429 "Job queue is full"). */
export class QueueFullError extends Error {
  override readonly name = "QueueFullError";
  constructor(readonly maxQueueDepth: number) {
    super("Job queue is full");
  }
}
