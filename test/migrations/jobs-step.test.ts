import { describe, expect, it } from "vitest";
import { createTableStatements } from "@/lib/migrations/ddl.ts";
import { columnsOf, hasColumn, indexExists } from "@/lib/migrations/introspect.ts";
import { MigrationManager } from "@/lib/migrations/migration-manager.ts";
import { jobsSteps } from "@/lib/migrations/steps/jobs.ts";
import { JOB_SHARED_IDEMPOTENCY_INDEX, JOBS } from "@/lib/migrations/tables/specs.ts";
import { DIALECTS } from "../support/databases.ts";
import { withFreshDb } from "./helpers.ts";

/** agno_jobs as a v3 Agno (or an earlier Agentry) made it: no lease_losses or cancel_requested_at, no owner-less key index. */
const PRE_LEASE_JOBS = {
  ...JOBS,
  columns: JOBS.columns.filter((c) => c.name !== "lease_losses" && c.name !== "cancel_requested_at"),
  indexes: JOBS.indexes.filter((i) => i.name !== JOB_SHARED_IDEMPOTENCY_INDEX.name),
};

describe.each(DIALECTS)("agno_jobs 3.0.0 step on $name", (dialect) => {
  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    it("adds lease_losses (0 on existing jobs) and the owner-less idempotency index, idempotently; down() drops them while no lease was lost", async () => {
      await withFreshDb(dialect, async (db) => {
        await db.sql.batch(createTableStatements(db.dialect, PRE_LEASE_JOBS).map((text) => ({ text })));
        await db.sql.exec(
          `INSERT INTO agno_jobs (id, component_type, job_type, component_id, status, available_at, created_at)
           VALUES ('j1', 'agent', 'run', 'assistant', 'queued', 0, 0)`,
        );
        const [outcome] = await new MigrationManager(db).up({ tables: ["jobs"] });
        expect(outcome).toMatchObject({ table: "agno_jobs", from: null, to: "3.0.0", action: "migrated" });
        expect((await columnsOf(db, "agno_jobs")).get("lease_losses")).toMatchObject({ notNull: true });
        expect(await db.sql.query(`SELECT lease_losses, cancel_requested_at FROM agno_jobs`)).toEqual([{ lease_losses: 0, cancel_requested_at: null }]);
        expect(await indexExists(db, JOB_SHARED_IDEMPOTENCY_INDEX.name)).toBe(true);
        // Idempotent: the step run again over the migrated table changes nothing.
        await jobsSteps[0].up({ db, log: () => undefined });
        expect(await db.sql.query(`SELECT lease_losses, cancel_requested_at FROM agno_jobs`)).toEqual([{ lease_losses: 0, cancel_requested_at: null }]);

        await db.sql.exec(`UPDATE agno_jobs SET lease_losses = 1`);
        await expect(new MigrationManager(db).down({ targetVersion: "2.5.6", tables: ["jobs"] })).rejects.toThrow(/lost a lease/);
        expect(await indexExists(db, JOB_SHARED_IDEMPOTENCY_INDEX.name)).toBe(true);
        await db.sql.exec(`UPDATE agno_jobs SET lease_losses = 0`);
        await new MigrationManager(db).down({ targetVersion: "2.5.6", tables: ["jobs"] });
        expect(await hasColumn(db, "agno_jobs", "lease_losses")).toBe(false);
        expect(await hasColumn(db, "agno_jobs", "cancel_requested_at")).toBe(false);
        expect(await indexExists(db, JOB_SHARED_IDEMPOTENCY_INDEX.name)).toBe(false);
      });
    });

    it("a table made with session_id NOT NULL loses the constraint, keeping its rows, so a job that is not a run can be stored", async () => {
      await withFreshDb(dialect, async (db) => {
        const strict = { ...PRE_LEASE_JOBS, columns: PRE_LEASE_JOBS.columns.map((c) => (c.name === "session_id" ? { ...c, notNull: true } : c)) };
        await db.sql.batch(createTableStatements(db.dialect, strict).map((text) => ({ text })));
        expect((await columnsOf(db, "agno_jobs")).get("session_id")).toMatchObject({ notNull: true });
        await db.sql.exec(
          `INSERT INTO agno_jobs (id, component_type, job_type, component_id, session_id, status, available_at, created_at)
           VALUES ('j1', 'agent', 'run', 'assistant', 's1', 'queued', 0, 0)`,
        );
        await new MigrationManager(db, { log: () => undefined }).up({ tables: ["jobs"] });
        expect((await columnsOf(db, "agno_jobs")).get("session_id")).toMatchObject({ notNull: false });
        expect(await db.sql.query(`SELECT id, session_id, lease_losses FROM agno_jobs`)).toEqual([{ id: "j1", session_id: "s1", lease_losses: 0 }]);
        await db.sql.exec(
          `INSERT INTO agno_jobs (id, component_type, job_type, component_id, session_id, status, available_at, created_at)
           VALUES ('j2', 'eval', 'eval', 'e1', NULL, 'queued', 0, 0)`,
        );
        expect(await indexExists(db, JOB_SHARED_IDEMPOTENCY_INDEX.name)).toBe(true);
      });
    });

    it("refuses, naming the keys, when owner-less jobs already share an Idempotency-Key", async () => {
      await withFreshDb(dialect, async (db) => {
        await db.sql.batch(createTableStatements(db.dialect, PRE_LEASE_JOBS).map((text) => ({ text })));
        for (const id of ["j1", "j2"]) {
          await db.sql.exec(
            `INSERT INTO agno_jobs (id, component_type, job_type, component_id, status, available_at, created_at, idempotency_key)
             VALUES (?, 'agent', 'run', 'assistant', 'completed', 0, 0, 'same-key')`,
            [id],
          );
        }
        await expect(new MigrationManager(db).up({ tables: ["jobs"] })).rejects.toThrow(/'same-key' ×2/);
        await db.sql.exec(`DELETE FROM agno_jobs WHERE id = 'j2'`);
        await new MigrationManager(db).up({ tables: ["jobs"] });
        expect(await indexExists(db, JOB_SHARED_IDEMPOTENCY_INDEX.name)).toBe(true);
      });
    });
  });
});

describe.each(DIALECTS)("a table stamped 3.0.0 by another build but missing a column ($name)", (dialect) => {
  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    it("gets its latest steps again, so the column arrives", async () => {
      const db = await dialect.open();
      try {
        await new MigrationManager(db).up();
        await db.sql.exec(`DROP INDEX IF EXISTS uq_agno_jobs_idempotency_key_shared`);
        await db.sql.exec(`ALTER TABLE agno_jobs DROP COLUMN lease_losses`);
        await db.sql.exec(`ALTER TABLE agno_jobs DROP COLUMN cancel_requested_at`);
        expect(await hasColumn(db, "agno_jobs", "lease_losses")).toBe(false);
        expect(await hasColumn(db, "agno_jobs", "cancel_requested_at")).toBe(false);
        const outcomes = await new MigrationManager(db).up();
        expect(outcomes.find((o) => o.table === "agno_jobs")?.action).toBe("migrated");
        expect(await hasColumn(db, "agno_jobs", "lease_losses")).toBe(true);
        expect(await hasColumn(db, "agno_jobs", "cancel_requested_at")).toBe(true);
        expect((await new MigrationManager(db).up()).every((o) => o.action === "unchanged")).toBe(true);
      } finally {
        await db.destroy();
      }
    });
  });
});
