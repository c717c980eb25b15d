/**
 * A separate OS process that claims jobs from a SQLite file until none are left, for the
 * cross-process claim test: `tsx claim-jobs-process.ts <file> <workerId> <batch> <now>`.
 * Prints `ready`, waits for a line on stdin (so every process starts claiming at once), then
 * prints the claimed ids as one JSON line.
 */
import { createInterface } from "node:readline";
import Database from "better-sqlite3";
import { claimJobs } from "../../lib/db/jobs/claim-jobs.ts";
import type { Db } from "../../lib/db/open-database.ts";
import { sqliteExecutor } from "../../lib/db/sql.ts";
import { RUN_JOBS } from "./run-jobs.ts";

const [path, workerId, batch, now] = process.argv.slice(2);
const connection = new Database(path, { timeout: 5000 });
const db = { dialect: "sqlite", sql: sqliteExecutor(connection) } as unknown as Db;
const lines = createInterface({ input: process.stdin });
process.stdout.write("ready\n");
await new Promise<void>((resolve) => lines.once("line", () => resolve()));
const claimed: { id: string; attempt: number }[] = [];
for (;;) {
  const jobs = await claimJobs(db, { ...RUN_JOBS, workerId, limit: Number(batch), now: Number(now), leaseSeconds: 60 });
  if (jobs.length === 0) break;
  claimed.push(...jobs.map((job) => ({ id: job.id, attempt: job.attempt })));
  await new Promise((resolve) => setTimeout(resolve, 1)); // let the other processes in between claims
}
connection.close();
lines.close();
process.stdout.write(`${JSON.stringify(claimed)}\n`);
