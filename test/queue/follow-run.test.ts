import { describe, expect, it } from "vitest";
import { RedisCoordination } from "@/lib/coordination/redis-coordination.ts";
import { followRun } from "@/lib/coordination/follow-run.ts";
import { upsertRun, upsertSession } from "@/lib/db/index.ts";
import type { RunEvent } from "@/lib/runtime/events.ts";
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
