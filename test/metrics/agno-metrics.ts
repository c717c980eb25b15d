import { parseJson, parseSessionJson } from "@/lib/db/json.ts";
import type { Db } from "@/lib/db/open-database.ts";
import type { DataScope } from "@/lib/db/scope.ts";
import { agnoRun, seedSession, uid } from "../support/agno-runs.ts";
import { prng } from "../../bench/synthetic-text.ts";

/**
 * Agno's metrics computation, written out as its Python does it (its SQL adapters'
 * _get_all_sessions_for_metrics_calculation, fetch_all_sessions_data and calculate_date_metrics,
 * v3: runs from the runs table, one record per user), over every stored session and run. The
 * refresh's figures must equal these on the same data; this is the test's oracle, kept apart
 * from the SQL the refresh runs.
 */

export interface AgnoRecord {
  date: string;
  user_id: string;
  agent_sessions_count: number;
  team_sessions_count: number;
  workflow_sessions_count: number;
  agent_runs_count: number;
  team_runs_count: number;
  workflow_runs_count: number;
  users_count: number;
  token_metrics: Record<string, number>;
  model_metrics: { model_id: string; model_provider: string; count: number }[];
  completed: boolean;
}

const TOKEN_FIELDS = [
  "input_tokens",
  "output_tokens",
  "total_tokens",
  "audio_total_tokens",
  "audio_input_tokens",
  "audio_output_tokens",
  "cache_read_tokens",
  "cache_write_tokens",
  "reasoning_tokens",
];

/** `run_data["model"].astext` as SQLAlchemy reads it on PostgreSQL: null for a missing key or JSON null. */
const astext = (value: unknown): string | null => (value === undefined || value === null ? null : typeof value === "string" ? value : JSON.stringify(value));

export async function agnoMetrics(db: Db, todayDate: string): Promise<AgnoRecord[]> {
  const sessions = await db.sql.query<Record<string, unknown>>("SELECT session_id, user_id, session_data, created_at, session_type FROM agno_sessions");
  const runs = await db.sql.query<{ session_id: string; run_data: unknown }>("SELECT session_id, run_data FROM agno_runs");
  const runsBySession = new Map<string, { model: string | null; model_provider: string | null }[]>();
  for (const run of runs) {
    const data = (parseJson(run.run_data) ?? {}) as Record<string, unknown>;
    const list = runsBySession.get(run.session_id) ?? [];
    list.push({ model: astext(data.model), model_provider: astext(data.model_provider) });
    runsBySession.set(run.session_id, list);
  }
  if (sessions.length === 0) return [];
  // No metrics rows yet: from the first session's date through today.
  const first = Math.min(...sessions.map((s) => Number(s.created_at)));
  const dates: string[] = [];
  for (let day = Math.floor(first / 86400); day <= Math.floor(Date.parse(`${todayDate}T00:00:00Z`) / 86400_000); day++) dates.push(new Date(day * 86400_000).toISOString().slice(0, 10));
  const byDate = new Map(dates.map((d) => [d, { agent: [] as Record<string, unknown>[], team: [] as Record<string, unknown>[], workflow: [] as Record<string, unknown>[] }]));
  for (const s of sessions) {
    const date = new Date(Number(s.created_at) * 1000).toISOString().slice(0, 10);
    byDate.get(date)?.[s.session_type as "agent" | "team" | "workflow"].push(s);
  }
  const records: AgnoRecord[] = [];
  for (const date of dates) {
    const day = byDate.get(date)!;
    if (day.agent.length + day.team.length + day.workflow.length === 0) continue;
    const perUser = new Map<string, AgnoRecord & { model_counts: Map<string, number> }>();
    for (const type of ["agent", "team", "workflow"] as const) {
      for (const session of day[type]) {
        const key = (session.user_id as string | null) || "";
        let bucket = perUser.get(key);
        if (!bucket) {
          bucket = {
            date,
            user_id: key,
            agent_sessions_count: 0,
            team_sessions_count: 0,
            workflow_sessions_count: 0,
            agent_runs_count: 0,
            team_runs_count: 0,
            workflow_runs_count: 0,
            users_count: key === "" ? 0 : 1,
            token_metrics: Object.fromEntries(TOKEN_FIELDS.map((f) => [f, 0])),
            model_metrics: [],
            completed: date < todayDate,
            model_counts: new Map(),
          };
          perUser.set(key, bucket);
        }
        bucket[`${type}_sessions_count`] += 1;
        const sessionRuns = runsBySession.get(String(session.session_id)) ?? [];
        bucket[`${type}_runs_count`] += sessionRuns.length;
        for (const run of sessionRuns) {
          if (run.model) {
            // run.get("model_provider", "") on a dict whose key holds None: Python's f-string writes "None".
            const modelKey = `${run.model}:${run.model_provider === null ? "None" : run.model_provider}`;
            bucket.model_counts.set(modelKey, (bucket.model_counts.get(modelKey) ?? 0) + 1);
          }
        }
        const data = (parseSessionJson(session.session_data) ?? {}) as Record<string, unknown>;
        const metrics = (data.session_metrics ?? {}) as Record<string, unknown>;
        for (const f of TOKEN_FIELDS) bucket.token_metrics[f] += typeof metrics[f] === "number" ? (metrics[f] as number) : 0;
      }
    }
    for (const bucket of perUser.values()) {
      const { model_counts, ...record } = bucket;
      record.model_metrics = [...model_counts].map(([key, count]) => {
        const at = key.lastIndexOf(":");
        return { model_id: key.slice(0, at), model_provider: key.slice(at + 1), count };
      });
      records.push(record);
    }
  }
  return records;
}

