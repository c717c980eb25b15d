import { columnsOf, hasColumn } from "../introspect.ts";
import { JOBS, JOB_CANCEL_REQUESTED_AT, JOB_LEASE_LOSSES, JOB_LIVE_SESSION_INDEX, JOB_READY_INDEX, JOB_SHARED_IDEMPOTENCY_INDEX } from "../tables/specs.ts";
import { MigrationError, type MigrationStep } from "../types.ts";
import { addColumnIfMissing, addIndexIfMissing, dropIndexIfExists } from "./helpers.ts";
import { rebuildSqliteTable } from "./sqlite-rebuild.ts";

export const jobsSteps: MigrationStep[] = [
  {
    version: "3.0.0",
    description: "jobs count lost leases apart from attempts, record cancel intents, owner-less idempotency keys dedupe, claims read an index, and jobs that are not runs have no session",
    async up(ctx) {
      await addColumnIfMissing(ctx, "agno_jobs", JOB_LEASE_LOSSES);
      await addColumnIfMissing(ctx, "agno_jobs", JOB_CANCEL_REQUESTED_AT);
      const duplicates = await ctx.db.sql.query<{ idempotency_key: string; n: number }>(
        `SELECT idempotency_key, COUNT(*) AS n FROM agno_jobs WHERE user_id IS NULL AND idempotency_key IS NOT NULL
          GROUP BY idempotency_key HAVING COUNT(*) > 1 ORDER BY idempotency_key LIMIT 20`,
      );
      if (duplicates.length > 0) {
        throw new MigrationError(
          `agno_jobs has owner-less jobs sharing an Idempotency-Key, which the new unique index forbids: ` +
            `${duplicates.map((d) => `'${d.idempotency_key}' ×${d.n}`).join(", ")}. ` +
            "Delete the extra (finished) jobs, then run the migration again.",
          "agno_jobs",
          "3.0.0",
        );
      }
      // After the duplicate check (a SQLite rebuild recreates the unique indexes). A job of a kind that is not a run (an eval, a knowledge ingestion…) has no session: a
      // table created with session_id NOT NULL loses the constraint (Agno's writers always set it).
      if ((await columnsOf(ctx.db, "agno_jobs")).get("session_id")?.notNull) {
        if (ctx.db.dialect === "postgres") await ctx.db.sql.exec(`ALTER TABLE agno_jobs ALTER COLUMN session_id DROP NOT NULL`);
        else await rebuildSqliteTable(ctx, JOBS);
        ctx.log("agno_jobs: session_id may be NULL now (jobs that are not runs)");
      }
      await addIndexIfMissing(ctx, "agno_jobs", JOB_SHARED_IDEMPOTENCY_INDEX);
      await addIndexIfMissing(ctx, "agno_jobs", JOB_READY_INDEX);
      await addIndexIfMissing(ctx, "agno_jobs", JOB_LIVE_SESSION_INDEX);
    },
    async down(ctx) {
      const hasLosses = await hasColumn(ctx.db, "agno_jobs", JOB_LEASE_LOSSES.name);
      if (hasLosses) {
        // The column is NOT NULL DEFAULT 0: it holds data only where a lease was actually lost.
        const [row] = await ctx.db.sql.query<{ n: number }>(`SELECT COUNT(*) AS n FROM agno_jobs WHERE lease_losses <> 0`);
        if (Number(row?.n) > 0) throw new Error(`cannot drop agno_jobs.lease_losses: ${row?.n} jobs have lost a lease`);
      }
      await dropIndexIfExists(ctx, JOB_SHARED_IDEMPOTENCY_INDEX.name);
      await dropIndexIfExists(ctx, JOB_READY_INDEX.name);
      await dropIndexIfExists(ctx, JOB_LIVE_SESSION_INDEX.name);
      if (await hasColumn(ctx.db, "agno_jobs", JOB_CANCEL_REQUESTED_AT.name)) await ctx.db.sql.exec(`ALTER TABLE agno_jobs DROP COLUMN cancel_requested_at`);
      if (hasLosses) await ctx.db.sql.exec(`ALTER TABLE agno_jobs DROP COLUMN lease_losses`);
    },
  },
];
