import { describe, expect, it } from "vitest";
import { addSessionMetrics, createSession, deleteRuns, getSessionRow, listSessions, mergeRuns, readLegacyRuns, updateSession, upsertRun, type SessionWithRuns } from "@/lib/db/index.ts";
import { ConflictError } from "@/lib/errors/domain-errors.ts";
import { canonicalJson, parseJson, parseSessionJson } from "@/lib/db/json.ts";
import type { Db } from "@/lib/db/open-database.ts";
import { listSessionSummaries } from "@/lib/db/sessions/session-list.ts";
import { chatHistory, sessionName, toSessionDetail, toSessionSchema } from "@/lib/http/views/session-views.ts";
import { toSessionRun } from "@/lib/http/views/run-views.ts";
import { MigrationManager } from "@/lib/migrations/migration-manager.ts";
import { agnoSessionReader, createRealAgnoV2, pythonJsonDumps, type RealV2Seed, type RealV2Session } from "../fixtures/agno-v2-real.ts";
import { DIALECTS, type TestDialect } from "../support/databases.ts";
import { cliAgentry, withApi, withFreshDb } from "./helpers.ts";
import { adminScope } from "../support/scopes.ts";

const admin = adminScope();
const SESSION_COLUMNS = ["session_data", "agent_data", "team_data", "workflow_data", "metadata", "summary", "runs"] as const;
type Dict = Record<string, unknown>;

/** A value with every null-valued object key removed, at any depth (the API may leave those out). */
function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value as Dict)
        .filter(([, v]) => v !== null && v !== undefined)
        .map(([k, v]) => [k, withoutNulls(v)]),
    );
  }
  return value;
}
const same = (value: unknown) => canonicalJson(withoutNulls(JSON.parse(JSON.stringify(value ?? null))));

/** What the Sessions API shows of each session: detail, runs, and its list entry. */
interface SessionViews {
  detail: unknown;
  runs: unknown[];
  listed: unknown;
}

/**
 * The unmigrated database as the API's view functions show it: the session row and its legacy
 * blob read through the data layer (an unmigrated database is not served, 503) and mapped by the
 * same functions the routes use.
 */
async function viewsBeforeMigration(db: Db, seed: RealV2Seed): Promise<Map<string, SessionViews>> {
  const views = new Map<string, SessionViews>();
  for (const type of ["agent", "team", "workflow"] as const) {
    const { sessions } = await listSessions(db, { scope: admin, sessionType: type, page: 1, limit: 100 });
    for (const row of sessions) {
      const withRuns: SessionWithRuns = { ...row, runs: mergeRuns(await readLegacyRuns(db, row.session_id), []) };
      views.set(row.session_id, {
        detail: toSessionDetail(withRuns),
        runs: withRuns.runs.map((run) => toSessionRun(run, type)).filter((run) => run !== null),
        listed: toSessionSchema(row, sessionName(row, withRuns.runs)),
      });
    }
  }
  expect([...views.keys()].sort()).toEqual(seed.sessions.map((s) => s.session_id).sort());
  return views;
}

/** The views through the HTTP API over the migrated database. */
async function viewsThroughApi(dialect: TestDialect, db: Db, seed: RealV2Seed): Promise<Map<string, SessionViews>> {
  const views = new Map<string, SessionViews>();
  await withApi(dialect, db, async (api) => {
    for (const type of ["agent", "team", "workflow"] as const) {
      const list = await api("GET", `/sessions?type=${type}&limit=100&page=1`);
      expect(list.status, JSON.stringify(list.body)).toBe(200);
      for (const listed of list.body.data as Dict[]) {
        const sessionId = String(listed.session_id);
        const detail = await api("GET", `/sessions/${sessionId}?type=${type}`);
        const runs = await api("GET", `/sessions/${sessionId}/runs?type=${type}`);
        expect([detail.status, runs.status], sessionId).toEqual([200, 200]);
        views.set(sessionId, { detail: detail.body, runs: runs.body, listed });
      }
    }
  });
  expect([...views.keys()].sort()).toEqual(seed.sessions.map((s) => s.session_id).sort());
  return views;
}

