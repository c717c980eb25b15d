import { describe, expect, it } from "vitest";
import { LegacyCleanupRefusedError, cleanupLegacyRunsColumn, getRun, upsertRun, type RunInput } from "@/lib/db/index.ts";
import { canonicalJson, parseJson } from "@/lib/db/json.ts";
import type { Db } from "@/lib/db/open-database.ts";
import { listRunSummaries } from "@/lib/db/runs/run-list.ts";
import { MigrationManager } from "@/lib/migrations/migration-manager.ts";
import { planLegacyRuns } from "@/lib/migrations/steps/legacy-runs-plan.ts";
import { LEGACY_RUNS_CHECKED } from "@/lib/migrations/steps/legacy-runs-repair.ts";
import { createRealAgnoV2, type RealV2Seed } from "../fixtures/agno-v2-real.ts";
import { DIALECTS, type TestDialect } from "../support/databases.ts";
import { cliAgentry, withApi, withFreshDb } from "./helpers.ts";
import { adminScope, userScope } from "../support/scopes.ts";

const admin = adminScope();
type Dict = Record<string, unknown>;
const AGENTS = [{ id: "helper", name: "Helper", model: null }];

describe("planLegacyRuns", () => {
  const runs = (...ids: string[]) => ids.map((run_id) => ({ run_id, content: run_id }));
  const rows = (...places: [string, number][]) => places.map(([runId, runIndex]) => ({ runId, runIndex }));

  it("inserts never-copied legacy runs at their positions and moves the rows written since after them, in their order", () => {
    const plan = planLegacyRuns(runs("a", "b", "c"), rows(["x", 0], ["y", 1], ["z", 4]));
    expect(plan.inserts.map((i) => [i.run.run_id, i.runIndex])).toEqual([
      ["a", 0],
      ["b", 1],
      ["c", 2],
    ]);
    expect(plan.moves).toEqual([
      { runId: "x", from: 0, to: 3 },
      { runId: "y", from: 1, to: 4 },
      { runId: "z", from: 4, to: 5 },
    ]);
    expect(plan.kept).toBe(0);
  });

  it("keeps a legacy run's own row (the row wins), moving it to its position when a newer row sits before it", () => {
    // "c" was continued after the broken migration: its row took index 1.
    const plan = planLegacyRuns(runs("a", "b", "c"), rows(["x", 0], ["c", 1], ["y", 2]));
    expect(plan.inserts.map((i) => [i.run.run_id, i.runIndex])).toEqual([
      ["a", 0],
      ["b", 1],
    ]);
    expect(plan.moves).toEqual([
      { runId: "c", from: 1, to: 2 },
      { runId: "x", from: 0, to: 3 },
      { runId: "y", from: 2, to: 4 },
    ]);
    expect(plan.kept).toBe(1);
  });

  it("leaves a healthy session alone, also after deletions shifted the blob", () => {
    // b was deleted from both; d and e were written after the migration.
    expect(planLegacyRuns(runs("a", "c"), rows(["a", 0], ["c", 2], ["d", 3], ["e", 7]))).toEqual({ inserts: [], moves: [], kept: 2 });
    expect(planLegacyRuns([], rows(["d", 0]))).toEqual({ inserts: [], moves: [], kept: 0 });
  });

  it("puts a run a pre-v3 writer appended to a shifted blob after the row before it", () => {
    const plan = planLegacyRuns(runs("a", "c", "late"), rows(["a", 0], ["c", 2], ["d", 3]));
    expect(plan.inserts.map((i) => [i.run.run_id, i.position, i.runIndex])).toEqual([["late", 2, 3]]);
    expect(plan.moves).toEqual([{ runId: "d", from: 3, to: 4 }]);
  });

  it("skips entries that are not runs and counts a run id seen twice once, at its first position", () => {
    const plan = planLegacyRuns([null, "text", { content: "no id" }, ...runs("a"), { run_id: "a", content: "again" }, ...runs("b")], []);
    expect(plan.inserts.map((i) => [i.run.run_id, i.run.content, i.runIndex])).toEqual([
      ["a", "a", 3],
      ["b", "b", 5],
    ]);
  });

  it("is idempotent: planning the result again gives an empty plan", () => {
    const legacy = runs("a", "b", "c", "d");
    const before = rows(["y", 0], ["c", 1], ["x", 2], ["z", 9]);
    const plan = planLegacyRuns(legacy, before);
    const moved = new Map(plan.moves.map((m) => [m.runId, m.to]));
    const after = [...before.map((r) => ({ runId: r.runId, runIndex: moved.get(r.runId) ?? r.runIndex })), ...plan.inserts.map((i) => ({ runId: String(i.run.run_id), runIndex: i.runIndex }))];
    expect(new Set(after.map((r) => r.runIndex)).size).toBe(after.length);
    expect(after.sort((p, q) => p.runIndex - q.runIndex).map((r) => r.runId)).toEqual(["a", "b", "c", "d", "y", "x", "z"]);
    expect(planLegacyRuns(legacy, after)).toEqual({ inserts: [], moves: [], kept: 4 });
  });
});

