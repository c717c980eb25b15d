import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import Database from "better-sqlite3";
import { dialectOf, sqlitePath } from "../db/open-database.ts";

/**
 * Copies a live SQLite database with SQLite's online backup API: consistent even while the server
 * writes, and it includes what is still in the WAL. Copying the .db file (and its -wal/-shm side
 * files) by hand while it is in use can produce a corrupt backup.
 */
export async function backupSqlite({ url, destination }: { url: string; destination: string }): Promise<{ pages: number; path: string }> {
  if (dialectOf(url) !== "sqlite") {
    throw new Error("backup copies SQLite databases; for PostgreSQL use pg_dump (see docs/operations.md)");
  }
  const source = sqlitePath(url);
  if (!existsSync(source)) throw new Error(`No SQLite database at ${source}`);
  const target = resolve(destination);
  if (target === source) throw new Error("The backup file must not be the database itself");
  if (existsSync(target)) throw new Error(`${target} already exists; choose a new file name`);
  await mkdir(dirname(target), { recursive: true });
  // Our own connection: the Prisma adapter does not expose its better-sqlite3 handle.
  const connection = new Database(source, { readonly: true, timeout: 5000 });
  try {
    const progress = await connection.backup(target);
    return { pages: progress.totalPages, path: target };
  } finally {
    connection.close();
  }
}
