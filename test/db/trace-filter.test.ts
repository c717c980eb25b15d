import { beforeAll, describe, expect, it } from "vitest";
import { filterSql, parseTraceFilter, pythonRepr, TraceFilterError, type TraceFilter } from "@/lib/db/traces/trace-filter.ts";
import { traceTime, type TraceRow } from "@/lib/db/traces/trace-rows.ts";
import { searchTraces, writeTraceBatch } from "@/lib/db/traces/traces.ts";
import { DIALECTS, useMigratedDb, type TestDb } from "../support/databases.ts";
import { adminScope, userScope } from "../support/scopes.ts";

const ALLOWED = "['agent_id', 'created_at', 'duration_ms', 'end_time', 'name', 'run_id', 'session_id', 'start_time', 'status', 'team_id', 'trace_id', 'user_id', 'workflow_id']";

/** The message a filter is refused with. */
function refusal(value: unknown): string {
  try {
    parseTraceFilter(value);
  } catch (error) {
    expect(error).toBeInstanceOf(TraceFilterError);
    return (error as Error).message;
  }
  throw new Error(`accepted: ${JSON.stringify(value)}`);
}

const eq = (key: string, value: unknown) => ({ op: "EQ", key, value });

/** `leaf` nested under `levels` NOTs: the leaf sits at depth `levels`. */
function nested(levels: number, leaf: unknown = eq("status", "OK")): unknown {
  let expression = leaf;
  for (let i = 0; i < levels; i++) expression = { op: "NOT", condition: expression };
  return expression;
}

describe("parseTraceFilter", () => {
  it("accepts every operator and normalizes datetime values to the stored UTC format", () => {
    for (const op of ["EQ", "NEQ", "GT", "GTE", "LT", "LTE", "CONTAINS", "STARTSWITH"]) {
      expect(parseTraceFilter({ op, key: "name", value: "x" })).toEqual({ op, key: "name", value: "x" });
    }
    expect(parseTraceFilter({ op: "GTE", key: "start_time", value: "2026-01-01T05:30:00+05:30" })).toEqual({ op: "GTE", key: "start_time", value: "2026-01-01T00:00:00.000000+00:00" });
    expect(parseTraceFilter({ op: "IN", key: "created_at", values: ["2026-01-01T00:00:00Z", "not a time"] })).toEqual({
      op: "IN",
      key: "created_at",
      values: ["2026-01-01T00:00:00.000000+00:00", "not a time"],
    });
    expect(parseTraceFilter({ op: "GT", key: "duration_ms", value: "1500" })).toEqual({ op: "GT", key: "duration_ms", value: 1500 });
    expect(parseTraceFilter({ op: "AND", conditions: [eq("status", "OK"), { op: "OR", conditions: [eq("agent_id", "a"), { op: "NOT", condition: eq("team_id", "t") }] }] })).toEqual({
      op: "AND",
      conditions: [
        { op: "EQ", key: "status", value: "OK" },
        {
          op: "OR",
          conditions: [
            { op: "EQ", key: "agent_id", value: "a" },
            { op: "NOT", condition: { op: "EQ", key: "team_id", value: "t" } },
          ],
        },
      ],
    });
  });

  it("refuses what Agno's converter refuses, with its messages", () => {
    expect(refusal(eq("password", "x"))).toBe(`Invalid filter field: 'password'. Allowed: ${ALLOWED}`);
    expect(refusal({ op: "IN", key: "secret", values: ["x"] })).toBe(`Invalid filter field: 'secret'. Allowed: ${ALLOWED}`);
    expect(refusal({ op: "LIKE", key: "name", value: "x" })).toBe("Unknown filter operator: LIKE");
    expect(refusal({ op: null })).toBe("Unknown filter operator: None");
    expect(refusal({ key: "name", value: "x" })).toBe("Invalid filter: must be a dict with 'op' key. Got: {'key': 'name', 'value': 'x'}");
    expect(refusal("status = 'OK'")).toBe(`Invalid filter: must be a dict with 'op' key. Got: "status = 'OK'"`);
    expect(refusal({ op: "EQ", key: "name" })).toBe("EQ filter requires 'key' and 'value' fields. Got: {'op': 'EQ', 'key': 'name'}");
    expect(refusal({ op: "GT", key: "name", value: null })).toBe("GT filter requires 'key' and 'value' fields. Got: {'op': 'GT', 'key': 'name', 'value': None}");
    expect(refusal({ op: "IN", key: "name" })).toBe("IN filter requires 'key' and 'values' fields. Got: {'op': 'IN', 'key': 'name'}");
    expect(refusal({ op: "AND", conditions: [] })).toBe("AND filter requires 'conditions' field. Got: {'op': 'AND', 'conditions': []}");
    expect(refusal({ op: "OR" })).toBe("OR filter requires 'conditions' field. Got: {'op': 'OR'}");
    expect(refusal({ op: "NOT", condition: {} })).toBe("NOT filter requires 'condition' field. Got: {'op': 'NOT', 'condition': {}}");
    expect(refusal({ op: "AND", conditions: [eq("status", "OK"), { op: "EQ", key: "nope", value: 1 }] })).toBe(`Invalid filter field: 'nope'. Allowed: ${ALLOWED}`);
    expect(refusal({ op: "GT", key: "duration_ms", value: "slow" })).toContain("expected a number");
    expect(refusal({ op: "EQ", key: "name", value: { nested: true } })).toContain("expected a string or a number");
    expect(refusal({ op: "IN", key: "name", values: "abc" })).toContain("must be a list");
  });

  it("allows nesting to depth 10 and refuses depth 11", () => {
    expect(() => parseTraceFilter(nested(10))).not.toThrow();
    expect(refusal(nested(11))).toBe("Filter expression exceeds maximum nesting depth of 10");
    let deep: unknown = eq("status", "OK");
    for (let i = 0; i < 11; i++) deep = { op: i % 2 ? "AND" : "OR", conditions: [deep] };
    expect(refusal(deep)).toBe("Filter expression exceeds maximum nesting depth of 10");
  });

  it("prints values as Python's repr does", () => {
    expect(pythonRepr({ a: [1, true, false, null, "it's", 'say "x"', "a\nb\\"] })).toBe(`{'a': [1, True, False, None, "it's", 'say "x"', 'a\\nb\\\\']}`);
  });

  it("builds the same parameterized SQL for both dialects, escaping LIKE wildcards", () => {
    const filter = parseTraceFilter({
      op: "AND",
      conditions: [
        { op: "CONTAINS", key: "name", value: "50%_Off" },
        { op: "NOT", condition: { op: "IN", key: "status", values: ["ERROR"] } },
        { op: "LTE", key: "duration_ms", value: 9 },
      ],
    });
    expect(filterSql(filter, "t")).toEqual({
      clause: "((LOWER(t.name) LIKE ? ESCAPE '\\') AND (NOT (t.status IN (?))) AND (t.duration_ms <= CAST(? AS NUMERIC)))",
      params: ["%50\\%\\_off%", "ERROR", 9],
    });
    expect(filterSql({ op: "IN", key: "run_id", values: [] })).toEqual({ clause: "(1 = 0)", params: [] });
  });
});

