import { spawn, type ChildProcess } from "node:child_process";
import { Redis } from "ioredis";
import { readEnv } from "@/lib/config/env.ts";

/**
 * Redis for suites that coordinate through it. Each suite gets its own key prefix, so suites
 * never see each other's keys; `destroy()` deletes only that prefix. Required in CI
 * (AGENTRY_TEST_REQUIRE_SERVICES=1); elsewhere an unreachable Redis skips with the reason printed.
 */
const env = readEnv();
export const redisUrl = env.AGENTRY_TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

async function probe(): Promise<string | null> {
  const client = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 2000, retryStrategy: () => null });
  try {
    await client.connect();
    await client.ping();
    return null;
  } catch (error) {
    return `Redis at ${redisUrl} is unreachable (${(error as Error).message})`;
  } finally {
    client.disconnect();
  }
}

export const redisSkipReason = await probe();
if (redisSkipReason && env.AGENTRY_TEST_REQUIRE_SERVICES) {
  throw new Error(`${redisSkipReason}; AGENTRY_TEST_REQUIRE_SERVICES is set, so the Redis suites cannot be skipped`);
}
if (redisSkipReason) console.warn(`[skip] Redis suites skipped: ${redisSkipReason}`);

let counter = 0;

export interface TestRedis {
  readonly prefix: string;
  /** A client whose every key is under this suite's prefix. */
  readonly client: Redis;
  destroy(): Promise<void>;
}

export function openTestRedis(name = "suite"): TestRedis {
  const prefix = `agentry-test:${name}:${process.pid}:${Date.now().toString(36)}:${++counter}:`;
  const client = new Redis(redisUrl, { keyPrefix: prefix, maxRetriesPerRequest: 1 });
  return {
    prefix,
    client,
    async destroy() {
      const admin = new Redis(redisUrl);
      try {
        let cursor = "0";
        do {
          const [next, keys] = await admin.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 500);
          if (keys.length > 0) await admin.del(...keys);
          cursor = next;
        } while (cursor !== "0");
      } finally {
        admin.disconnect();
        client.disconnect();
      }
    },
  };
}

/**
 * A Redis server of the calling suite's own (`redis-server` on a free port, nothing persisted), so
 * a test can kill it mid-run without touching anybody else's; resolves once it answers PING.
 */
export async function spawnTestRedis(port: number): Promise<{ url: string; process: ChildProcess }> {
  const child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: "ignore" });
  const url = `redis://127.0.0.1:${port}`;
  const deadline = Date.now() + 15_000;
  for (;;) {
    const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on("error", () => undefined);
    try {
      await probe.connect();
      if ((await probe.ping()) === "PONG") return { url, process: child };
    } catch {
      if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not answer within 15 s`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      probe.disconnect();
    }
  }
}
