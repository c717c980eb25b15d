import type { Db } from "../db/open-database.ts";
import { readSchemaVersions, stampSchemaVersion } from "../db/schema-versions/schema-versions.ts";
import { createTableStatements } from "./ddl.ts";
import { columnsOf, indexExists, tableExists } from "./introspect.ts";
import { TABLES, TABLE_TYPES } from "./registry.ts";
import type { LearningsRekeyReport } from "./steps/learnings-rekey.ts";
import { LEGACY_RUNS_CHECKED, repairLegacyRuns, type LegacyRunsRepair } from "./steps/legacy-runs-repair.ts";
import { SCHEMA_VERSIONS } from "./tables/specs.ts";
import { LATEST_VERSION, MigrationError, compareVersions, type Log, type MigrationContext, type MigrationStep, type TableMigrations } from "./types.ts";

async function lacksSpecParts(db: Db, table: TableMigrations): Promise<boolean> {
  const live = await columnsOf(db, table.spec.name);
  if (table.spec.columns.some((column) => !live.has(column.name))) return true;
  for (const index of table.spec.indexes ?? []) if (!(await indexExists(db, index.name))) return true;
  return false;
}

export interface MigrateOptions {
  /** Stop at this version (default: the latest). */
  targetVersion?: string;
  /** Table types to migrate (default: all), e.g. `["sessions", "runs"]`. */
  tables?: readonly string[];
  /**
   * Check every legacy runs blob against agno_runs even if this database was checked before
   * (`npx agentry migrate --repair-runs`); the runs outcome then carries what the pass did.
   */
  repairRuns?: boolean;
}

export interface TableOutcome {
  readonly tableType: string;
  readonly table: string;
  readonly from: string | null;
  readonly to: string;
  readonly action: "created" | "migrated" | "unchanged" | "reverted";
  /** agno_runs only: what the pass over the legacy blobs did, when one ran outside a step (or was asked for). */
  readonly repair?: LegacyRunsRepair;
  /** agno_learnings only: what its 3.0.0 step's re-key of `user`-namespace entity rows did, when it ran. */
  readonly rekey?: LearningsRekeyReport;
}

export interface MigrationManagerOptions {
  log?: Log;
  /** Called before each step runs; a test hook to force a failure at a chosen step. */
  beforeStep?: (table: string, step: MigrationStep) => void | Promise<void>;
  /** Called before each batch of legacy-runs repairs is written; a test hook to race a write. */
  beforeLegacyRunsWrite?: MigrationContext["beforeLegacyRunsWrite"];
}

/**
 * Brings every table to the schema this code expects, one table at a time. Each table is stamped
 * in agno_schema_versions as soon as it completes, so a failure leaves earlier tables migrated and
 * a rerun picks up where it stopped. An unstamped existing table is treated as pre-v3: all its
 * steps run, and every step is idempotent. A missing table is created at the current shape.
 */
export class MigrationManager {
  private readonly log: Log;

  constructor(
    private readonly db: Db,
    private readonly options: MigrationManagerOptions = {},
  ) {
    this.log = options.log ?? (() => undefined);
  }

  async up(options: MigrateOptions = {}): Promise<TableOutcome[]> {
    const target = options.targetVersion ?? LATEST_VERSION;
    this.assertKnownTarget(target);
    // The runs table's step (or afterCreate) runs the legacy-runs pass itself; it reports here what it did.
    let stepRepair: LegacyRunsRepair | undefined;
    let rekey: LearningsRekeyReport | undefined;
    const ctx: MigrationContext = {
      ...this.context(),
      reportLegacyRuns: (repair) => (stepRepair = repair),
      reportLearningsRekey: (report) => (rekey = report),
    };
    await this.ensureVersionsTable();
    const stamped = await readSchemaVersions(this.db);
    const outcomes: TableOutcome[] = [];
    for (const table of this.selectTables(options.tables)) {
      const from = stamped.get(table.spec.name) ?? null;
      if (!(await tableExists(this.db, table.spec.name))) {
        await this.db.sql.batch(createTableStatements(this.db.dialect, table.spec).map((text) => ({ text })));
        await table.afterCreate?.(ctx);
        await stampSchemaVersion(this.db, table.spec.name, LATEST_VERSION);
        this.log(`${table.spec.name}: created at ${LATEST_VERSION}`);
        outcomes.push({ tableType: table.tableType, table: table.spec.name, from, to: LATEST_VERSION, action: "created" });
        continue;
      }
      // A table stamped at the latest version by another build (Agno 3, an earlier Agentry) may
      // still lack a column or index this code's spec has: its latest steps run again (they are idempotent).
      const incomplete = from !== null && compareVersions(from, LATEST_VERSION) === 0 && compareVersions(target, LATEST_VERSION) === 0 && (await lacksSpecParts(this.db, table));
      if (from !== null && compareVersions(from, target) >= 0 && !incomplete) {
        outcomes.push({ tableType: table.tableType, table: table.spec.name, from, to: from, action: "unchanged" });
        continue;
      }
      const pending = table.steps.filter(
        (step) => (from === null || compareVersions(step.version, from) > 0 || (incomplete && compareVersions(step.version, from) === 0)) && compareVersions(step.version, target) <= 0,
      );
      for (const step of pending) {
        try {
          // Inside the try: a failure the hook forces is reported like any failing step.
          await this.options.beforeStep?.(table.spec.name, step);
          await step.up(ctx);
        } catch (error) {
          if (error instanceof MigrationError) throw error;
          throw new MigrationError(
            `Migrating ${table.spec.name} to ${step.version} (${step.description}) failed: ${(error as Error).message}. ` +
              "Tables before it are migrated and stamped; fix the cause and run the migration again.",
            table.spec.name,
            step.version,
          );
        }
        this.log(`${table.spec.name}: ${step.version} ${step.description}`);
      }
      await stampSchemaVersion(this.db, table.spec.name, target);
      outcomes.push({ tableType: table.tableType, table: table.spec.name, from, to: target, action: "migrated", ...(rekey ? { rekey } : {}) });
      rekey = undefined;
    }
    return this.withLegacyRunsRepaired(ctx, outcomes, {
      target,
      force: !!options.repairRuns,
      checked: stamped.has(LEGACY_RUNS_CHECKED),
      stepRepair,
    });
  }

