import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { deleteRuns, getSession, readSchemaVersions, upsertRun } from "@/lib/db/index.ts";
import { canonicalJson, parseJson } from "@/lib/db/json.ts";
import type { Db } from "@/lib/db/open-database.ts";
import { LegacyCleanupRefusedError, cleanupLegacyRunsColumn, hasLegacyRunsColumn } from "@/lib/db/sessions/legacy-runs.ts";
import { columnsOf, hasColumn, indexExists, tableExists } from "@/lib/migrations/introspect.ts";
import { MigrationManager, type TableOutcome } from "@/lib/migrations/migration-manager.ts";
import { TABLES } from "@/lib/migrations/registry.ts";
import { DASHBOARD_AUTH_TABLES } from "@/lib/migrations/tables/dashboard-auth.ts";
import { QUARANTINE_NAMESPACE, userEntityKey } from "@/lib/migrations/steps/learnings.ts";
import { rekeyUserEntityLearnings } from "@/lib/migrations/steps/learnings-rekey.ts";
import { SCHEDULE_PROVENANCE } from "@/lib/migrations/tables/specs.ts";
import { LATEST_VERSION, MigrationError } from "@/lib/migrations/types.ts";
import { createSeededAgnoV2, type AgnoV2Seed, type AgnoV2Shape, type SeedOptions, type stampAgnoV2Versions } from "../fixtures/agno-v2.ts";
import { DIALECTS } from "../support/databases.ts";
import { ALL_TABLES, hasUniqueOn, rowCounts, uniqueKeys, v3ShapeProblems, withFreshDb } from "./helpers.ts";
import { adminScope } from "../support/scopes.ts";

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");
const digest = (value: unknown) => sha256(canonicalJson(value));
const TABLE_NAMES = TABLES.map((t) => t.spec.name);
const admin = adminScope();

type Stamp = Parameters<typeof stampAgnoV2Versions>[1] | null;

interface StartingPoint {
  name: string;
  /** null: an empty database. */
  v2: { shape?: AgnoV2Shape; stamp: Stamp; seed?: SeedOptions } | null;
}

const OLDEST_SHAPE: AgnoV2Shape = { sessionsPrimaryKey: false, memories: "2.0", approvalsRunStatus: false };

const STARTING_POINTS: StartingPoint[] = [
  { name: "an empty database", v2: null },
  { name: "an Agno v2 database stamped up to 2.5.6", v2: { stamp: "2.5.6" } },
  { name: "an unstamped Agno v2 database", v2: { stamp: null } },
  { name: "an unstamped pre-2.3 Agno v2 database (no session PK, old memories, approvals without run_status)", v2: { stamp: null, shape: OLDEST_SHAPE } },
  {
    name: "an Agno v2 database stamped per table at older versions",
    v2: {
      shape: OLDEST_SHAPE,
      stamp: {
        agno_sessions: "2.3.0",
        agno_memories: "2.0.0",
        agno_metrics: "2.3.0",
        agno_eval_runs: "2.3.0",
        agno_knowledge: "2.3.0",
        agno_culture: "2.3.0",
        agno_schedules: "2.5.0",
        agno_schedule_runs: "2.5.0",
        agno_approvals: "2.5.0",
        agno_learnings: "2.5.0",
      },
    },
  },
];

async function seededV2(db: Db, options: { shape?: AgnoV2Shape; stamp?: Stamp; seed?: SeedOptions } = {}): Promise<AgnoV2Seed> {
  return createSeededAgnoV2(db, { shape: options.shape, seed: options.seed, stamp: options.stamp === undefined ? "2.5.6" : options.stamp });
}

async function versions(db: Db): Promise<Record<string, string>> {
  return Object.fromEntries(await readSchemaVersions(db));
}

async function expectAllAtLatest(db: Db): Promise<void> {
  const stamped = await versions(db);
  expect(Object.fromEntries(TABLE_NAMES.map((t) => [t, stamped[t]]))).toEqual(Object.fromEntries(TABLE_NAMES.map((t) => [t, LATEST_VERSION])));
}

/** One comparable line per run: where it sits, what was denormalized, and a digest of its content. */
interface RunSummary {
  session_id: string;
  run_id: string;
  run_index: number;
  run_type: string;
  user_id: string | null;
  status: string | null;
  sha: string;
}

function expectedRunSummaries(seed: AgnoV2Seed): RunSummary[] {
  return seed.sessions.flatMap((session) =>
    session.runs.map((r, position) => ({
      session_id: session.session_id,
      run_id: String(r.run.run_id),
      run_index: position,
      run_type: r.expected.run_type,
      user_id: r.expected.user_id,
      status: r.expected.status,
      sha: digest(r.run),
    })),
  );
}

/** The legacy blobs as stored, session by session. */
async function legacyBlobs(db: Db): Promise<Map<string, Record<string, unknown>[]>> {
  const rows = await db.sql.query<{ session_id: string; runs: unknown }>("SELECT session_id, runs FROM agno_sessions WHERE runs IS NOT NULL ORDER BY session_id");
  return new Map(rows.map((row) => [row.session_id, (parseJson(row.runs) as Record<string, unknown>[]) ?? []]));
}

