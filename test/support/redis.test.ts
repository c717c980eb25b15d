import { describe, expect, it } from "vitest";
import { Redis } from "ioredis";
import { openTestRedis, redisSkipReason, redisUrl } from "./redis.ts";

describe.skipIf(redisSkipReason !== null)("test harness: Redis key prefixes", () => {
  it("keeps suites apart and cleans up only its own prefix", async () => {
    const one = openTestRedis("one");
    const two = openTestRedis("two");
    try {
      await one.client.set("run:1", "a");
      await two.client.set("run:1", "b");
      expect(await one.client.get("run:1")).toBe("a");
      expect(await two.client.get("run:1")).toBe("b");
      await one.destroy();
      const raw = new Redis(redisUrl);
      expect(await raw.exists(`${one.prefix}run:1`)).toBe(0);
      expect(await raw.get(`${two.prefix}run:1`)).toBe("b");
      raw.disconnect();
    } finally {
      await two.destroy();
    }
  });
});
