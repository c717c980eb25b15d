import { MigrationRequiredError } from "../errors/domain-errors.ts";

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
  const table = (typeof e.meta?.table === "string" && e.meta.table) || /(agno_[a-z_]+)/.exec(String(e.meta?.column ?? "") + " " + message)?.[1] || "a table";
  return new MigrationRequiredError([{ table: String(table).replace(/^.*\./, ""), version: null }]);
}