/** The views hold what Agno wrote, judged from the fixture's documents (not from storage). */
function expectViewsShowTheDocuments(views: Map<string, SessionViews>, seed: RealV2Seed): void {
  for (const session of seed.sessions) {
    const view = views.get(session.session_id)!;
    const detail = view.detail as Dict;
    const runs = session.runs ?? [];
    const storedName = session.session_data?.session_name;
    const firstInput = runs[0]?.input;
    if (typeof storedName !== "string" && session.session_type === "workflow" && typeof firstInput === "object") {
      // Named after its structured first input, as JSON (JSONB may order the keys its own way).
      for (const name of [detail.session_name, (view.listed as Dict).session_name]) {
        expect(canonicalJson(JSON.parse(String(name))), session.session_id).toBe(canonicalJson(firstInput));
      }
    } else {
      const expectedName =
        typeof storedName === "string"
          ? storedName
          : session.session_type === "workflow"
            ? String(firstInput)
            : String(((runs[0]?.messages as Dict[]) ?? []).find((m) => m.role === "user")?.content ?? "");
      expect(detail.session_name, session.session_id).toBe(expectedName);
      expect((view.listed as Dict).session_name, session.session_id).toBe(expectedName);
    }
    expect(same(detail.session_state), session.session_id).toBe(same(session.session_data?.session_state ?? null));
    expect(same(detail.metadata)).toBe(same(session.metadata));
    if (session.session_type === "workflow") {
      expect(same(detail.workflow_data)).toBe(same(session.workflow_data));
    } else {
      expect(same(detail.chat_history), session.session_id).toBe(same(chatHistory(runs, session.session_type)));
      if (runs.length > 0) expect((detail.chat_history as unknown[]).length, session.session_id).toBeGreaterThan(0);
      expect(same(detail.metrics)).toBe(same(session.session_data?.session_metrics ?? null));
      expect(same(detail.session_summary)).toBe(same(session.summary));
      if (session.session_type === "agent") expect(same(detail.agent_data)).toBe(same(session.agent_data));
      else expect(same(detail.team_data)).toBe(same(session.team_data));
    }
    expect(view.runs.map((run) => (run as Dict).run_id)).toEqual(runs.map((run) => run.run_id));
  }
}

function expectSameViews(before: Map<string, SessionViews>, after: Map<string, SessionViews>): void {
  for (const [sessionId, view] of before) {
    const now = after.get(sessionId)!;
    expect(same(now.detail), `GET /sessions/${sessionId}`).toBe(same(view.detail));
    expect(same(now.runs), `GET /sessions/${sessionId}/runs`).toBe(same(view.runs));
    expect(same(now.listed), `GET /sessions (${sessionId})`).toBe(same(view.listed));
  }
}

async function rawSessionColumns(db: Db): Promise<Map<string, Dict>> {
  const rows = await db.sql.query<Dict>(`SELECT session_id, ${SESSION_COLUMNS.join(", ")} FROM agno_sessions ORDER BY session_id`);
  return new Map(rows.map((row) => [String(row.session_id), row]));
}

/** Every top-level run is one row: run_data equal to the legacy run, at its blob position, owned by its session's user. */
async function expectEveryRunARow(db: Db, seed: RealV2Seed): Promise<void> {
  const rows = await db.sql.query<Dict>("SELECT run_id, session_id, run_index, run_type, user_id, parent_run_id, run_data FROM agno_runs ORDER BY session_id, run_index");
  const expected = [...seed.runs].sort((a, b) => (a.session_id < b.session_id ? -1 : a.session_id > b.session_id ? 1 : a.position - b.position));
  expect(rows.length).toBe(expected.length);
  expect(rows.map((row) => [row.session_id, row.run_id, Number(row.run_index), row.user_id])).toEqual(expected.map((r) => [r.session_id, r.run.run_id, r.position, r.user_id]));
  rows.forEach((row, k) => {
    expect(canonicalJson(parseJson(row.run_data)), String(row.run_id)).toBe(canonicalJson(expected[k].run));
  });
  // A run dict naming another user does not move the run out of its session's ownership.
  expect(rows.filter((row) => row.session_id === "agno-agent-anon").map((row) => row.user_id)).toEqual([null, null]);
  // Team member runs stay nested in their team run.
  const ids = new Set(rows.map((row) => String(row.run_id)));
  expect(seed.memberRunIds.length).toBeGreaterThan(0);
  for (const member of seed.memberRunIds) expect(ids.has(member), member).toBe(false);
  for (const row of rows.filter((r) => r.run_type === "team")) {
    expect(((parseJson(row.run_data) as Dict).member_responses as Dict[]).map((m) => m.parent_run_id)).toEqual([row.run_id, row.run_id]);
  }
  const big = rows.find((row) => row.session_id === seed.bigSessionId && Number(row.run_index) === 0)!;
  expect(Buffer.byteLength(JSON.stringify(parseJson(big.run_data)))).toBeGreaterThan(1 << 20);
}