/** A database as the previous release left it, and what its history must be once repaired. */
interface Broken {
  seed: RealV2Seed;
  /** Per session, every run id in history order: the blob's runs, then the runs written since. */
  history: Map<string, string[]>;
  /** The run_data each run must end with. */
  data: Map<string, Dict>;
  /** The legacy blobs as stored, before anything was written. */
  blobs: Map<string, unknown>;
}

async function rawBlobs(db: Db): Promise<Map<string, unknown>> {
  const rows = await db.sql.query<{ session_id: string; runs: unknown }>("SELECT session_id, runs FROM agno_sessions ORDER BY session_id");
  return new Map(rows.map((row) => [row.session_id, row.runs]));
}

/**
 * Runs `fn` while the session's legacy blob is out of sight, the way the previous release saw a
 * double-encoded blob (as no runs): the runs it writes take run_index 0, 1, …
 */
async function asThePreviousReleaseSawIt<T>(db: Db, sessionId: string, fn: () => Promise<T>): Promise<T> {
  const [row] = await db.sql.query<{ runs: unknown }>("SELECT runs FROM agno_sessions WHERE session_id = ?", [sessionId]);
  await db.sql.exec("UPDATE agno_sessions SET runs = NULL WHERE session_id = ?", [sessionId]);
  try {
    return await fn();
  } finally {
    await db.sql.exec("UPDATE agno_sessions SET runs = ? WHERE session_id = ?", [row.runs, sessionId]);
  }
}

function newRun(sessionId: string, runId: string, type: "agent" | "team", extra: Dict = {}): RunInput {
  const component = type === "agent" ? { agent_id: "helper" } : { team_id: "research" };
  return {
    runId,
    sessionId,
    runType: type,
    ...(type === "agent" ? { agentId: "helper" } : { teamId: "research" }),
    status: "COMPLETED",
    runData: { run_id: runId, session_id: sessionId, ...component, status: "COMPLETED", content: `written after the upgrade: ${runId}`, created_at: 1_900_000_000, ...extra },
  };
}

/**
 * The exact-encoding Agno 2.x database, migrated by a release whose backfill copied nothing:
 * every table stamped 3.0.0, agno_runs empty, no check recorded. Then runs written by it (through
 * upsertRun, with run_index values 0, 1, … colliding with the blob's positions), one of them a
 * legacy run continued, and one written by this release before any repair (after the blob).
 */
async function brokenRelease(db: Db): Promise<Broken> {
  const seed = await createRealAgnoV2(db);
  const blobs = await rawBlobs(db);
  await new MigrationManager(db).up();
  await db.sql.exec("DELETE FROM agno_runs");
  await db.sql.exec("DELETE FROM agno_schema_versions WHERE table_name = ?", [LEGACY_RUNS_CHECKED]);

  const history = new Map<string, string[]>();
  const data = new Map<string, Dict>();
  for (const { session_id, run } of seed.runs) {
    history.set(session_id, [...(history.get(session_id) ?? []), String(run.run_id)]);
    data.set(String(run.run_id), run);
  }
  const write = async (run: RunInput, expectedIndex: number, { legacy = false } = {}) => {
    expect((await upsertRun(db, { scope: admin, run })).runIndex, run.runId).toBe(expectedIndex);
    data.set(run.runId, run.runData);
    if (!legacy) history.set(run.sessionId, [...(history.get(run.sessionId) ?? []), run.runId]);
  };
  const continued = seed.runs.find((r) => r.session_id === "agno-agent-0" && r.position === 2)!.run;
  await asThePreviousReleaseSawIt(db, "agno-agent-0", async () => {
    await write(newRun("agno-agent-0", "late-a0-0", "agent"), 0);
    await write({ ...newRun("agno-agent-0", String(continued.run_id), "agent"), runData: { ...continued, content: "continued after the upgrade" } }, 1, { legacy: true });
    await write(newRun("agno-agent-0", "late-a0-1", "agent"), 2);
  });
  await asThePreviousReleaseSawIt(db, "agno-team-0", () => write(newRun("agno-team-0", "late-t0-0", "team"), 0));
  // This release: a new run goes after the blob's runs and after the rows.
  await write(newRun("agno-agent-0", "now-a0", "agent"), 3);
  await write(newRun("agno-agent-empty", "now-empty", "agent"), 0);
  return { seed, history, data, blobs };
}

