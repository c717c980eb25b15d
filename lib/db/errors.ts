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
      `Table ${tables.map((t) => `${t.table} (schema ${t.version ?? "unstamped, pre-v3"})`).join(", ")} ` +
        `has an invalid schema: the database was likely created by an older version of Agno or Agentry. ` +
        "Migrate it with `npx agentry migrate` or `POST /databases/all/migrate`.",
    );
  }
}