/**
 * Agno 2.x team runs, with their members nested in `member_responses`, read back through the team
 * routes exactly as Agno wrote them, once the team is configured again.
 */
async function expectTeamRunsUnchanged(dialect: TestDialect, db: Db, seed: RealV2Seed): Promise<void> {
  const teamRuns = seed.runs.filter((r) => typeof r.run.team_id === "string" && !r.run.agent_id);
  expect(teamRuns.length).toBeGreaterThan(0);
  const ids = [...new Set(teamRuns.map((r) => String(r.run.team_id)))];
  const teams = ids.map((id) => ({ id, name: String(teamRuns.find((r) => r.run.team_id === id)!.run.team_name ?? id), model: null, members: [{ id: `${id}-member`, name: "Member", model: null }] }));
  await withApi(
    dialect,
    db,
    async (api) => {
      for (const { run, session_id } of teamRuns) {
        const one = await api("GET", `/teams/${String(run.team_id)}/runs/${String(run.run_id)}?session_id=${session_id}`);
        expect(one.status, String(run.run_id)).toBe(200);
        expect(canonicalJson(one.body), String(run.run_id)).toBe(canonicalJson(run));
        const listed = await api("GET", `/teams/${String(run.team_id)}/runs?session_id=${session_id}`);
        expect((listed.body as Dict[]).map((r) => r.run_id)).toContain(run.run_id);
      }
    },
    { teams },
  );
}

/** `npx agentry migrate` against the database, as an operator runs it. */
const cliMigrate = (dialect: TestDialect, db: Db) => cliAgentry(dialect, db, ["migrate"]);

describe("the Agno 2.x fixture's encoder", () => {
  it("writes what Python's json.dumps writes", () => {
    expect(pythonJsonDumps({ a: 'é😀\n"\\', b: [1, 2.5, null, true, false], c: {} })).toBe('{"a": "\\u00e9\\ud83d\\ude00\\n\\"\\\\", "b": [1, 2.5, null, true, false], "c": {}}');
    // The sessions columns on SQLite: json.dumps by Agno, then again by SQLAlchemy.
    expect(pythonJsonDumps(pythonJsonDumps([{ run_id: "r1" }]))).toBe('"[{\\"run_id\\": \\"r1\\"}]"');
    expect(parseSessionJson(pythonJsonDumps(pythonJsonDumps([{ run_id: "r1", t: "漢😀" }])))).toEqual([{ run_id: "r1", t: "漢😀" }]);
  });
});