/** What the repair must report for brokenRelease(): the continued run kept, five rows moved. */
const expectedRepair = (broken: Broken) => ({ copied: broken.seed.runs.length - 1, moved: 5, kept: 1, skipped: 0 });

/** Every run is one row at its place in history, owned by its session's user, with its data; members stay nested. */
async function expectHistoryInRows(db: Db, broken: Broken): Promise<void> {
  const rows = await db.sql.query<Dict>("SELECT session_id, run_id, run_index, user_id, run_data FROM agno_runs ORDER BY session_id, run_index");
  const owners = new Map(broken.seed.sessions.map((s) => [s.session_id, s.user_id]));
  const expected = [...broken.history.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).flatMap(([sessionId, ids]) => ids.map((runId, runIndex) => [sessionId, runId, runIndex, owners.get(sessionId)]));
  expect(rows.map((row) => [row.session_id, row.run_id, Number(row.run_index), row.user_id])).toEqual(expected);
  for (const row of rows) expect(canonicalJson(parseJson(row.run_data)), String(row.run_id)).toBe(canonicalJson(broken.data.get(String(row.run_id))));
  const ids = new Set(rows.map((row) => String(row.run_id)));
  for (const member of broken.seed.memberRunIds) expect(ids.has(member), member).toBe(false);
}

/** What agno_runs holds, to the byte, to show a pass changed nothing. */
async function runRows(db: Db): Promise<unknown[]> {
  const rows = await db.sql.query<Dict>("SELECT * FROM agno_runs ORDER BY run_id");
  return rows.map((row) => ({ ...row, run_index: Number(row.run_index), run_data: canonicalJson(parseJson(row.run_data)) }));
}

const sessionType = (broken: Broken, sessionId: string) => broken.seed.sessions.find((s) => s.session_id === sessionId)!.session_type;

/** The Sessions API, the agent runs routes, and the dashboard's run reads all show the history. */
async function expectHistoryEverywhere(dialect: TestDialect, db: Db, broken: Broken): Promise<void> {
  await withApi(
    dialect,
    db,
    async (api) => {
      for (const [sessionId, ids] of broken.history) {
        const type = sessionType(broken, sessionId);
        const runs = await api("GET", `/sessions/${sessionId}/runs?type=${type}`);
        expect(runs.status).toBe(200);
        expect(
          (runs.body as Dict[]).map((r) => r.run_id),
          `GET /sessions/${sessionId}/runs`,
        ).toEqual(ids);
        if (type !== "agent") continue;
        const listed = await api("GET", `/agents/helper/runs?session_id=${sessionId}`);
        expect(listed.status).toBe(200);
        expect(
          (listed.body as Dict[]).map((r) => r.run_id),
          `GET /agents/helper/runs?session_id=${sessionId}`,
        ).toEqual(ids);
      }
      for (const runId of ["agno-agent-0-run-0", "late-a0-1"]) {
        const one = await api("GET", `/agents/helper/runs/${runId}?session_id=agno-agent-0`);
        expect([one.status, one.body.run_id]).toEqual([200, runId]);
        const inSession = await api("GET", `/sessions/agno-agent-0/runs/${runId}?type=agent`);
        expect([inSession.status, inSession.body.run_id]).toEqual([200, runId]);
      }
    },
    { agents: AGENTS },
  );
  // The dashboard's Runs list and run page.
  const { rows } = await listRunSummaries(db, { scope: admin, limit: 100 });
  expect(rows.map((r) => r.run_id).sort()).toEqual([...broken.history.values()].flat().sort());
  expect((await getRun(db, { scope: userScope("alice"), runId: "agno-agent-0-run-0" }))?.run_data.run_id).toBe("agno-agent-0-run-0");
}