const pick = <T>(next: () => number, items: readonly T[]): T => items[Math.floor(next() * items.length)];

/**
 * Writes `count` sessions spread over the days before `now` (and today), of every type and owner
 * (`users`, and none), each with 0–3 runs of assorted models and providers (a missing provider,
 * a missing or empty model, member runs of team sessions), some runs a day after their session,
 * and session_metrics with some fields missing. Returns what it wrote.
 */
export async function seedMixedSessions(db: Db, scope: DataScope, { users, count, seed, now, days = 3 }: { users: string[]; count: number; seed: number; now: number; days?: number }) {
  const next = prng(seed);
  const today = Math.floor(now / 86400_000) * 86400;
  const written: { sessionId: string; userId: string | null; createdAt: number; runs: Record<string, unknown>[] }[] = [];
  for (let i = 0; i < count; i++) {
    const type = pick(next, ["agent", "agent", "team", "workflow"] as const);
    const userId = pick(next, [...users, null]);
    const dayStart = today - Math.floor(next() * days) * 86400;
    // Today's sessions stay before now.
    const createdAt = dayStart + Math.floor(next() * Math.max(60, Math.min(86_000, Math.floor(now / 1000) - dayStart - 10)));
    const sessionId = uid("metrics-session");
    const sessionMetrics =
      next() < 0.15
        ? undefined
        : Object.fromEntries(["input_tokens", "output_tokens", "total_tokens", "cache_read_tokens", "reasoning_tokens"].filter(() => next() < 0.8).map((f) => [f, Math.floor(next() * 500)]));
    const runs: Record<string, unknown>[] = [];
    const runCount = Math.floor(next() * 4);
    for (let r = 0; r < runCount; r++) {
      // Some runs of yesterday's sessions happen the next day (their own day differs from the session's).
      const runAt = Math.min(createdAt + (next() < 0.2 ? 86400 : Math.floor(next() * 600)), Math.floor(now / 1000) - 1);
      const base = agnoRun({
        sessionId,
        createdAt: runAt,
        ...(type === "agent" ? { agentId: pick(next, ["assistant", "researcher"]) } : type === "team" ? { teamId: "squad" } : { workflowId: "pipeline" }),
      });
      const model = pick(next, ["gpt-4o-mini", "gpt-4o-mini", "claude-3-5-haiku", "", undefined]);
      const provider = pick(next, ["OpenAI", "Anthropic", undefined]);
      const cost = model === "gpt-4o-mini" && next() < 0.8 ? Math.round(next() * 1e6) / 1e8 : undefined;
      runs.push({
        ...base,
        ...(model !== undefined ? { model } : {}),
        ...(provider !== undefined ? { model_provider: provider } : {}),
        metrics: { input_tokens: 10 + r, output_tokens: 5, total_tokens: 15 + r, ...(cost !== undefined ? { cost } : {}) },
      });
      // A team run's member run (parent_run_id set): Agno counts it among the session's runs too.
      if (type === "team" && next() < 0.5) {
        runs.push({ ...agnoRun({ sessionId, createdAt: runAt, agentId: "member", parentRunId: String(base.run_id) }), model: "gpt-4o-mini", model_provider: "OpenAI" });
      }
    }
    await seedSession(db, {
      scope,
      session: {
        sessionId,
        sessionType: type,
        agentId: type === "agent" ? "assistant" : null,
        teamId: type === "team" ? "squad" : null,
        workflowId: type === "workflow" ? "pipeline" : null,
        userId,
        createdAt,
        sessionData: sessionMetrics === undefined ? { session_name: `s${i}` } : { session_name: `s${i}`, session_metrics: sessionMetrics },
      },
      runs,
    });
    written.push({ sessionId, userId, createdAt, runs });
  }
  return written;
}
