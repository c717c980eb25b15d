import { describe, expect, it } from "vitest";
import { RedisCoordination } from "@/lib/coordination/redis-coordination.ts";
import { followRun } from "@/lib/coordination/follow-run.ts";
import { upsertRun, upsertSession } from "@/lib/db/index.ts";
import type { RunEvent } from "@/lib/live-runs/events.ts";
import { openMigrated, sqliteDialect } from "../support/databases.ts";
import { openTestRedis, redisSkipReason, redisUrl } from "../support/redis.ts";
import { adminScope } from "../support/scopes.ts";

/** Tailing a durable run from Redis with the database as the truth behind it (real Redis, real SQLite). */
describe.skipIf(redisSkipReason !== null)("followRun", () => {
  const event = (i: number, name = "RunContent"): RunEvent => ({ event: name as RunEvent["event"], created_at: 0, event_index: i, content: `e${i}` });

  it("reads a stretch with a hole in it (publishes that failed) from the database: every event once, in order", async () => {
    const db = await openMigrated(sqliteDialect);
    const redis = openTestRedis("follow");
    const coordination = new RedisCoordination(redisUrl, redis.prefix);
    try {
      const session = await upsertSession(db, { scope: adminScope(), session: { sessionId: "s-follow", sessionType: "agent", agentId: "a" } });
      const all = [0, 1, 2, 3, 4, 5].map((i) => event(i)).concat(event(6, "RunCompleted"));
      await upsertRun(db, {
        scope: adminScope(),
        run: { runId: "r-follow", sessionId: session.session_id, runType: "agent", agentId: "a", status: "COMPLETED", runData: { events: all } },
      });
      // Redis got 0–2 and 5–6: 3 and 4 were lost while it failed.
      for (const i of [0, 1, 2, 5, 6]) coordination.publishEvent("r-follow", all[i]);
      await new Promise((r) => setTimeout(r, 100));
      const seen: number[] = [];
      for await (const e of followRun({ db, scope: adminScope(), runId: "r-follow", after: null, coordination, pollMs: 50, signal: new AbortController().signal, blockMs: 50 })) {
        seen.push(e.event_index as number);
      }
      expect(seen).toEqual([0, 1, 2, 3, 4, 5, 6]);
      // From an index: the rest, with no duplicate.
      const rest: number[] = [];
      for await (const e of followRun({ db, scope: adminScope(), runId: "r-follow", after: 4, coordination, pollMs: 50, signal: new AbortController().signal, blockMs: 50 })) {
        rest.push(e.event_index as number);
      }
      expect(rest).toEqual([5, 6]);
    } finally {
      await coordination.close();
      await redis.destroy();
      await db.destroy();
    }
  });
});

/** How a followed run ends when it was cancelled (the database alone, no Redis). */
describe("followRun of cancelled runs", () => {
  const ev = (i: number, name: string, fields: Record<string, unknown> = {}): RunEvent => ({ event: name as RunEvent["event"], created_at: 0, event_index: i, ...fields });
  const follow = async (db: Awaited<ReturnType<typeof openMigrated>>, runId: string, after: number | null = null) => {
    const seen: RunEvent[] = [];
    for await (const e of followRun({ db, scope: adminScope(), runId, after, coordination: null, pollMs: 20, signal: new AbortController().signal })) seen.push(e);
    return seen;
  };

  it("a durable run cancelled and followed: it reads on past RunCancelled to RunCompleted; one cancelled while queued, or after its pause, gets both made up; a stream that ended at WorkflowCancelled gets nothing after it", async () => {
    const db = await openMigrated(sqliteDialect);
    try {
      const agentSession = await upsertSession(db, { scope: adminScope(), session: { sessionId: `s-cancel-${Date.now()}`, sessionType: "agent", agentId: "a" } });
      const save = (runId: string, runData: Record<string, unknown>, kind: { runType: "agent"; agentId: string } | { runType: "workflow"; workflowId: string } = { runType: "agent", agentId: "a" }) =>
        upsertRun(db, { scope: adminScope(), run: { runId, sessionId: agentSession.session_id, ...kind, status: "CANCELLED", runData } });

      // Cancelled while running: its stored stream ends RunCancelled, RunCompleted.
      await save("r-ran", { events: [ev(0, "RunStarted"), ev(1, "RunCancelled", { reason: "Run cancelled by request" }), ev(2, "RunCompleted")] });
      expect((await follow(db, "r-ran")).map((e) => [e.event_index, e.event])).toEqual([
        [0, "RunStarted"],
        [1, "RunCancelled"],
        [2, "RunCompleted"],
      ]);
      expect((await follow(db, "r-ran", 1)).map((e) => e.event)).toEqual(["RunCompleted"]);

      // Cancelled while queued: no events of its own; the follower still gets a cancelled run's end.
      await save("r-queued", { error: { message: "Run cancelled by request", error_type: "run_cancelled" } });
      expect(await follow(db, "r-queued")).toMatchObject([
        { event: "RunCancelled", event_index: 0, run_id: "r-queued", agent_id: "a", reason: "Run cancelled by request", content: "Run cancelled by request" },
        { event: "RunCompleted", event_index: 1, run_id: "r-queued", agent_id: "a", content: "Run cancelled by request" },
      ]);

      // Cancelled while paused (no event of its own after RunPaused): the same end, after it.
      await save("r-paused", { events: [ev(0, "RunStarted"), ev(1, "RunPaused")], error: { message: "Run cancelled by request" } });
      expect((await follow(db, "r-paused", 1)).map((e) => [e.event_index, e.event])).toEqual([
        [2, "RunCancelled"],
        [3, "RunCompleted"],
      ]);

      // A workflow step a person rejected: WorkflowCancelled was its last event, and stays the last.
      await save(
        "r-rejected",
        { events: [ev(0, "WorkflowStarted"), ev(1, "WorkflowCancelled", { reason: "Workflow cancelled: Step 'publish' was rejected" })] },
        { runType: "workflow", workflowId: "w" },
      );
      expect((await follow(db, "r-rejected")).map((e) => e.event)).toEqual(["WorkflowStarted", "WorkflowCancelled"]);
    } finally {
      await db.destroy();
    }
  });
});
