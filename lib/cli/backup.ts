import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import Database from "better-sqlite3";
import { dialectOf, sqlitePath } from "../db/open-database.ts";

/**
 * Pages per step of the backup: all of them. A copy made in steps starts over whenever another
 * connection writes between two steps, so under a steady stream of runs it never finishes; one
 * step reads one snapshot of the database (a WAL read transaction, which writers do not wait for).
 */
const ALL_PAGES = 0x7fffffff;

/**
 * Copies a live SQLite database with SQLite's online backup API: consistent even while the server
 * writes (the copy is the database as of one moment), and it includes what is still in the WAL.
 * Copying the .db file (and its -wal/-shm side files) by hand while it is in use can produce a
 * corrupt backup.
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
    // better-sqlite3's first step copies no pages; the progress callback sets every later one's size.
    const progress = await connection.backup(target, { progress: () => ALL_PAGES });
    return { pages: progress.totalPages, path: target };
  } finally {
    connection.close();
  }
}