describe.each(DIALECTS)("upgrading a real Agno 2.x database on $name", (dialect) => {
  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    it("stores the sessions columns as Agno 2.x does: double-encoded on SQLite, JSONB on PostgreSQL", async () => {
      await withFreshDb(dialect, async (db) => {
        const seed = await createRealAgnoV2(db);
        const raw = await rawSessionColumns(db);
        const session = seed.sessions.find((s) => s.session_id === "agno-agent-0")!;
        const row = raw.get("agno-agent-0")!;
        if (db.dialect === "sqlite") {
          expect(row.session_data).toBe(pythonJsonDumps(pythonJsonDumps(session.session_data)));
          expect(typeof JSON.parse(String(row.runs))).toBe("string");
          expect(raw.get("agno-agent-anon")!.session_data).toBe("null");
          expect(Buffer.byteLength(String(raw.get(seed.bigSessionId)!.runs))).toBeGreaterThan(1 << 20);
        } else {
          expect(canonicalJson(row.session_data)).toBe(canonicalJson(session.session_data));
          expect(Array.isArray(row.runs)).toBe(true);
          const [nulls] = await db.sql.query<{ t: string | null }>("SELECT jsonb_typeof(session_data) AS t FROM agno_sessions WHERE session_id = 'agno-agent-anon'");
          expect(nulls.t).toBe("null");
        }
        // Columns the adapter's insert leaves out are SQL NULL.
        expect(row.team_data).toBeNull();
        const [versions] = await db.sql.query<{ n: number }>("SELECT COUNT(*) AS n FROM agno_schema_versions WHERE version = '2.5.6'");
        expect(Number(versions.n)).toBe(9);
      });
    });

    describe.each([
      {
        how: "MigrationManager",
        migrate: async (_dialect: TestDialect, db: Db) => {
          const lines: string[] = [];
          await new MigrationManager(db, { log: (line) => lines.push(line) }).up();
          return lines.join("\n");
        },
      },
      {
        how: "npx agentry migrate",
        migrate: async (dialect: TestDialect, db: Db) => {
          const { code, output } = await cliMigrate(dialect, db);
          expect(code, output).toBe(0);
          return output;
        },
      },
    ])("migrated with $how", ({ migrate }) => {
      it("copies every run, owned by its session, and the API shows every session as before", async () => {
        await withFreshDb(dialect, async (db) => {
          const seed = await createRealAgnoV2(db);
          const before = await viewsBeforeMigration(db, seed);
          expectViewsShowTheDocuments(before, seed);
          const columnsBefore = await rawSessionColumns(db);

          const report = await migrate(dialect, db);
          expect(report).toContain(`agno_runs: copied ${seed.runs.length} legacy runs`);
          expect(await new MigrationManager(db).pending()).toEqual([]);
          await expectEveryRunARow(db, seed);
          // The sessions' own columns are left as Agno wrote them (already one layer on PostgreSQL).
          expect(same([...(await rawSessionColumns(db)).entries()])).toBe(same([...columnsBefore.entries()]));

          const after = await viewsThroughApi(dialect, db, seed);
          expectViewsShowTheDocuments(after, seed);
          expectSameViews(before, after);
          await expectTeamRunsUnchanged(dialect, db, seed);

          // The dashboard's list reads names and token totals in SQL, through both encodings.
          const { rows } = await listSessionSummaries(db, { scope: admin, limit: 50 });
          for (const session of seed.sessions) {
            const summary = rows.find((r) => r.session_id === session.session_id)!;
            expect(summary.session_name, session.session_id).toBe((session.session_data?.session_name as string | undefined) ?? null);
            expect(summary.total_tokens, session.session_id).toBe(((session.session_data?.session_metrics as Dict | undefined)?.total_tokens as number | undefined) ?? null);
            expect(summary.run_count, session.session_id).toBe(session.runs?.length ?? 0);
          }
          const named = await listSessions(db, { scope: admin, sessionName: "KYŌTO" });
          expect(named.sessions.map((s) => s.session_id).sort()).toEqual(["agno-agent-0", "agno-agent-1", "agno-agent-2"]);

          // A rerun copies nothing and changes nothing.
          expect((await new MigrationManager(db).up()).every((o) => o.action === "unchanged")).toBe(true);
          await expectEveryRunARow(db, seed);
        });
      }, 180_000);
    });

    it("edits a double-encoded session in place: other session_data keys stay, and Agno's reader still decodes every column", async () => {
      await withFreshDb(dialect, async (db) => {
        const seed = await createRealAgnoV2(db);
        await new MigrationManager(db).up();
        const session = seed.sessions.find((s) => s.session_id === "agno-agent-1")!;
        const data = session.session_data!;

        const renamed = await updateSession(db, { scope: admin, sessionId: session.session_id, sessionName: 'Renamed 😀 "ok"' });
        expect(canonicalJson(renamed?.session_data)).toBe(canonicalJson({ ...data, session_name: 'Renamed 😀 "ok"' }));
        expect(renamed?.runs.map((r) => r.run_id)).toEqual(session.runs!.map((r) => r.run_id));
        await updateSession(db, { scope: admin, sessionId: session.session_id, sessionState: { visits: 4 }, metadata: { edited: true } });
        expect(await addSessionMetrics(db, { scope: admin, sessionId: "agno-agent-2", metrics: { input_tokens: 5, total_tokens: 7 } })).toBe(true);

        const [row] = await db.sql.query<Dict>(`SELECT ${SESSION_COLUMNS.join(", ")} FROM agno_sessions WHERE session_id = ?`, [session.session_id]);
        const expectedData = { ...data, session_name: 'Renamed 😀 "ok"', session_state: { visits: 4 } };
        expect(canonicalJson(agnoSessionReader(db.dialect, row.session_data))).toBe(canonicalJson(expectedData));
        expect(canonicalJson(agnoSessionReader(db.dialect, row.metadata))).toBe(canonicalJson({ edited: true }));
        // Columns Agentry did not write are still Agno's own encoding, and still decode.
        expect(canonicalJson(agnoSessionReader(db.dialect, row.agent_data))).toBe(canonicalJson(session.agent_data));
        expect(canonicalJson(agnoSessionReader(db.dialect, row.runs))).toBe(canonicalJson(session.runs));
        expect(canonicalJson((await getSessionRow(db, { scope: admin, sessionId: session.session_id }))?.session_data)).toBe(canonicalJson(expectedData));

        const metricsSession = seed.sessions.find((s) => s.session_id === "agno-agent-2")!;
        const [metricsRow] = await db.sql.query<Dict>("SELECT session_data FROM agno_sessions WHERE session_id = 'agno-agent-2'");
        const metrics = metricsSession.session_data!.session_metrics as Dict;
        expect(canonicalJson(agnoSessionReader(db.dialect, metricsRow.session_data))).toBe(
          canonicalJson({
            ...metricsSession.session_data,
            session_metrics: { ...metrics, input_tokens: (metrics.input_tokens as number) + 5, total_tokens: (metrics.total_tokens as number) + 7 },
          }),
        );

        // A new session, and a run deleted out of a legacy blob: what Agentry writes, Agno reads.
        await createSession(db, { scope: admin, session: { sessionId: "agentry-new", sessionType: "agent", sessionData: { session_name: "new ü" }, agentData: { name: "Helper" } } });
        const [created] = await db.sql.query<Dict>("SELECT session_data, agent_data FROM agno_sessions WHERE session_id = 'agentry-new'");
        expect(agnoSessionReader(db.dialect, created.session_data)).toEqual({ session_name: "new ü" });
        expect(agnoSessionReader(db.dialect, created.agent_data)).toEqual({ name: "Helper" });
        const victim = String(session.runs![1].run_id);
        expect(await deleteRuns(db, { scope: admin, runIds: [victim] })).toBe(1);
        const [blob] = await db.sql.query<Dict>("SELECT runs FROM agno_sessions WHERE session_id = ?", [session.session_id]);
        expect((agnoSessionReader(db.dialect, blob.runs) as Dict[]).map((r) => r.run_id)).toEqual(session.runs!.filter((r) => r.run_id !== victim).map((r) => r.run_id));
      });
    });

    it("refuses (409) to rename a session whose session_data is not a JSON object, and changes nothing", async () => {
      await withFreshDb(dialect, async (db) => {
        await createRealAgnoV2(db);
        await new MigrationManager(db).up();
        const stored = db.dialect === "sqlite" ? "not json at all" : JSON.stringify("just text");
        await db.sql.exec("UPDATE agno_sessions SET session_data = ? WHERE session_id = 'agno-agent-0'", [stored]);
        const before = await db.sql.query<Dict>("SELECT session_data, updated_at FROM agno_sessions WHERE session_id = 'agno-agent-0'");
        await expect(updateSession(db, { scope: admin, sessionId: "agno-agent-0", sessionName: "x" })).rejects.toBeInstanceOf(ConflictError);
        expect(await db.sql.query<Dict>("SELECT session_data, updated_at FROM agno_sessions WHERE session_id = 'agno-agent-0'")).toEqual(before);
        expect(await addSessionMetrics(db, { scope: admin, sessionId: "agno-agent-0", metrics: { total_tokens: 1 } })).toBe(false);
        expect(await db.sql.query<Dict>("SELECT session_data, updated_at FROM agno_sessions WHERE session_id = 'agno-agent-0'")).toEqual(before);
        // A missing session is still simply missing.
        expect(await updateSession(db, { scope: admin, sessionId: "no-such-session", sessionName: "x" })).toBeNull();
        // Over HTTP: a 409 naming the problem; a rename of an intact double-encoded session works.
        await withApi(dialect, db, async (api) => {
          const refused = await api("POST", "/sessions/agno-agent-0/rename?type=agent", { body: { session_name: "x" } });
          expect(refused.status).toBe(409);
          expect(refused.body.detail).toMatch(/agno-agent-0.*session_data.*not a JSON object/);
          const renamed = await api("POST", "/sessions/agno-agent-1/rename?type=agent", { body: { session_name: "Renamed" } });
          expect(renamed.status).toBe(200);
          expect(renamed.body).toMatchObject({ session_name: "Renamed", session_state: { visits: 3, tags: ["a", "ü"] } });
          expect(renamed.body.chat_history.length).toBeGreaterThan(0);
        });
        expect(await db.sql.query<Dict>("SELECT session_data, updated_at FROM agno_sessions WHERE session_id = 'agno-agent-0'")).toEqual(before);
      });
    });

    it("appends a new run after the runs of a session that an Agno 2.x process wrote after the migration", async () => {
      await withFreshDb(dialect, async (db) => {
        const seed = await createRealAgnoV2(db);
        await new MigrationManager(db).up();
        const template = seed.sessions.find((s) => s.session_id === "agno-agent-0")!;
        const runs = template.runs!.map((run, k) => ({ ...run, run_id: `late-${k}`, session_id: "agno-late" }));
        const encoded = db.dialect === "sqlite" ? pythonJsonDumps(pythonJsonDumps(runs)) : pythonJsonDumps(runs);
        await db.sql.exec("INSERT INTO agno_sessions (session_id, session_type, agent_id, user_id, runs, created_at, updated_at) VALUES ('agno-late', 'agent', 'helper', 'alice', ?, 1, 1)", [encoded]);
        const { runIndex } = await upsertRun(db, {
          scope: admin,
          run: { runId: "after-late", sessionId: "agno-late", runType: "agent", status: "COMPLETED", runData: { run_id: "after-late", content: "new" } },
        });
        expect(runIndex).toBe(runs.length);
      });
    });

    it.skipIf(dialect.name !== "postgres")("decodes PostgreSQL session values stored as JSON strings, keeping strings that hold no document", async () => {
      await withFreshDb(dialect, async (db) => {
        const seed = await createRealAgnoV2(db);
        const session: RealV2Session = seed.sessions.find((s) => s.session_id === "agno-agent-0")!;
        // As if copied from an Agno SQLite file: jsonb strings holding the documents.
        await db.sql.exec("UPDATE agno_sessions SET session_data = ?, agent_data = ?, runs = ? WHERE session_id = 'agno-agent-0'", [
          pythonJsonDumps(pythonJsonDumps(session.session_data)),
          pythonJsonDumps(pythonJsonDumps(session.agent_data)),
          pythonJsonDumps(pythonJsonDumps(session.runs)),
        ]);
        await db.sql.exec("UPDATE agno_sessions SET metadata = ? WHERE session_id = 'agno-agent-1'", [pythonJsonDumps("plain words, not JSON")]);
        const lines: string[] = [];
        await new MigrationManager(db, { log: (l) => lines.push(l) }).up();
        expect(lines.join("\n")).toContain("agno_sessions: decoded 2 double-encoded JSON values; 1 strings holding no JSON object or array left as they are");

        const [row] = await db.sql.query<Dict>(
          "SELECT jsonb_typeof(session_data) AS data, jsonb_typeof(agent_data) AS agent, jsonb_typeof(runs) AS runs FROM agno_sessions WHERE session_id = 'agno-agent-0'",
        );
        // The documents are one layer now; the runs backup is left as it was, and was still copied.
        expect(row).toEqual({ data: "object", agent: "object", runs: "string" });
        await expectEveryRunARow(db, seed);
        const [kept] = await db.sql.query<{ metadata: unknown }>("SELECT metadata FROM agno_sessions WHERE session_id = 'agno-agent-1'");
        expect(kept.metadata).toBe("plain words, not JSON");
        const named = await listSessions(db, { scope: admin, sessionName: "kyōto 0" });
        expect(named.sessions.map((s) => s.session_id)).toEqual(["agno-agent-0"]);
      });
    });
  });
});

describe("the migrated database as Agno's reader sees it", () => {
  it("single-encoded text, which Agentry writes, decodes to the document; so does Agno's own double encoding", () => {
    const document = { session_name: "ü 😀", session_metrics: { total_tokens: 3 } };
    expect(agnoSessionReader("sqlite", JSON.stringify(document))).toEqual(document);
    expect(agnoSessionReader("sqlite", pythonJsonDumps(pythonJsonDumps(document)))).toEqual(document);
    expect(agnoSessionReader("postgres", document)).toEqual(document);
    expect(agnoSessionReader("sqlite", "null")).toBeNull();
  });
});
