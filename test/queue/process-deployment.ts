import pg from "pg";
import { openDatabase, type Db } from "@/lib/db/index.ts";
import type { ModelServer } from "../../e2e/fixtures/model-server.ts";
import { postgresUrl } from "../support/databases.ts";
import { spawnApiServer, spawnWorker, type Spawned } from "../support/processes.ts";
import { redisUrl } from "../support/redis.ts";

/**
 * A deployment's processes over one schema of the test PostgreSQL and the test Redis, configured
 * by environment as an operator would: web replicas serving the API without an embedded worker,
 * standalone workers, the scripted model server as the model. `destroy()` kills every process it
 * started and drops the schema.
 */
export async function processDeployment(name: string, model: ModelServer, extraEnv: Record<string, string> = {}) {
  const tag = `${name}_${process.pid}_${Date.now().toString(36)}`;
  const schema = `mp_${tag}`;
  const env = {
    DATABASE_URL: postgresUrl,
    AGENTRY_DB_SCHEMA: schema,
    AGENTRY_OS_ID: `mp-${tag}`,
    AGENTRY_QUEUE_DURABLE: "true",
    AGENTRY_EMBEDDED_WORKER: "false",
    AGENTRY_QUEUE_LOCK_GRACE_SECONDS: "2",
    AGENTRY_QUEUE_POLL_INTERVAL_MS: "200",
    AGENTRY_LOG_LEVEL: "debug",
    OPENAI_COMPATIBLE_BASE_URL: model.url,
    OPENAI_COMPATIBLE_MODEL: "scripted",
    REDIS_URL: redisUrl,
    ...extraEnv,
  };
  const processes: Spawned[] = [];
  let db: Db | null = null;
  return {
    env,
    /** A web replica; the first one started migrates the schema. */
    async api(label: string) {
      const server = await spawnApiServer(`${name}-${label}`, env);
      processes.push(server);
      return server;
    },
    async worker(label: string, more: Record<string, string> = {}) {
      const worker = await spawnWorker(`${name}-${label}`, { ...env, ...more });
      processes.push(worker);
      const id = /\[worker (\S+)\] claiming from/.exec(worker.lines.find((l) => l.includes("claiming from"))!)![1];
      return Object.assign(worker, { workerId: id });
    },
    /** The deployment's database, for the test's own reads. */
    async db() {
      return (db ??= await openDatabase({ url: postgresUrl, schema }));
    },
    async destroy() {
      await Promise.all(processes.map((p) => p.kill("SIGKILL")));
      await db?.close();
      const client = new pg.Client({ connectionString: postgresUrl });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    },
  };
}