async function storedRunSummaries(db: Db): Promise<RunSummary[]> {
  const rows = await db.sql.query<{
    session_id: string;
    run_id: string;
    run_index: number;
    run_type: string;
    user_id: string | null;
    status: string | null;
    run_data: unknown;
  }>("SELECT session_id, run_id, run_index, run_type, user_id, status, run_data FROM agno_runs ORDER BY session_id, run_index");
  return rows.map((row) => ({
    session_id: row.session_id,
    run_id: row.run_id,
    run_index: Number(row.run_index),
    run_type: row.run_type,
    user_id: row.user_id,
    status: row.status,
    sha: digest(parseJson(row.run_data)),
  }));
}

/** Every legacy run is in agno_runs, byte-for-byte (canonically), at its blob position, and getSession returns the same runs in order. */
async function expectEveryLegacyRunPreserved(db: Db, seed: AgnoV2Seed): Promise<void> {
  expect(seed.totalRuns).toBeGreaterThanOrEqual(1000);
  // The blobs themselves are untouched (and were written intact).
  const blobs = await legacyBlobs(db);
  for (const session of seed.sessions) {
    expect(blobs.get(session.session_id)?.map(digest)).toEqual(session.runs.map((r) => digest(r.run)));
  }
  // Each blob run vs its agno_runs row: same position, same content, denormalized columns right.
  const fromBlobs: RunSummary[] = seed.sessions.flatMap((session) =>
    (blobs.get(session.session_id) ?? []).map((run, position) => {
      const expected = session.runs[position].expected;
      return {
        session_id: session.session_id,
        run_id: String(run.run_id),
        run_index: position,
        run_type: expected.run_type,
        user_id: expected.user_id,
        status: expected.status,
        sha: digest(run),
      };
    }),
  );
  const stored = await storedRunSummaries(db);
  expect(stored.length).toBe(seed.totalRuns);
  expect(stored).toEqual(fromBlobs);
  expect(stored).toEqual(expectedRunSummaries(seed));
  // The read path: the same runs, in the same order.
  for (const session of seed.sessions) {
    const read = await getSession(db, { scope: admin, sessionId: session.session_id });
    expect(read?.runs.map(digest), session.session_id).toEqual(session.runs.map((r) => digest(r.run)));
  }
  for (const sessionId of seed.sessionsWithoutRuns) {
    expect((await getSession(db, { scope: admin, sessionId }))?.runs).toEqual([]);
  }
  // The blob column stays as the backup.
  expect(await hasColumn(db, "agno_sessions", "runs")).toBe(true);
}

async function cultureRows(db: Db) {
  const rows = await db.sql.query<Record<string, unknown>>("SELECT * FROM agno_culture ORDER BY id");
  return rows.map((row) => ({ ...row, content: parseJson(row.content), metadata: parseJson(row.metadata) }));
}

