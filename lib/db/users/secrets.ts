import type { Db } from "../open-database.ts";

/**
 * A secret the server keeps for itself under `name`, created on first use. Every replica reads
 * the same row: the first insert wins (`ON CONFLICT DO NOTHING`) and everyone then reads it back.
 * Unscoped: server state, not a user's data.
 */
export async function getOrCreateSecret(db: Db, { name, generate }: { name: string; generate: () => string }): Promise<string> {
  await db.sql.exec(`INSERT INTO agentry_secrets (name, value, created_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING`, [name, generate(), Math.floor(Date.now() / 1000)]);
  const [row] = await db.sql.query<{ value: string }>(`SELECT value FROM agentry_secrets WHERE name = ?`, [name]);
  if (!row) throw new Error(`secret '${name}' could not be stored`);
  return row.value;
}
