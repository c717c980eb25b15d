import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import type { AgentDefinition, FileConfig, TeamDefinition } from "@/lib/config/define.ts";
import type { WorkflowDefinition } from "@/lib/config/workflow.ts";
import type { ExternalAgentDefinition } from "@/lib/config/external-agent.ts";
import type { Settings } from "@/lib/config/settings.ts";
import type { Principal } from "@/lib/auth/principal.ts";
import type { Db } from "@/lib/db/open-database.ts";
import { appState, getDatabase } from "@/lib/server/app-context.ts";
import { dispatch } from "@/lib/http/dispatch.ts";
import { ROUTES } from "@/lib/http/route-table.ts";
import { stopEmbeddedWorkers } from "@/lib/queue/embedded-worker.ts";
import { stopSchedulers } from "@/lib/scheduler/scheduler.ts";
import { flushTracing } from "@/lib/tracing/setup.ts";
import "@/lib/http/internal-call.ts";
import { templateFor } from "./api.ts";
import { postgresUrl, type TestDialect } from "./databases.ts";
import { testSettings } from "./settings.ts";

/**
 * The API in-process for one suite: the real route table and dispatcher over a real database of
 * the suite's own (a SQLite file, or a PostgreSQL schema), with the suite's agents configured.
 */
export interface TestApp {
  readonly settings: Settings;
  db(): Promise<Db>;
  /** Calls a route as the server would; `principal` acts as that user (tests only). */
  call(method: string, path: string, init?: { form?: Record<string, string> | FormData; json?: unknown; headers?: Record<string, string>; principal?: Principal }): Promise<Response>;
  close(): Promise<void>;
}

let counter = 0;

export async function startTestApp({
  dialect,
  agents,
  teams,
  workflows,
  env = {},
  queue,
  limits,
  scheduler,
  metrics,
  registry,
  studio,
}: {
  dialect: TestDialect;
  /** agentry.config.ts's `agents`: defineAgent's, and defineExternalAgent's (lib/config/external-agent.ts). */
  agents: (AgentDefinition | ExternalAgentDefinition)[];
  /** agentry.config.ts's `teams`. */
  teams?: TeamDefinition[];
  /** agentry.config.ts's `workflows`. */
  workflows?: WorkflowDefinition[];
  env?: Record<string, string>;
  /** agentry.config.ts's `queue` section (environment variables still win). */
  queue?: FileConfig["queue"];
  /** agentry.config.ts's `limits` section (body caps). */
  limits?: FileConfig["limits"];
  /** agentry.config.ts's `scheduler` section. */
  scheduler?: FileConfig["scheduler"];
  /** agentry.config.ts's `metrics` section (model prices, the daily refresh). */
  metrics?: FileConfig["metrics"];
  /** agentry.config.ts's `registry` (what Studio's components may use). */
  registry?: FileConfig["registry"];
  /** agentry.config.ts's `studio` section (Studio's limits). */
  studio?: FileConfig["studio"];
}): Promise<TestApp> {
  const id = `test-${process.pid}-${Date.now().toString(36)}-${++counter}`;
  const dir = mkdtempSync(join(tmpdir(), "agentry-app-"));
  const schema = `t_${id.replace(/-/g, "_")}`;
  const databaseEnv: Record<string, string> = dialect.name === "sqlite" ? { DATABASE_URL: `file:${join(dir, "agentry.db")}` } : { DATABASE_URL: postgresUrl, AGENTRY_DB_SCHEMA: schema };
  const settings = testSettings({
    env: { ...databaseEnv, ...env },
    file: {
      database: { id },
      agents,
      ...(teams ? { teams } : {}),
      ...(workflows ? { workflows } : {}),
      ...(queue ? { queue } : {}),
      ...(limits ? { limits } : {}),
      ...(scheduler !== undefined ? { scheduler } : {}),
      metrics: { dailyRefresh: false, ...metrics },
      ...(registry ? { registry } : {}),
      ...(studio ? { studio } : {}),
    },
  });
  return {
    settings,
    db: () => getDatabase(settings),
    async call(method, path, init = {}) {
      const url = new URL(path, "http://127.0.0.1:7777");
      const headers = new Headers(init.headers);
      let body: BodyInit | undefined;
      if (init.json !== undefined) {
        headers.set("content-type", "application/json");
        body = JSON.stringify(init.json);
      } else if (init.form instanceof FormData) {
        body = init.form;
      } else if (init.form) {
        headers.set("content-type", "application/x-www-form-urlencoded");
        body = new URLSearchParams(init.form).toString();
      }
      const template = templateFor(url.pathname);
      return dispatch(new Request(url, { method, headers, body }), template, {
        settings,
        routes: ROUTES.filter((r) => r.path === template),
        principal: init.principal,
      });
    },
    async close() {
      await stopEmbeddedWorkers(id);
      await stopSchedulers(id);
      // Spans still waiting for the exporter are written before their database closes.
      await flushTracing();
      const db = await appState()
        .databases.get(id)
        ?.catch(() => undefined);
      appState().databases.delete(id);
      await db?.close();
      rmSync(dir, { recursive: true, force: true });
      if (dialect.name === "postgres") {
        const client = new pg.Client({ connectionString: postgresUrl });
        await client.connect();
        await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await client.end();
      }
    },
  };
}

/** Reads an SSE body to the end and returns its events (the JSON of each `data:` line). */
export async function readSse(response: Response): Promise<Record<string, unknown>[]> {
  const text = await response.text();
  return text
    .split("\n\n")
    .map((frame) => frame.split("\n").find((line) => line.startsWith("data: ")))
    .filter((line): line is string => !!line)
    .map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>);
}