describe.each(DIALECTS)("trace filters on $name", (dialect) => {
  let db: TestDb;
  useMigratedDb(dialect, (opened) => (db = opened));
  const user = `filter-user-${Math.random().toString(36).slice(2, 8)}`;
  const base = Date.UTC(2026, 2, 1, 12);
  type Seed = { id: string; name: string; status: string; offset: number; duration: number; agent_id?: string | null; team_id?: string; workflow_id?: string; session_id: string | null };
  const seeds: Seed[] = [
    { id: "t1", name: "Research_Agent.run", status: "OK", offset: 0, duration: 999, agent_id: "research", session_id: "s-1" },
    { id: "t2", name: "Writer_Agent.arun", status: "ERROR", offset: 1000, duration: 1500, agent_id: "writer", session_id: "s-1" },
    { id: "t3", name: "Crew.run", status: "OK", offset: 2000, duration: 20, team_id: "crew", session_id: "s-2" },
    { id: "t4", name: "100%_done_Flow.run", status: "OK", offset: 3000, duration: 10_000, workflow_id: "flow", session_id: null },
    { id: "t5", name: "RESEARCH_helper.invoke", status: "ERROR", offset: 4000, duration: 5, agent_id: null, session_id: "s-3" },
  ];
  const rows: TraceRow[] = seeds.map((r) => ({
    trace_id: `${user}-${r.id}`,
    name: r.name,
    status: r.status as TraceRow["status"],
    start_time: traceTime(base + r.offset),
    end_time: traceTime(base + r.offset + r.duration),
    duration_ms: r.duration,
    run_id: `run-${r.id}`,
    session_id: r.session_id,
    user_id: user,
    agent_id: r.agent_id ?? null,
    team_id: r.team_id ?? null,
    workflow_id: r.workflow_id ?? null,
    created_at: traceTime(base + r.offset),
  }));

  beforeAll(async () => {
    if (dialect.skipReason) return;
    await writeTraceBatch(db, { traces: rows, spans: [] });
    // Another user's trace that would match most filters.
    await writeTraceBatch(db, { traces: [{ ...rows[0], trace_id: `${user}-other`, user_id: `${user}-other` }], spans: [] });
  });

  /** The ids (t1…t5) of the user's traces matching `expression`, newest first. */
  async function matching(expression: unknown): Promise<string[]> {
    const filter: TraceFilter = parseTraceFilter(expression);
    const { rows: found, totalCount } = await searchTraces(db, { scope: userScope(user), filter, page: 1, limit: 100 });
    expect(totalCount).toBe(found.length);
    return found.map((r) => r.trace_id.slice(user.length + 1));
  }

  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    it("compares with each operator", async () => {
      expect(await matching(eq("status", "ERROR"))).toEqual(["t5", "t2"]);
      expect(await matching({ op: "NEQ", key: "status", value: "ERROR" })).toEqual(["t4", "t3", "t1"]);
      // duration_ms compares as a number (as text, "999" > "1500").
      expect(await matching({ op: "GT", key: "duration_ms", value: 999 })).toEqual(["t4", "t2"]);
      expect(await matching({ op: "GTE", key: "duration_ms", value: "999" })).toEqual(["t4", "t2", "t1"]);
      expect(await matching({ op: "LT", key: "duration_ms", value: 20 })).toEqual(["t5"]);
      expect(await matching({ op: "LTE", key: "duration_ms", value: 20.5 })).toEqual(["t5", "t3"]);
      expect(await matching({ op: "GTE", key: "start_time", value: traceTime(base + 2000) })).toEqual(["t5", "t4", "t3"]);
      expect(await matching({ op: "LT", key: "end_time", value: traceTime(base + 2500) })).toEqual(["t3", "t1"]);
      // An offset is normalized to UTC before the string comparison.
      expect(await matching({ op: "GT", key: "created_at", value: "2026-03-01T13:00:02+01:00" })).toEqual(["t5", "t4"]);
      expect(await matching({ op: "EQ", key: "created_at", value: "2026-03-01T12:00:01Z" })).toEqual(["t2"]);
    });

    it("matches CONTAINS and STARTSWITH case-insensitively, with % and _ taken literally", async () => {
      expect(await matching({ op: "CONTAINS", key: "name", value: "research" })).toEqual(["t5", "t1"]);
      expect(await matching({ op: "CONTAINS", key: "name", value: "AGENT.A" })).toEqual(["t2"]);
      expect(await matching({ op: "STARTSWITH", key: "name", value: "research_" })).toEqual(["t5", "t1"]);
      expect(await matching({ op: "STARTSWITH", key: "name", value: "RESEARCH_A" })).toEqual(["t1"]);
      expect(await matching({ op: "CONTAINS", key: "name", value: "%" })).toEqual(["t4"]);
      expect(await matching({ op: "CONTAINS", key: "name", value: "0%_d" })).toEqual(["t4"]);
      expect(await matching({ op: "CONTAINS", key: "name", value: "h_a" })).toEqual(["t1"]);
      expect(await matching({ op: "CONTAINS", key: "name", value: "e_p" })).toEqual([]);
      expect(await matching({ op: "STARTSWITH", key: "name", value: "_" })).toEqual([]);
      expect(await matching({ op: "CONTAINS", key: "name", value: "\\" })).toEqual([]);
      expect(await matching({ op: "CONTAINS", key: "duration_ms", value: 99 })).toEqual(["t1"]);
    });

    it("supports IN, NOT, and AND/OR nesting (NULLs never match a comparison)", async () => {
      expect(await matching({ op: "IN", key: "agent_id", values: ["research", "writer", "nobody"] })).toEqual(["t2", "t1"]);
      expect(await matching({ op: "IN", key: "agent_id", values: [] })).toEqual([]);
      expect(await matching({ op: "NOT", condition: { op: "IN", key: "agent_id", values: [] } })).toEqual(["t5", "t4", "t3", "t2", "t1"]);
      expect(await matching({ op: "NOT", condition: eq("session_id", "s-1") })).toEqual(["t5", "t3"]);
      expect(
        await matching({
          op: "OR",
          conditions: [
            { op: "AND", conditions: [eq("status", "ERROR"), { op: "GT", key: "duration_ms", value: 100 }] },
            {
              op: "AND",
              conditions: [
                { op: "NOT", condition: eq("status", "ERROR") },
                { op: "STARTSWITH", key: "name", value: "crew" },
              ],
            },
          ],
        }),
      ).toEqual(["t3", "t2"]);
      expect(await matching(nested(10, eq("trace_id", `${user}-t3`)))).toEqual(["t3"]);
      expect(await matching(nested(9, eq("trace_id", `${user}-t3`)))).toEqual(["t5", "t4", "t2", "t1"]);
    });

    it("a member's search is its own traces AND the filter; an admin's covers everyone's", async () => {
      const filter = parseTraceFilter({ op: "CONTAINS", key: "trace_id", value: user });
      expect((await searchTraces(db, { scope: userScope(user), filter, page: 1, limit: 100 })).totalCount).toBe(5);
      expect((await searchTraces(db, { scope: adminScope(), filter, page: 1, limit: 100 })).totalCount).toBe(6);
      expect((await searchTraces(db, { scope: userScope(user), page: 2, limit: 2 })).rows.map((r) => r.trace_id)).toEqual([`${user}-t3`, `${user}-t2`]);
    });
  });
});
