import type { Db } from "@/lib/db/open-database.ts";
import { columnsOf } from "@/lib/migrations/introspect.ts";

/**
 * A record of every row written to the domain tables, kept by triggers the fuzz suite installs in
 * its own database: one row in `fuzz_changes` per inserted, updated or deleted row. Reading one
 * count after each request tells whether that request changed anything, however small the change
 * (a value rewritten with itself counts too).
 */

/** Tables whose writes are bookkeeping a refused request may do (sign-in throttling). */
const BOOKKEEPING_TABLES = new Set(["agentry_login_attempts"]);
/** Columns whose updates are bookkeeping: a credential's last use is recorded on every request. */
const BOOKKEEPING_COLUMNS: Record<string, readonly string[]> = { agno_service_accounts: ["last_used_at"] };

async function domainTables(db: Db): Promise<string[]> {
  const rows =
    db.dialect === "sqlite"
      ? await db.sql.query<{ name: string }>(`SELECT name FROM sqlite_master WHERE type = 'table' AND (name LIKE 'agno\\_%' ESCAPE '\\' OR name LIKE 'agentry\\_%' ESCAPE '\\')`)
      : await db.sql.query<{ name: string }>(
          `SELECT table_name AS name FROM information_schema.tables
            WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'
              AND (table_name LIKE 'agno\\_%' OR table_name LIKE 'agentry\\_%')`,
        );
  return rows
    .map((r) => r.name)
    .filter((name) => !BOOKKEEPING_TABLES.has(name))
    .sort();
}

/** Installs the triggers; returns the tables they watch. */
export async function installChangeLog(db: Db): Promise<string[]> {
  const tables = await domainTables(db);
  await db.sql.exec(`CREATE TABLE fuzz_changes (tbl TEXT NOT NULL, op TEXT NOT NULL)`);
  if (db.dialect === "postgres") {
    await db.sql.exec(
      `CREATE FUNCTION fuzz_log() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN INSERT INTO fuzz_changes (tbl, op) VALUES (TG_TABLE_NAME, TG_OP); RETURN NULL; END $$`,
    );
  }
  for (const table of tables) {
    const skip = BOOKKEEPING_COLUMNS[table] ?? [];
    const watched = [...(await columnsOf(db, table)).keys()].filter((c) => !skip.includes(c));
    const updateOf = skip.length > 0 ? `UPDATE OF ${watched.map((c) => `"${c}"`).join(", ")}` : "UPDATE";
    if (db.dialect === "postgres") {
      await db.sql.exec(`CREATE TRIGGER "fuzz_${table}" AFTER INSERT OR DELETE OR ${updateOf} ON "${table}" FOR EACH ROW EXECUTE FUNCTION fuzz_log()`);
    } else {
      for (const [name, event, op] of [
        ["ins", "INSERT", "INSERT"],
        ["del", "DELETE", "DELETE"],
        ["upd", updateOf, "UPDATE"],
      ] as const) {
        await db.sql.exec(`CREATE TRIGGER "fuzz_${table}_${name}" AFTER ${event} ON "${table}" BEGIN INSERT INTO fuzz_changes (tbl, op) VALUES ('${table}', '${op}'); END`);
      }
    }
  }
  return tables;
}

/** The writes recorded since the last call (and forgets them). */
export async function takeChanges(db: Db): Promise<{ tbl: string; op: string }[]> {
  const rows = await db.sql.query<{ tbl: string; op: string }>(`SELECT tbl, op FROM fuzz_changes`);
  if (rows.length > 0) await db.sql.exec(`DELETE FROM fuzz_changes`);
  return rows;
}