  /**
   * A database stamped 3.0.0 by a build whose backfill missed runs (an earlier Agentry read Agno
   * 2.x SQLite's double-encoded blobs as empty) holds legacy runs only in the blobs: once agno_runs
   * is at the latest version, the legacy blobs are checked against it exactly once per `up()`. The
   * runs table's own step or afterCreate did it when the table was created or migrated (every
   * such path runs the 3.0.0 step); otherwise it runs here, unless this database was `checked`
   * before (its stamp, read with the others) and the pass is not forced. The outcome carries a
   * pass run here, and a step's pass only when forced (unforced, its log line reports it).
   */
  private async withLegacyRunsRepaired(
    ctx: MigrationContext,
    outcomes: TableOutcome[],
    { target, force, checked, stepRepair }: { target: string; force: boolean; checked: boolean; stepRepair: LegacyRunsRepair | undefined },
  ): Promise<TableOutcome[]> {
    const runs = outcomes.findIndex((o) => o.table === "agno_runs");
    if (runs === -1 || compareVersions(target, LATEST_VERSION) !== 0) return outcomes;
    const stepRan = outcomes[runs].action !== "unchanged";
    const repair = stepRan ? (force ? stepRepair : undefined) : force || !checked ? await repairLegacyRuns(ctx) : null;
    if (!repair) return outcomes;
    return outcomes.map((o, k) => (k === runs ? { ...o, repair } : o));
  }

  /** Reverses steps newer than `targetVersion`, newest first; refuses a step that cannot be reversed. */
  async down(options: { targetVersion: string; tables?: readonly string[] }): Promise<TableOutcome[]> {
    this.assertKnownTarget(options.targetVersion);
    const ctx = this.context();
    await this.ensureVersionsTable();
    const stamped = await readSchemaVersions(this.db);
    const outcomes: TableOutcome[] = [];
    for (const table of [...this.selectTables(options.tables)].reverse()) {
      const from = stamped.get(table.spec.name) ?? null;
      if (from === null || compareVersions(from, options.targetVersion) <= 0) continue;
      const steps = table.steps.filter((step) => compareVersions(step.version, options.targetVersion) > 0 && compareVersions(step.version, from) <= 0).reverse();
      for (const step of steps) {
        if (!step.down) {
          throw new MigrationError(`${table.spec.name} ${step.version} cannot be reversed: ${step.irreversibleBecause ?? "no down step"}`, table.spec.name, step.version);
        }
        await step.down(ctx);
      }
      await stampSchemaVersion(this.db, table.spec.name, options.targetVersion);
      outcomes.push({ tableType: table.tableType, table: table.spec.name, from, to: options.targetVersion, action: "reverted" });
    }
    return outcomes;
  }

  /** Tables whose stamped version is behind this code (or unstamped). */
  async pending(): Promise<{ table: string; version: string | null }[]> {
    if (!(await tableExists(this.db, SCHEMA_VERSIONS.name))) {
      return TABLES.map((t) => ({ table: t.spec.name, version: null }));
    }
    const stamped = await readSchemaVersions(this.db);
    return TABLES.filter((t) => {
      const version = stamped.get(t.spec.name);
      return version === undefined || compareVersions(version, LATEST_VERSION) < 0;
    }).map((t) => ({ table: t.spec.name, version: stamped.get(t.spec.name) ?? null }));
  }

  private context(): MigrationContext {
    return { db: this.db, log: this.log, beforeLegacyRunsWrite: this.options.beforeLegacyRunsWrite };
  }

  private async ensureVersionsTable(): Promise<void> {
    await this.db.sql.batch(createTableStatements(this.db.dialect, SCHEMA_VERSIONS).map((text) => ({ text })));
  }

  private selectTables(types?: readonly string[]): readonly TableMigrations[] {
    if (!types) return TABLES;
    const unknown = types.filter((type) => !TABLE_TYPES.includes(type));
    if (unknown.length > 0) {
      throw new MigrationError(`Unknown table type(s): ${unknown.join(", ")}. Known: ${TABLE_TYPES.join(", ")}`);
    }
    return TABLES.filter((t) => types.includes(t.tableType));
  }

  private assertKnownTarget(version: string): void {
    if (!/^\d+\.\d+\.\d+$/.test(version) || compareVersions(version, LATEST_VERSION) > 0) {
      throw new MigrationError(`Unknown target version '${version}': this Agentry knows versions up to ${LATEST_VERSION}`);
    }
  }
}
