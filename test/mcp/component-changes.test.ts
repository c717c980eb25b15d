import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { componentsChanged, onComponentsChanged, type ComponentChange } from "@/lib/components/changes.ts";
import { closeRedisCoordinations } from "@/lib/coordination/redis-coordination.ts";
import type { Db } from "@/lib/db/open-database.ts";
import { DIALECTS } from "../support/databases.ts";
import { redisSkipReason, redisUrl } from "../support/redis.ts";
import { testSettings } from "../support/settings.ts";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { until } from "../support/until.ts";

/**
 * lib/components/changes.ts: a publish, rollback, archive or restore is heard by this process's
 * listeners at once, by other replicas' over Redis, and — Redis or not — by a periodic check of
 * the components table while anyone listens.
 */

let counter = 0;
const settingsOf = (env: Record<string, string> = {}) =>
  testSettings({ env: { DATABASE_URL: "file:/nonexistent/never-opened.db", ...env }, file: { database: { id: `changes-${process.pid}-${++counter}` } } });
const noDb = () => Promise.reject(new Error("no database in this test"));
const change = (id: string, action: ComponentChange["action"] = "published"): ComponentChange => ({ type: "agent", id, action });
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("component changes in one process", () => {
  it("a change reaches this deployment's listeners (not another deployment's) until they stop listening", async () => {
    const settings = settingsOf();
    const other = settingsOf();
    const heard: (ComponentChange | null)[] = [];
    const elsewhere: (ComponentChange | null)[] = [];
    const stop = onComponentsChanged(settings, noDb, (c) => heard.push(c));
    const stopOther = onComponentsChanged(other, noDb, (c) => elsewhere.push(c));
    componentsChanged(settings, change("a1"));
    componentsChanged(settings, change("a1", "archived"));
    await pause(10);
    expect(heard).toEqual([change("a1"), change("a1", "archived")]);
    expect(elsewhere).toEqual([]);
    stop();
    stop();
    componentsChanged(settings, change("a2"));
    await pause(10);
    expect(heard).toHaveLength(2);
    stopOther();
  });

  it("a listener that throws does not stop the others, nor the writer", async () => {
    const settings = settingsOf();
    const heard: string[] = [];
    const stops = [
      onComponentsChanged(settings, noDb, () => {
        throw new Error("boom");
      }),
      onComponentsChanged(settings, noDb, (c) => heard.push(c?.id ?? "?")),
    ];
    expect(() => componentsChanged(settings, change("x", "restored"))).not.toThrow();
    await pause(10);
    expect(heard).toEqual(["x"]);
    for (const stop of stops) stop();
  });
});

for (const dialect of DIALECTS) {
  describe.skipIf(dialect.skipReason !== null)(`the periodic check of agno_components (${dialect.name})`, () => {
    let app: TestApp;
    let db: Db;
    const now = () => Math.floor(Date.now() / 1000);

    beforeAll(async () => {
      app = await startTestApp({ dialect, agents: [] });
      db = await app.db();
    });
    afterAll(async () => {
      await app?.close();
    });

    it("sees a publish, a rollback, an archive and a restore written by a replica without Redis (null: which one it cannot tell), each once", async () => {
      const heard: (ComponentChange | null)[] = [];
      const stop = onComponentsChanged(
        app.settings,
        () => app.db(),
        (c) => heard.push(c),
        { pollMs: 50 },
      );
      try {
        await pause(150);
        expect(heard).toEqual([]);
        const id = `polled-${dialect.name}`;
        await db.sql.exec("INSERT INTO agno_components (component_id, component_type, name, current_version, created_at, updated_at) VALUES (?, 'agent', 'Polled', 1, ?, ?)", [id, now(), now()]);
        await until("the insert is seen", async () => heard.length === 1, 5_000);
        expect(heard).toEqual([null]);
        // A rollback within the same second still changes what the check reads.
        await db.sql.exec("UPDATE agno_components SET current_version = 2 WHERE component_id = ?", [id]);
        await until("the new current version is seen", async () => heard.length === 2, 5_000);
        await db.sql.exec("UPDATE agno_components SET deleted_at = ? WHERE component_id = ?", [now(), id]);
        await until("the archive is seen", async () => heard.length === 3, 5_000);
        await db.sql.exec("UPDATE agno_components SET deleted_at = NULL WHERE component_id = ?", [id]);
        await until("the restore is seen", async () => heard.length === 4, 5_000);
        await pause(200);
        expect(heard).toEqual([null, null, null, null]);

        // A change this process announces is heard at once, and the check does not report it again
        // (a check that ran between the commit and the announcement may have reported it first).
        await db.sql.exec("UPDATE agno_components SET current_version = 3, updated_at = ? WHERE component_id = ?", [now() + 1, id]);
        componentsChanged(app.settings, change(id, "current"));
        await pause(300);
        const after = heard.slice(4);
        expect(after.at(-1)).toEqual(change(id, "current"));
        expect(after.filter((c) => c === null).length).toBeLessThanOrEqual(1);
      } finally {
        stop();
      }
    });
  });
}

describe.skipIf(redisSkipReason !== null)("component changes over Redis", () => {
  afterAll(async () => {
    await closeRedisCoordinations();
  });

  it("another replica's announcement is heard through Redis; this process's own is heard once", async () => {
    const settings = settingsOf({ REDIS_URL: redisUrl });
    const heard: (ComponentChange | null)[] = [];
    const stop = onComponentsChanged(settings, noDb, (c) => heard.push(c), { pollMs: 60_000 });
    const replica = new Redis(redisUrl);
    try {
      const channel = `agentry:${settings.osId}:${settings.database.id}:topic:components`;
      // The subscription is made asynchronously: announce until it is heard.
      await until(
        "a replica's change is heard",
        async () => {
          await replica.publish(channel, JSON.stringify({ origin: "another-replica", type: "team", id: "t1", action: "archived" }));
          await pause(50);
          return heard.length > 0;
        },
        5_000,
      );
      expect(heard[0]).toEqual({ type: "team", id: "t1", action: "archived" });
      // Garbage on the channel is ignored.
      await replica.publish(channel, "not json");
      await replica.publish(channel, JSON.stringify({ origin: "another-replica", type: "tool", id: "t1", action: "archived" }));
      heard.length = 0;
      componentsChanged(settings, change("mine"));
      await pause(300);
      expect(heard).toEqual([change("mine")]);
    } finally {
      stop();
      replica.disconnect();
    }
  });
});