describe.each(DIALECTS)("Agno v2 → v3 migration on $name", (dialect) => {
  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    describe.each(STARTING_POINTS)("from $name", ({ v2 }) => {
      it("stamps every table 3.0.0 at its v3 shape, keeps every legacy run, and a rerun changes nothing", async () => {
        await withFreshDb(dialect, async (db) => {
          const seed = v2 ? await seededV2(db, v2) : null;
          const cultureBefore = seed ? await cultureRows(db) : null;
          const cultureColumnsBefore = seed ? [...(await columnsOf(db, "agno_culture")).keys()].sort() : null;
          const versionsBefore: Record<string, string> = (await tableExists(db, "agno_schema_versions")) ? await versions(db) : {};

          const pendingBefore = await new MigrationManager(db).pending();
          expect(pendingBefore.map((p) => p.table)).toEqual(TABLE_NAMES);
          const outcomes = await new MigrationManager(db).up();
          expect(await new MigrationManager(db).pending()).toEqual([]);

          expect(outcomes.map((o) => o.table)).toEqual(TABLE_NAMES);
          expect(outcomes.every((o) => o.to === LATEST_VERSION)).toBe(true);
          if (!v2) expect(outcomes.every((o) => o.action === "created")).toBe(true);
          else {
            const created = outcomes.filter((o) => o.action === "created").map((o) => o.table);
            expect(created).toEqual([
              "agno_runs",
              "agno_jobs",
              "agno_service_accounts",
              "agno_traces",
              "agno_spans",
              "agno_components",
              "agno_component_configs",
              "agno_component_links",
              ...DASHBOARD_AUTH_TABLES.map((t) => t.name),
              "agentry_knowledge_uploads",
              "agentry_trace_drops",
            ]);
          }
          await expectAllAtLatest(db);
          expect(await v3ShapeProblems(db)).toEqual([]);
          if (db.dialect === "postgres") {
            // Agno 2.0's JSON columns end up JSONB, as the model declares.
            for (const table of TABLES) {
              const live = await columnsOf(db, table.spec.name);
              for (const column of table.spec.columns.filter((c) => c.type === "json")) {
                expect(live.get(column.name)?.type, `${table.spec.name}.${column.name}`).toBe("jsonb");
              }
            }
          }

          if (seed) {
            await expectEveryLegacyRunPreserved(db, seed);
            // agno_culture is no v3 table: left exactly as it was, rows, columns and stamp.
            expect(await tableExists(db, "agno_culture")).toBe(true);
            expect(await cultureRows(db)).toEqual(cultureBefore);
            expect([...(await columnsOf(db, "agno_culture")).keys()].sort()).toEqual(cultureColumnsBefore);
            expect((await versions(db)).agno_culture).toBe(versionsBefore.agno_culture);
          }

          // A rerun is a no-op.
          const countsBefore = await rowCounts(db, ALL_TABLES);
          const again = await new MigrationManager(db).up();
          expect(again.map((o) => [o.table, o.action])).toEqual(TABLE_NAMES.map((t) => [t, "unchanged"]));
          expect(await rowCounts(db, ALL_TABLES)).toEqual(countsBefore);
          await expectAllAtLatest(db);
          if (seed) expect(await storedRunSummaries(db)).toEqual(expectedRunSummaries(seed));
        });
      });
    });

    describe.each([
      { stamp: "2.5.6" as Stamp, label: "stamped" },
      { stamp: null as Stamp, label: "unstamped" },
    ])("a failing step ($label v2 database)", ({ stamp }) => {
      it("stops at the failing table, keeps earlier tables stamped, and a rerun finishes", async () => {
        await withFreshDb(dialect, async (db) => {
          const seed = await seededV2(db, { stamp });
          const failing = new MigrationManager(db, {
            beforeStep: (table) => {
              if (table === "agno_metrics") throw new Error("boom");
            },
          });
          const error = await failing.up().then(
            () => null,
            (e: unknown) => e,
          );
          expect(error).toBeInstanceOf(MigrationError);
          expect((error as MigrationError).table).toBe("agno_metrics");
          expect((error as Error).message).toContain("boom");

          const after = await versions(db);
          for (const table of ["agno_sessions", "agno_runs", "agno_memories"]) expect(after[table], table).toBe(LATEST_VERSION);
          const notReached = TABLE_NAMES.slice(TABLE_NAMES.indexOf("agno_metrics"));
          for (const table of notReached) expect(after[table], table).not.toBe(LATEST_VERSION);
          expect(after.agno_metrics).toBe(stamp === null ? undefined : "2.5.6");
          // The metrics table was not touched.
          expect(await hasColumn(db, "agno_metrics", "user_id")).toBe(false);
          expect(hasUniqueOn(await uniqueKeys(db, "agno_metrics"), ["date", "aggregation_period"])).toBe(true);

          const rerun = await new MigrationManager(db).up();
          const actions = Object.fromEntries(rerun.map((o: TableOutcome) => [o.table, o.action]));
          expect(actions).toMatchObject({ agno_sessions: "unchanged", agno_runs: "unchanged", agno_memories: "unchanged", agno_metrics: "migrated" });
          await expectAllAtLatest(db);
          expect(await v3ShapeProblems(db)).toEqual([]);
          expect(await storedRunSummaries(db)).toEqual(expectedRunSummaries(seed));
        });
      });
    });

    it("aborts on duplicate schedule names without stamping agno_schedules, and finishes once they are resolved", async () => {
      await withFreshDb(dialect, async (db) => {
        const seed = await seededV2(db, { seed: { duplicateScheduleName: true } });
        const duplicate = seed.duplicateSchedule!;

        const error = await new MigrationManager(db).up().then(
          () => null,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(MigrationError);
        expect((error as Error).message).toContain(`'${duplicate.name}'`);
        expect((error as MigrationError).table).toBe("agno_schedules");

        const stopped = await versions(db);
        expect(stopped.agno_schedules).toBe("2.5.6");
        for (const table of TABLE_NAMES.slice(0, TABLE_NAMES.indexOf("agno_schedules"))) expect(stopped[table], table).toBe(LATEST_VERSION);
        for (const table of TABLE_NAMES.slice(TABLE_NAMES.indexOf("agno_schedules"))) expect(stopped[table], table).not.toBe(LATEST_VERSION);
        expect(await hasColumn(db, "agno_schedules", "user_id")).toBe(false);

        await db.sql.exec("DELETE FROM agno_schedules WHERE id = ?", [duplicate.id]);
        await new MigrationManager(db).up();
        await expectAllAtLatest(db);
        expect(await v3ShapeProblems(db)).toEqual([]);

        const columns = await columnsOf(db, "agno_schedules");
        for (const name of ["user_id", ...SCHEDULE_PROVENANCE]) expect(columns.has(name), name).toBe(true);
        expect(SCHEDULE_PROVENANCE.length).toBe(8);
        expect(await indexExists(db, "idx_agno_schedules_managed_by")).toBe(true);
        expect(await indexExists(db, "idx_agno_schedules_target_id")).toBe(true);

        // Existing schedules and their runs are kept, owner-less, with NULL provenance.
        const schedules = await db.sql.query<Record<string, unknown>>("SELECT * FROM agno_schedules ORDER BY id");
        expect(schedules.map((s) => s.id)).toEqual(seed.schedules.map((s) => s.id));
        for (const schedule of schedules) {
          for (const name of ["user_id", ...SCHEDULE_PROVENANCE]) expect(schedule[name], `${schedule.id}.${name}`).toBeNull();
        }
        expect((await rowCounts(db, ["agno_schedule_runs"])).agno_schedule_runs).toBe(seed.scheduleRuns.length);

        // The v3 key: (user_id, name) per owner, and name alone among shared schedules.
        const insert = (id: string, userId: string | null, name: string) =>
          db.sql.exec(
            `INSERT INTO agno_schedules (id, user_id, name, method, endpoint, cron_expr, timezone, timeout_seconds, max_retries,
               retry_delay_seconds, enabled, created_at) VALUES (?, ?, ?, 'POST', '/x', '* * * * *', 'UTC', 60, 0, 0, ?, 1)`,
            [id, userId, name, true],
          );
        await insert("s-u1", "u1", duplicate.name);
        await insert("s-u2", "u2", duplicate.name);
        await expect(insert("s-u1-again", "u1", duplicate.name)).rejects.toThrow();
        await expect(insert("s-shared-again", null, duplicate.name)).rejects.toThrow();
      });
    });

    it("drops a v2 UNIQUE (name) on schedules without losing schedule runs", async () => {
      await withFreshDb(dialect, async (db) => {
        const seed = await seededV2(db, { shape: { scheduleNameUnique: true } });
        expect(hasUniqueOn(await uniqueKeys(db, "agno_schedules"), ["name"])).toBe(true);
        const before = await rowCounts(db, ["agno_schedules", "agno_schedule_runs"]);
        await new MigrationManager(db).up();
        await expectAllAtLatest(db);
        expect(await v3ShapeProblems(db)).toEqual([]);
        expect(await rowCounts(db, ["agno_schedules", "agno_schedule_runs"])).toEqual(before);
        expect(before.agno_schedule_runs).toBe(seed.scheduleRuns.length);
        // The schedule runs still cascade from their schedule.
        await db.sql.exec("DELETE FROM agno_schedules WHERE id = ?", [seed.schedules[0].id]);
        const [left] = await db.sql.query<{ n: number }>("SELECT COUNT(*) AS n FROM agno_schedule_runs WHERE schedule_id = ?", [seed.schedules[0].id]);
        expect(Number(left.n)).toBe(0);
      });
    });

    it("re-keys metrics by (user_id, date, aggregation_period); old rows belong to the shared '' bucket", async () => {
      await withFreshDb(dialect, async (db) => {
        const seed = await seededV2(db);
        await new MigrationManager(db).up();

        const rows = await db.sql.query<{ id: string; user_id: string; date: unknown }>("SELECT id, user_id, date FROM agno_metrics ORDER BY id");
        expect(rows.map((r) => [r.id, r.user_id])).toEqual(seed.metrics.map((m) => [m.id, ""]));
        const columns = await columnsOf(db, "agno_metrics");
        expect(columns.get("user_id")?.notNull).toBe(true);

        const insert = (id: string, userId: string, date: string) =>
          db.sql.exec(
            `INSERT INTO agno_metrics (id, user_id, token_metrics, model_metrics, date, aggregation_period, created_at, completed)
             VALUES (?, ?, ?, ?, ?, 'daily', 1, ?)`,
            [id, userId, {}, {}, date, false],
          );
        const day = seed.metrics[0].date;
        // Same (date, period) as the shared row, other users: allowed now.
        await insert("m-u1", "u1", day);
        await insert("m-u2", "u2", day);
        // Same (user_id, date, period): rejected, for users and for the shared bucket alike.
        await expect(insert("m-u1-again", "u1", day)).rejects.toThrow();
        await expect(insert("m-shared-again", "", day)).rejects.toThrow();
        // The column default is the shared bucket.
        await db.sql.exec(
          `INSERT INTO agno_metrics (id, token_metrics, model_metrics, date, aggregation_period, created_at, completed)
           VALUES ('m-default', ?, ?, '2030-01-01', 'daily', 1, ?)`,
          [{}, {}, false],
        );
        const [created] = await db.sql.query<{ user_id: string }>("SELECT user_id FROM agno_metrics WHERE id = 'm-default'");
        expect(created.user_id).toBe("");
      });
    });

    it("gives evals, knowledge and schedule runs a user_id (existing rows shared)", async () => {
      await withFreshDb(dialect, async (db) => {
        const seed = await seededV2(db);
        await new MigrationManager(db).up();
        const cases = [
          { table: "agno_eval_runs", key: "run_id", ids: seed.evals, index: "idx_agno_eval_runs_user_id" },
          { table: "agno_knowledge", key: "id", ids: seed.knowledge, index: "idx_agno_knowledge_user_id_linked_to" },
          { table: "agno_schedule_runs", key: "id", ids: seed.scheduleRuns.map((r) => r.id), index: "idx_agno_schedule_runs_user_id" },
        ];
        for (const { table, key, ids, index } of cases) {
          const columns = await columnsOf(db, table);
          expect(columns.get("user_id"), table).toMatchObject({ notNull: false });
          expect(await indexExists(db, index), index).toBe(true);
          const rows = await db.sql.query<Record<string, unknown>>(`SELECT ${key} AS id, user_id FROM ${table} ORDER BY ${key}`);
          expect(rows, table).toEqual([...ids].sort().map((id) => ({ id, user_id: null })));
        }
        // The approvals and memories of the v2 database are all still there.
        expect(await rowCounts(db, ["agno_approvals", "agno_memories"])).toEqual({ agno_approvals: seed.approvals.length, agno_memories: seed.memories.length });
      });
    });

    /**
     * One row per bucket of Agno's rekey_user_entity_learnings, besides the seed's re-keyed,
     * unowned, contaminated and global rows. `twin` rows sit on a v3 key before the pass.
     */
    async function seedEveryRekeyBucket(db: Db) {
      const insert = (row: { learning_id: string; namespace?: string; user_id: string | null; entity_type: string | null; entity_id: string | null; content: unknown; metadata?: unknown }) =>
        db.sql.exec(
          `INSERT INTO agno_learnings (learning_id, learning_type, namespace, user_id, agent_id, entity_id, entity_type, content, metadata, created_at, updated_at)
           VALUES (?, 'entity_memory', ?, ?, 'agent-0', ?, ?, ?, ?, 1000, 1000)`,
          [row.learning_id, row.namespace ?? "user", row.user_id, row.entity_id, row.entity_type, row.content, row.metadata ?? null],
        );
      const rows = {
        keyed: { learning_id: userEntityKey("u1", "person", "bob"), user_id: "u1", entity_type: "person", entity_id: "bob", content: { name: "Bob", user_id: "u1" } },
        contaminatedKeyed: { learning_id: userEntityKey("u1", "person", "carol"), user_id: "u1", entity_type: "person", entity_id: "carol", content: { name: "Carol", user_id: "u2" } },
        noEntityType: { learning_id: "entity_user_place_paris", user_id: "u1", entity_type: null, entity_id: "paris", content: { name: "Paris" } },
        notAnObject: { learning_id: "entity_user_place_rome", user_id: "u1", entity_type: "place", entity_id: "rome", content: ["Rome"] },
        merged: {
          learning_id: "entity_user_tool_vim",
          user_id: "u4",
          entity_type: "tool",
          entity_id: "vim",
          content: {
            name: "vim",
            aliases: ["vi"],
            user_id: "u4",
            description: "An editor",
            properties: { kind: "editor", licence: "vim" },
            facts: [
              { id: "a", content: "Uses  MODAL editing" },
              { id: "b", content: "Written in C" },
            ],
            events: [{ content: "9.0 released", date: "2022-06-28" }],
          },
          metadata: { source: "old" },
        },
        mergedTwin: {
          learning_id: userEntityKey("u4", "tool", "vim"),
          user_id: "u4",
          entity_type: "tool",
          entity_id: "vim",
          content: { name: "Vim", user_id: "u4", properties: { kind: "text editor" }, facts: [{ id: "z", content: "uses modal editing" }] },
          metadata: { source: "new" },
        },
        conflict: { learning_id: "entity_user_tool_emacs", user_id: "u5", entity_type: "tool", entity_id: "emacs", content: { name: "Emacs", user_id: "u5" } },
        // Content that is no object: malformed itself, and a conflict for the row whose key it holds.
        conflictTwin: { learning_id: userEntityKey("u5", "tool", "emacs"), user_id: "u5", entity_type: "tool", entity_id: "emacs", content: ["Emacs"] },
        // Its facts are no list, so folding it into its twin would drop them: the row fails.
        failed: { learning_id: "entity_user_tool_nano", user_id: "u6", entity_type: "tool", entity_id: "nano", content: { name: "nano", user_id: "u6", facts: "small" } },
        failedTwin: { learning_id: userEntityKey("u6", "tool", "nano"), user_id: "u6", entity_type: "tool", entity_id: "nano", content: { name: "nano", user_id: "u6" } },
        // A custom namespace keeps its key.
        custom: { learning_id: "entity_team_tool_git", namespace: "team", user_id: "u1", entity_type: "tool", entity_id: "git", content: { name: "git", user_id: "u2" } },
      };
      for (const row of Object.values(rows)) await insert(row);
      return rows;
    }

    /** A report with each list sorted: the pass walks keys in the database's collation order. */
    const sorted = (report: object | undefined) => report && Object.fromEntries(Object.entries(report).map(([k, v]) => [k, Array.isArray(v) ? [...v].sort() : v]));

    const readLearning = async (db: Db, id: string) => {
      const [row] = await db.sql.query<Record<string, unknown>>("SELECT * FROM agno_learnings WHERE learning_id = ?", [id]);
      return row ? { ...row, content: parseJson(row.content), metadata: parseJson(row.metadata), created_at: Number(row.created_at) } : undefined;
    };

    it("re-keys user entity learnings into Agno's buckets: re-keyed, merged, quarantined with their owner, unowned left in place, and refuses to reverse", async () => {
      await withFreshDb(dialect, async (db) => {
        const { learnings } = await seededV2(db);
        const rows = await seedEveryRekeyBucket(db);
        const outcomes = await new MigrationManager(db).up();
        const read = (id: string) => readLearning(db, id);

        expect(sorted(outcomes.find((o) => o.table === "agno_learnings")?.rekey)).toEqual(
          sorted({
            scanned: 13,
            keyed: 3,
            dry_run: false,
            rekeyed: [learnings.singleWriter.learning_id],
            merged: [rows.merged.learning_id],
            quarantined: [learnings.contaminated.learning_id],
            contaminated: [learnings.contaminated.learning_id],
            contaminated_keyed: [rows.contaminatedKeyed.learning_id],
            unowned: [learnings.unowned.learning_id],
            malformed: [rows.noEntityType.learning_id, rows.notAnObject.learning_id, rows.conflictTwin.learning_id],
            conflicts: [rows.conflict.learning_id],
            failed: [rows.failed.learning_id],
            purged: [],
          }),
        );

        // Re-keyed: the row itself moved to its owner's key, content and timestamps as they were.
        const key = userEntityKey("u1", "person", "alice");
        expect(key).toBe(`entity_user_${sha256("u1").slice(0, 16)}_person_alice`);
        expect(await read(learnings.singleWriter.learning_id)).toBeUndefined();
        expect(await read(key)).toMatchObject({ namespace: "user", user_id: "u1", entity_type: "person", entity_id: "alice", content: learnings.singleWriter.content, metadata: { source: "agent" } });

        // Contaminated: moved to the quarantine key and namespace, keeping its owner, content and metadata.
        expect(await read(learnings.contaminated.learning_id)).toBeUndefined();
        expect(QUARANTINE_NAMESPACE).toBe("quarantined_user");
        expect(await read("entity_quarantined_user_company_acme")).toMatchObject({
          namespace: "quarantined_user",
          user_id: "u1",
          entity_type: "company",
          entity_id: "acme",
          content: learnings.contaminated.content,
          metadata: { source: "agent" },
        });
        expect(await read(userEntityKey("u1", "company", "acme"))).toBeUndefined();
        expect(await read(userEntityKey("u2", "company", "acme"))).toBeUndefined();

        // Unowned: left where it was, untouched.
        expect(await read(learnings.unowned.learning_id)).toMatchObject({ namespace: "user", user_id: null, content: learnings.unowned.content });

        // Merged: folded into the row on its key, which wins conflicts; the source fills gaps, its
        // facts and events the target lacks first; the target's metadata kept.
        expect(await read(rows.merged.learning_id)).toBeUndefined();
        const merged = await read(rows.mergedTwin.learning_id);
        expect(merged).toMatchObject({ namespace: "user", user_id: "u4", metadata: { source: "new" } });
        expect(merged?.content).toEqual({
          name: "Vim",
          aliases: ["vi"],
          user_id: "u4",
          description: "An editor",
          properties: { kind: "text editor", licence: "vim" },
          facts: [
            { id: "b", content: "Written in C" },
            { id: "z", content: "uses modal editing" },
          ],
          events: [{ content: "9.0 released", date: "2022-06-28" }],
          relationships: [],
        });

        // Left alone: keyed, contaminated_keyed, malformed, conflicts (and their twins), failed, other namespaces.
        for (const row of [rows.keyed, rows.contaminatedKeyed, rows.noEntityType, rows.notAnObject, rows.conflict, rows.conflictTwin, rows.failed, rows.failedTwin, rows.custom]) {
          expect(await read(row.learning_id), row.learning_id).toMatchObject({ user_id: row.user_id, content: row.content });
        }
        expect(await read(learnings.global.learning_id)).toMatchObject({ namespace: "global", user_id: null, content: learnings.global.content });
        expect((await rowCounts(db, ["agno_learnings"])).agno_learnings).toBe(4 + Object.keys(rows).length - 1);

        // down() refuses: the old key collides users by design.
        const error = await new MigrationManager(db).down({ targetVersion: "2.5.6", tables: ["learnings"] }).then(
          () => null,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(MigrationError);
        expect((error as Error).message).toMatch(/cannot be reversed/);
        expect((await versions(db)).agno_learnings).toBe(LATEST_VERSION);
        expect(await read(key)).toBeDefined();
      });
    });

    it("re-key: a dry run reports the same buckets and writes nothing; purgeUnrecoverable deletes contaminated and unowned rows", async () => {
      await withFreshDb(dialect, async (db) => {
        const { learnings } = await seededV2(db);
        await new MigrationManager(db).up();
        const rows = await seedEveryRekeyBucket(db);
        // The pre-v3 rows again, as a v2 application still running would have written them.
        await db.sql.exec("DELETE FROM agno_learnings WHERE learning_id IN (?, ?)", [userEntityKey("u1", "person", "alice"), "entity_quarantined_user_company_acme"]);
        for (const row of [learnings.singleWriter, learnings.contaminated]) {
          await db.sql.exec(
            `INSERT INTO agno_learnings (learning_id, learning_type, namespace, user_id, entity_id, entity_type, content, created_at) VALUES (?, 'entity_memory', 'user', ?, ?, ?, ?, 1)`,
            [row.learning_id, row.user_id, row.entity_id, row.entity_type, row.content],
          );
        }
        const ids = async () => (await db.sql.query<{ learning_id: string }>("SELECT learning_id FROM agno_learnings ORDER BY learning_id")).map((r) => r.learning_id);
        const before = await ids();

        const dry = await rekeyUserEntityLearnings(db, { dryRun: true, purgeUnrecoverable: true });
        expect(await ids()).toEqual(before);
        const reportOnly = {
          scanned: 13,
          keyed: 3,
          rekeyed: [learnings.singleWriter.learning_id],
          contaminated: [learnings.contaminated.learning_id],
          contaminated_keyed: [rows.contaminatedKeyed.learning_id],
          unowned: [learnings.unowned.learning_id],
          malformed: [rows.noEntityType.learning_id, rows.notAnObject.learning_id, rows.conflictTwin.learning_id],
          purged: [learnings.contaminated.learning_id, learnings.unowned.learning_id],
        };
        // A dry run cannot know a merge will fail or its target not parse: both are reported merged.
        expect(sorted(dry)).toEqual(
          sorted({ ...reportOnly, dry_run: true, merged: [rows.conflict.learning_id, rows.merged.learning_id, rows.failed.learning_id], quarantined: [], conflicts: [], failed: [] }),
        );

        const applied = await rekeyUserEntityLearnings(db, { dryRun: false, purgeUnrecoverable: true });
        expect(sorted(applied)).toEqual(
          sorted({ ...reportOnly, dry_run: false, merged: [rows.merged.learning_id], quarantined: [], conflicts: [rows.conflict.learning_id], failed: [rows.failed.learning_id] }),
        );
        expect(await readLearning(db, learnings.contaminated.learning_id)).toBeUndefined();
        expect(await readLearning(db, learnings.unowned.learning_id)).toBeUndefined();
        expect(await readLearning(db, "entity_quarantined_user_company_acme")).toBeUndefined();
        expect(await readLearning(db, userEntityKey("u1", "person", "alice"))).toMatchObject({ user_id: "u1", content: learnings.singleWriter.content });
      });
    });

    it("never overwrites a row holding the quarantine key, and a rerun of the step moves nothing", async () => {
      await withFreshDb(dialect, async (db) => {
        const { learnings } = await seededV2(db);
        // A row already at the quarantine key (an earlier pass quarantined one of this entity).
        await db.sql.exec(
          `INSERT INTO agno_learnings (learning_id, learning_type, namespace, user_id, entity_id, entity_type, content, created_at)
           VALUES ('entity_quarantined_user_company_acme', 'entity_memory', 'quarantined_user', 'u9', 'acme', 'company', ?, 1)`,
          [{ note: "already here" }],
        );
        const before = (await rowCounts(db, ["agno_learnings"])).agno_learnings;
        const outcomes = await new MigrationManager(db).up();
        expect(outcomes.find((o) => o.table === "agno_learnings")?.rekey?.quarantined).toEqual([learnings.contaminated.learning_id]);

        expect((await readLearning(db, "entity_quarantined_user_company_acme"))?.content).toEqual({ note: "already here" });
        const suffixed = `entity_quarantined_user_company_acme_${sha256(learnings.contaminated.learning_id).slice(0, 16)}`;
        expect(await readLearning(db, suffixed)).toMatchObject({ namespace: "quarantined_user", user_id: "u1", content: learnings.contaminated.content });
        expect(await readLearning(db, learnings.contaminated.learning_id)).toBeUndefined();
        expect((await rowCounts(db, ["agno_learnings"])).agno_learnings).toBe(before);

        // The step again (as a rerun over an unstamped table runs it): nothing moves, nothing is lost.
        const ids = async () => (await db.sql.query<{ learning_id: string }>("SELECT learning_id FROM agno_learnings ORDER BY learning_id")).map((r) => r.learning_id);
        const idsBefore = await ids();
        await db.sql.exec("DELETE FROM agno_schema_versions WHERE table_name = 'agno_learnings'");
        const rerun = (await new MigrationManager(db).up({ tables: ["learnings"] }))[0];
        expect(rerun).toMatchObject({ table: "agno_learnings", action: "migrated", rekey: { scanned: 2, keyed: 1, rekeyed: [], quarantined: [], unowned: [learnings.unowned.learning_id] } });
        expect(await ids()).toEqual(idsBefore);
      });
    });

    describe("cleanupLegacyRunsColumn", () => {
      it("refuses without force", async () => {
        await withFreshDb(dialect, async (db) => {
          await seededV2(db);
          await new MigrationManager(db).up();
          await expect(cleanupLegacyRunsColumn(db)).rejects.toBeInstanceOf(LegacyCleanupRefusedError);
          await expect(cleanupLegacyRunsColumn(db, { force: false })).rejects.toBeInstanceOf(LegacyCleanupRefusedError);
          expect(await hasColumn(db, "agno_sessions", "runs")).toBe(true);
        });
      });

      it("with force after a complete migration, verifies every run and drops the column; sessions still read every run", async () => {
        await withFreshDb(dialect, async (db) => {
          const seed = await seededV2(db);
          await new MigrationManager(db).up();
          // Prime the read path's column-presence cache before the drop.
          expect(await hasLegacyRunsColumn(db)).toBe(true);

          expect(await cleanupLegacyRunsColumn(db, { force: true })).toEqual({ dropped: true, verifiedRuns: seed.totalRuns });
          expect(await hasColumn(db, "agno_sessions", "runs")).toBe(false);
          expect(await hasLegacyRunsColumn(db)).toBe(false);
          for (const session of seed.sessions) {
            const read = await getSession(db, { scope: admin, sessionId: session.session_id });
            expect(read?.runs.map(digest), session.session_id).toEqual(session.runs.map((r) => digest(r.run)));
          }
          // Nothing left to drop; the schema is still v3.
          expect(await cleanupLegacyRunsColumn(db, { force: true })).toEqual({ dropped: false, verifiedRuns: 0 });
          expect(await v3ShapeProblems(db)).toEqual([]);
          expect((await new MigrationManager(db).up()).every((o) => o.action === "unchanged")).toBe(true);
        });
      });

      it("with force refuses, naming the run, when a legacy run is missing from agno_runs", async () => {
        await withFreshDb(dialect, async (db) => {
          const seed = await seededV2(db);
          await new MigrationManager(db).up();
          const session = seed.sessions[17];
          const lost = String(session.runs[5].run.run_id);
          expect(await db.sql.exec("DELETE FROM agno_runs WHERE run_id = ?", [lost])).toBe(1);

          const error = await cleanupLegacyRunsColumn(db, { force: true }).then(
            () => null,
            (e: unknown) => e,
          );
          expect(error).toBeInstanceOf(LegacyCleanupRefusedError);
          expect((error as Error).message).toContain(`${session.session_id}/${lost}`);
          expect(await hasColumn(db, "agno_sessions", "runs")).toBe(true);
          // The backup still serves the lost run.
          const read = await getSession(db, { scope: admin, sessionId: session.session_id });
          expect(read?.runs.map(digest)).toEqual(session.runs.map((r) => digest(r.run)));
        });
      });
    });

    describe("reading sessions across the legacy blob and agno_runs", () => {
      it("merges by run_id with the agno_runs row winning, and still serves runs only the blob holds", async () => {
        await withFreshDb(dialect, async (db) => {
          const seed = await seededV2(db);
          await new MigrationManager(db).up();
          const session = seed.sessions.find((s) => s.session_type === "agent" && s.user_id !== null)!;
          const original = session.runs.map((r) => r.run);

          // A run updated after the migration: the row wins over the stale blob copy.
          const updatedRun: Record<string, unknown> = { ...original[3], content: "edited after the migration", status: "COMPLETED" };
          const { runIndex } = await upsertRun(db, {
            scope: admin,
            run: { runId: String(updatedRun.run_id), sessionId: session.session_id, runType: "agent", status: "COMPLETED", runData: updatedRun },
          });
          expect(runIndex).toBe(3);
          // A run whose row went missing: served from the blob, in its place.
          await db.sql.exec("DELETE FROM agno_runs WHERE run_id = ?", [String(original[6].run_id)]);
          // A run written after the migration: appended.
          const newRun = { run_id: "run-after-v3", agent_id: "agent-x", session_id: session.session_id, content: "new", status: "RUNNING" };
          await upsertRun(db, {
            scope: admin,
            run: { runId: newRun.run_id, sessionId: session.session_id, runType: "agent", status: "RUNNING", runData: newRun },
          });

          const read = await getSession(db, { scope: admin, sessionId: session.session_id });
          const expected = [...original.slice(0, 3), updatedRun, ...original.slice(4), newRun];
          expect(read?.runs.map((r) => r.run_id)).toEqual(expected.map((r) => r.run_id));
          expect(read?.runs.map(digest)).toEqual(expected.map(digest));
        });
      });

      it("serves a session written in the v2 shape after the migration from its blob alone", async () => {
        await withFreshDb(dialect, async (db) => {
          const seed = await seededV2(db);
          await new MigrationManager(db).up();
          // E.g. an Agno 2.x process still writing to the database: a blob, no agno_runs rows.
          const template = seed.sessions[0];
          const runs = template.runs.map((r, k) => ({ ...r.run, run_id: `late-${k}`, session_id: "sess-late" }));
          await db.sql.exec(`INSERT INTO agno_sessions (session_id, session_type, agent_id, user_id, runs, created_at) VALUES ('sess-late', 'agent', 'agent-0', 'user-1', ?, 1)`, [runs]);
          const read = await getSession(db, { scope: admin, sessionId: "sess-late" });
          expect(read?.runs.map(digest)).toEqual(runs.map(digest));
          // Until it is backfilled, forced cleanup refuses and names the unmigrated runs.
          await expect(cleanupLegacyRunsColumn(db, { force: true })).rejects.toThrow(/sess-late\/late-0/);
        });
      });

      it("a run deleted through deleteRuns does not come back from the blob", async () => {
        await withFreshDb(dialect, async (db) => {
          const seed = await seededV2(db);
          await new MigrationManager(db).up();
          const session = seed.sessions.find((s) => s.runs.length >= 3)!;
          const victim = String(session.runs[1].run.run_id);
          expect(await deleteRuns(db, { scope: admin, runIds: [victim] })).toBe(1);
          const read = await getSession(db, { scope: admin, sessionId: session.session_id });
          expect(read?.runs.map((r) => r.run_id)).not.toContain(victim);
          expect(read?.runs.length).toBe(session.runs.length - 1);
        });
      });

      it("a run added to a blob-only session goes after the blob's runs", async () => {
        await withFreshDb(dialect, async (db) => {
          const seed = await seededV2(db);
          await new MigrationManager(db).up();
          const runs = seed.sessions[0].runs.map((r, k) => ({ ...r.run, run_id: `blob-${k}`, session_id: "sess-blob" }));
          await db.sql.exec(`INSERT INTO agno_sessions (session_id, session_type, agent_id, user_id, runs, created_at) VALUES ('sess-blob', 'agent', 'agent-0', 'user-1', ?, 1)`, [runs]);
          const newRun = { run_id: "after-blob", session_id: "sess-blob", content: "new" };
          const { runIndex } = await upsertRun(db, {
            scope: admin,
            run: { runId: newRun.run_id, sessionId: "sess-blob", runType: "agent", status: "COMPLETED", runData: newRun },
          });
          expect(runIndex).toBe(runs.length);
          const read = await getSession(db, { scope: admin, sessionId: "sess-blob" });
          expect(read?.runs.map((r) => r.run_id)).toEqual([...runs.map((r) => r.run_id), "after-blob"]);
        });
      });

      it("migrating only the runs table makes an otherwise unmigrated v2 database readable, and the full run completes it", async () => {
        await withFreshDb(dialect, async (db) => {
          const seed = await seededV2(db);
          const outcomes = await new MigrationManager(db).up({ tables: ["runs"] });
          expect(outcomes).toEqual([{ tableType: "runs", table: "agno_runs", from: null, to: LATEST_VERSION, action: "created" }]);
          const stamped = await versions(db);
          expect(stamped.agno_sessions).toBe("2.5.6");
          expect(stamped.agno_metrics).toBe("2.5.6");
          expect(await hasColumn(db, "agno_metrics", "user_id")).toBe(false);

          expect(await storedRunSummaries(db)).toEqual(expectedRunSummaries(seed));
          for (const session of seed.sessions.slice(0, 30)) {
            const read = await getSession(db, { scope: admin, sessionId: session.session_id });
            expect(read?.runs.map(digest)).toEqual(session.runs.map((r) => digest(r.run)));
          }

          const rest = await new MigrationManager(db).up();
          expect(rest.find((o) => o.table === "agno_runs")?.action).toBe("unchanged");
          await expectAllAtLatest(db);
          await expectEveryLegacyRunPreserved(db, seed);
        });
      });
    });
  });
});
