import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { backupSqlite } from "@/lib/cli/backup.ts";
import { openDatabase } from "@/lib/db/open-database.ts";
import { MigrationManager } from "@/lib/migrations/migration-manager.ts";
import { postgresUrl } from "../support/databases.ts";

/**
 * `agentry backup <file>` (lib/cli/backup.ts) run as an operator runs it, while another process
 * keeps committing runs: the copy passes `PRAGMA integrity_check`, holds every run committed
 * before the backup started, and is one moment of the database — the runs it holds are a prefix
 * of the writer's sequence, each with its session (test/cli/backup-consistency-writer.ts).
 */

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
/** Starting the CLI (tsx loading agentry.config.ts) alone takes 10–25 s on a busy two-core machine. */
const BACKUP_DEADLINE_MS = 150_000;
const dirs: string[] = [];
const children = new Set<ChildProcess>();
afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "agentry-backup-"));
  dirs.push(dir);
  return dir;
}

interface Child {
  child: ChildProcess;
  lines: string[];
  exited: Promise<number | NodeJS.Signals>;
  /** Resolves once `test` holds for the lines printed so far (checked on every new line). */
  until(what: string, test: (lines: string[]) => boolean): Promise<void>;
}

function start(args: string[], env: Record<string, string> = {}): Child {
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, AGENTRY_LOG_LEVEL: "warn", ...env }, stdio: ["pipe", "pipe", "pipe"] });
  children.add(child);
  const lines: string[] = [];
  const waiters = new Set<() => void>();
  for (const stream of [child.stdout!, child.stderr!]) {
    createInterface({ input: stream }).on("line", (line) => {
      lines.push(line);
      for (const wake of waiters) wake();
    });
  }
  const exited = new Promise<number | NodeJS.Signals>((resolve) => child.once("exit", (code, signal) => resolve(signal ?? code ?? 0)));
  return {
    child,
    lines,
    exited,
    until(what, test) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (test(lines)) {
            waiters.delete(check);
            resolve();
          }
        };
        waiters.add(check);
        check();
        void exited.then((how) => {
          if (!waiters.has(check)) return;
          waiters.delete(check);
          reject(new Error(`exited (${how}) before ${what}:\n${lines.slice(-20).join("\n")}`));
        });
      });
    },
  };
}

/**
 * `node bin/agentry.mjs backup <destination>` against a database URL; its exit code and output.
 * A backup still running after the deadline (a copy that keeps starting over) is killed, and its
 * code is the signal.
 */
async function backup(databaseUrl: string, destination: string): Promise<{ code: number | NodeJS.Signals; output: string }> {
  const run = start(["bin/agentry.mjs", "backup", destination], { DATABASE_URL: databaseUrl });
  const deadline = setTimeout(() => run.child.kill("SIGKILL"), BACKUP_DEADLINE_MS);
  const code = await run.exited;
  clearTimeout(deadline);
  return { code, output: run.lines.join("\n") };
}

const committedCount = (lines: string[]) => lines.filter((line) => line.startsWith("committed ")).length;

async function migratedFile(dir: string): Promise<string> {
  const path = join(dir, "agentry.db");
  const db = await openDatabase({ url: `file:${path}` });
  try {
    await new MigrationManager(db).up();
  } finally {
    await db.close();
  }
  return path;
}

describe("agentry backup while runs are being written", () => {
  it("copies a consistent database holding every run committed before it started", async () => {
    const dir = tempDir();
    const source = await migratedFile(dir);
    const writer = start(["--import", "tsx", "test/cli/backup-consistency-writer.ts", source]);
    // ~1,500 runs of ~4 KB: the copy takes many steps of the backup API while the writer goes on.
    await writer.until("1,500 runs were committed", (lines) => committedCount(lines) >= 1500);

    const committedBefore = committedCount(writer.lines);
    const destination = join(dir, "backups", "copy.db");
    const result = await backup(`file:${source}`, destination);
    const committedByTheEnd = committedCount(writer.lines);
    writer.child.stdin!.write("stop\n");
    await writer.until("the writer stopped", (lines) => lines.includes("stopped"));
    expect(await writer.exited).toBe(0);

    expect(result.code, `the backup did not finish while runs were being written:\n${result.output}`).toBe(0);
    expect(result.output).toMatch(new RegExp(`Backed up \\d+ pages to ${destination.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`));
    // The writer was still committing while the backup ran.
    expect(committedByTheEnd).toBeGreaterThan(committedBefore);

    // One self-contained file: no write-ahead log beside it holds part of the copy.
    expect(existsSync(`${destination}-wal`)).toBe(false);
    const copy = new Database(destination, { readonly: true });
    try {
      expect(copy.pragma("integrity_check")).toEqual([{ integrity_check: "ok" }]);
      expect(copy.pragma("foreign_key_check")).toEqual([]);
      const indexes = (copy.prepare("SELECT run_id FROM agno_runs WHERE run_id LIKE 'backup-run-%'").pluck().all() as string[])
        .map((id) => Number(id.slice("backup-run-".length)))
        .sort((a, b) => a - b);
      // Every run committed before the backup started…
      expect(indexes.length).toBeGreaterThanOrEqual(committedBefore);
      // …and the runs of one moment: runs 0…n-1 exactly, none missing in between.
      expect(indexes).toEqual(indexes.map((_, i) => i));
      const orphans = copy
        .prepare("SELECT count(*) FROM agno_runs r WHERE r.run_id LIKE 'backup-run-%' AND NOT EXISTS (SELECT 1 FROM agno_sessions s WHERE s.session_id = r.session_id)")
        .pluck()
        .get();
      expect(orphans).toBe(0);
      const last = copy
        .prepare("SELECT run_data FROM agno_runs WHERE run_id = ?")
        .pluck()
        .get(`backup-run-${indexes.length - 1}`) as string;
      expect(JSON.parse(last).content).toMatch(new RegExp(`^${indexes.length - 1}: An answer`));
      // The schema came along: the copy is a database Agentry can open as it is.
      expect(copy.prepare("SELECT count(*) FROM agno_schema_versions").pluck().get()).toBeGreaterThan(0);
    } finally {
      copy.close();
    }
  }, 240_000);

  // The refusals, in process (the command prints the same messages after `agentry backup: `).
  it("refuses a destination that exists, leaving it untouched, and the database itself", async () => {
    const dir = tempDir();
    const source = await migratedFile(dir);
    const taken = join(dir, "taken.db");
    writeFileSync(taken, "not a database");
    await expect(backupSqlite({ url: `file:${source}`, destination: taken })).rejects.toThrow(`${taken} already exists; choose a new file name`);
    expect(readFileSync(taken, "utf8")).toBe("not a database");
    await expect(backupSqlite({ url: `file:${source}`, destination: source })).rejects.toThrow("The backup file must not be the database itself");
    await expect(backupSqlite({ url: `file:${join(dir, "missing.db")}`, destination: join(dir, "copy.db") })).rejects.toThrow(`No SQLite database at ${join(dir, "missing.db")}`);
    expect(existsSync(join(dir, "copy.db"))).toBe(false);
  });

  it("points a PostgreSQL database at pg_dump", async () => {
    const dir = tempDir();
    await expect(backupSqlite({ url: postgresUrl, destination: join(dir, "copy.db") })).rejects.toThrow("backup copies SQLite databases; for PostgreSQL use pg_dump (see docs/operations.md)");
    expect(existsSync(join(dir, "copy.db"))).toBe(false);
  });
});