describe.each(DIALECTS)("repairing the runs of a database the previous release migrated, on $name", (dialect) => {
  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    it("npx agentry migrate finds the uncopied runs and gives them back; --repair-runs again changes nothing; cleanup then succeeds", async () => {
      await withFreshDb(dialect, async (db) => {
        const broken = await brokenRelease(db);
        // Broken as reported: per-run reads show only the rows, and the cleanup refuses, pointing at the repair.
        await withApi(
          dialect,
          db,
          async (api) => {
            const listed = await api("GET", "/agents/helper/runs?session_id=agno-agent-0");
            expect((listed.body as Dict[]).map((r) => r.run_id)).toEqual(["late-a0-0", "agno-agent-0-run-2", "late-a0-1", "now-a0"]);
            expect((await api("GET", "/agents/helper/runs/agno-agent-0-run-0?session_id=agno-agent-0")).status).toBe(404);
          },
          { agents: AGENTS },
        );
        expect(await getRun(db, { scope: userScope("alice"), runId: "agno-agent-0-run-0" })).toBeNull();
        await expect(cleanupLegacyRunsColumn(db, { force: true })).rejects.toThrow(/npx agentry migrate --repair-runs/);

        const migrated = await cliAgentry(dialect, db, ["migrate"]);
        expect(migrated.code, migrated.output).toBe(0);
        const { copied, moved } = expectedRepair(broken);
        expect(migrated.output).toContain(`agno_runs: copied ${copied} legacy runs, moved ${moved} runs written since after them (1 already there, skipped)`);
        const withRunLists = broken.seed.sessions.filter((s) => Array.isArray(s.runs)).length;
        expect(migrated.output).toContain(`Legacy runs of ${withRunLists} sessions checked against agno_runs: copied ${copied} legacy runs`);
        await expectHistoryInRows(db, broken);
        await expectHistoryEverywhere(dialect, db, broken);
        // The blobs are the backup: never edited.
        expect(await rawBlobs(db)).toEqual(broken.blobs);

        const before = await runRows(db);
        const again = await cliAgentry(dialect, db, ["migrate", "--repair-runs"]);
        expect(again.code, again.output).toBe(0);
        expect(again.output).toContain(`copied 0 legacy runs (${broken.seed.runs.length} already there, skipped)`);
        expect(again.output).not.toContain("moved");
        expect(await runRows(db)).toEqual(before);

        const cleanup = await cliAgentry(dialect, db, ["cleanup-legacy-runs", "--force"]);
        expect(cleanup.code, cleanup.output).toBe(0);
        expect(cleanup.output).toContain(`Verified ${broken.seed.runs.length} legacy runs in agno_runs and dropped agno_sessions.runs.`);
        // With the blobs gone, agno_runs alone holds the same history.
        await expectHistoryEverywhere(dialect, db, broken);
      });
    }, 180_000);

    it("checks a database once: later migrations do not read the blobs again unless asked with repairRuns", async () => {
      await withFreshDb(dialect, async (db) => {
        const broken = await brokenRelease(db);
        const outcomes = await new MigrationManager(db).up();
        const runs = outcomes.find((o) => o.table === "agno_runs")!;
        expect(runs.action).toBe("unchanged");
        expect(runs.repair).toMatchObject({ ...expectedRepair(broken), unreadable: 0 });
        await expectHistoryInRows(db, broken);

        const before = await runRows(db);
        const again = await new MigrationManager(db).up();
        expect(again.every((o) => o.action === "unchanged" && o.repair === undefined)).toBe(true);
        expect(await runRows(db)).toEqual(before);

        // Checked once, not again on every start: a legacy run lost since stays lost until asked.
        expect(await db.sql.exec("DELETE FROM agno_runs WHERE run_id = 'agno-team-1-run-1'")).toBe(1);
        await new MigrationManager(db).up();
        expect(await db.sql.query("SELECT 1 FROM agno_runs WHERE run_id = 'agno-team-1-run-1'")).toEqual([]);
        const asked = await new MigrationManager(db).up({ repairRuns: true });
        expect(asked.find((o) => o.table === "agno_runs")!.repair).toMatchObject({ copied: 1, moved: 0, skipped: 0 });
        await expectHistoryInRows(db, broken);
      });
    }, 120_000);

    it("loses and duplicates no run when runs are written while it repairs: a batch whose slot was taken is redone", async () => {
      await withFreshDb(dialect, async (db) => {
        const broken = await brokenRelease(db);
        await asThePreviousReleaseSawIt(db, "agno-agent-1", async () => {
          for (const k of [0, 1]) expect((await upsertRun(db, { scope: admin, run: newRun("agno-agent-1", `late-a1-${k}`, "agent") })).runIndex).toBe(k);
        });
        const written = ["late-a1-0", "late-a1-1"];
        const write = async (runId: string) => {
          await upsertRun(db, { scope: admin, run: newRun("agno-agent-1", runId, "agent") });
          written.push(runId);
        };
        // Between planning and writing the batch: a new run takes index 3, where the plan moves late-a1-0.
        let raced = 0;
        const manager = new MigrationManager(db, {
          beforeLegacyRunsWrite: async (sessionIds) => {
            if (raced++ === 0 && sessionIds.includes("agno-agent-1")) await write("raced-a1");
          },
        });
        // And a writer running alongside the whole pass.
        const writer = (async () => {
          for (let k = 0; k < 8; k++) {
            await write(`during-a1-${k}`);
            await new Promise((resolve) => setTimeout(resolve, 1));
          }
        })();
        const [outcomes] = await Promise.all([manager.up(), writer]);
        expect(raced).toBeGreaterThan(0);
        const { copied, kept } = expectedRepair(broken);
        expect(outcomes.find((o) => o.table === "agno_runs")!.repair).toMatchObject({ copied, kept, skipped: 0 });

        const rows = await db.sql.query<{ run_id: string; run_index: number }>("SELECT run_id, run_index FROM agno_runs WHERE session_id = 'agno-agent-1' ORDER BY run_index");
        const legacy = broken.history.get("agno-agent-1")!;
        expect(rows.slice(0, legacy.length).map((r) => [r.run_id, Number(r.run_index)])).toEqual(legacy.map((id, k) => [id, k]));
        // The runs written since follow, in the order they were written.
        expect(rows.slice(legacy.length).map((r) => r.run_id)).toEqual(written);
        broken.history.delete("agno-agent-1");
        const [count] = await db.sql.query<{ n: number }>("SELECT COUNT(*) AS n FROM agno_runs WHERE session_id <> 'agno-agent-1'");
        expect(Number(count.n)).toBe([...broken.history.values()].flat().length);
        const again = await new MigrationManager(db).up({ repairRuns: true });
        expect(again.find((o) => o.table === "agno_runs")!.repair).toMatchObject({ copied: 0, moved: 0 });
      });
    }, 120_000);

    it("reports, and leaves in the blob, a legacy run whose run_id another session already stores", async () => {
      await withFreshDb(dialect, async (db) => {
        const broken = await brokenRelease(db);
        // The id of agno-agent-2's first legacy run, taken by a run of another session.
        await upsertRun(db, { scope: admin, run: newRun("agno-agent-1", "agno-agent-2-run-0", "agent") });
        const outcomes = await new MigrationManager(db).up();
        expect(outcomes.find((o) => o.table === "agno_runs")!.repair).toMatchObject({ copied: broken.seed.runs.length - 2, skipped: 1 });
        const [row] = await db.sql.query<Dict>("SELECT session_id FROM agno_runs WHERE run_id = 'agno-agent-2-run-0'");
        expect(row.session_id).toBe("agno-agent-1");
        const refused = await cleanupLegacyRunsColumn(db, { force: true }).then(
          () => null,
          (error: unknown) => error,
        );
        expect(refused).toBeInstanceOf(LegacyCleanupRefusedError);
        expect((refused as Error).message).toContain("agno-agent-2/agno-agent-2-run-0");
      });
    }, 120_000);
  });
});
