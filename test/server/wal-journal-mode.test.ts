import { existsSync, mkdtempSync, openSync, readSync, closeSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { openMigratedDatabase } from "@/lib/migrations/open-migrated.ts";
import { testSettings } from "../support/settings.ts";

/**
 * A SQLite file made in DELETE (rollback-journal) mode — by an older Agno, or the sqlite3 shell —
 * is in WAL mode once Agentry has connected to it (lib/db/open-database.ts), through the path the
 * server and the worker open their database by (lib/migrations/open-migrated.ts), and stays so
 * for every later connection: WAL is a property of the file.
 */

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A new SQLite file in DELETE journal mode holding one table of its own, as Agentry has never seen it. */
function deleteModeFile(name = "agentry.db"): string {
  const dir = mkdtempSync(join(tmpdir(), "agentry-wal-"));
  dirs.push(dir);
  const path = join(dir, name);
  const connection = new Database(path);
  expect(connection.pragma("journal_mode = DELETE", { simple: true })).toBe("delete");
  connection.exec("CREATE TABLE kept (note TEXT NOT NULL)");
  connection.prepare("INSERT INTO kept (note) VALUES (?)").run("written in DELETE mode");
  connection.close();
  return path;
}

/** The file format's read and write version bytes (offsets 18 and 19): 1 for rollback journals, 2 for WAL. */
function headerVersions(path: string): [number, number] {
  const fd = openSync(path, "r");
  try {
    const header = Buffer.alloc(20);
    readSync(fd, header, 0, 20, 0);
    return [header[18], header[19]];
  } finally {
    closeSync(fd);
  }
}

/** What a fresh plain connection (no pragma of its own) reports. */
function journalModeOf(path: string): string {
  const connection = new Database(path, { readonly: true });
  try {
    return connection.pragma("journal_mode", { simple: true }) as string;
  } finally {
    connection.close();
  }
}

const quiet = () => undefined;

describe("SQLite journal mode on connect", () => {
  it("a file in DELETE mode is WAL after Agentry connects, for its own connections and every later one", async () => {
    const path = deleteModeFile();
    expect(journalModeOf(path)).toBe("delete");
    expect(headerVersions(path)).toEqual([1, 1]);

    const db = await openMigratedDatabase(testSettings({ env: { DATABASE_URL: `file:${path}` } }), quiet);
    try {
      // The raw executor's connection and Prisma's each see WAL.
      expect(await db.sql.query<{ journal_mode: string }>("PRAGMA journal_mode")).toEqual([{ journal_mode: "wal" }]);
      const viaPrisma = (await db.prisma.$queryRawUnsafe("PRAGMA journal_mode")) as { journal_mode: string }[];
      expect(viaPrisma).toEqual([{ journal_mode: "wal" }]);
      // A write goes to the write-ahead log.
      await db.sql.exec("INSERT INTO kept (note) VALUES (?)", ["written by Agentry"]);
      expect(existsSync(`${path}-wal`)).toBe(true);
      expect(headerVersions(path)).toEqual([2, 2]);
    } finally {
      await db.close();
    }

    expect(journalModeOf(path)).toBe("wal");
    const check = new Database(path, { readonly: true });
    try {
      expect(check.prepare("SELECT note FROM kept ORDER BY rowid").pluck().all()).toEqual(["written in DELETE mode", "written by Agentry"]);
      expect(check.prepare("SELECT count(*) FROM agno_schema_versions").pluck().get()).toBeGreaterThan(0);
    } finally {
      check.close();
    }
  });

  it("converts while another connection to the file (an older process still running) is open and idle", async () => {
    const path = deleteModeFile("shared.sqlite");
    const other = new Database(path);
    try {
      expect(other.pragma("journal_mode", { simple: true })).toBe("delete");
      // A `.sqlite` path without `file:` is a SQLite URL too (lib/db/open-database.ts dialectOf).
      const db = await openMigratedDatabase(testSettings({ env: { DATABASE_URL: path } }), quiet);
      try {
        expect(await db.sql.query<{ journal_mode: string }>("PRAGMA journal_mode")).toEqual([{ journal_mode: "wal" }]);
      } finally {
        await db.close();
      }
      // The other connection reads the file as WAL once its next statement has read the header.
      expect(other.prepare("SELECT count(*) FROM kept").pluck().get()).toBe(1);
      expect(other.pragma("journal_mode", { simple: true })).toBe("wal");
    } finally {
      other.close();
    }
    expect(journalModeOf(path)).toBe("wal");
  });
});
