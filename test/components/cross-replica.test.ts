import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { messageText, startModelServer, type ChatCompletionRequest, type ModelServer } from "../../e2e/fixtures/model-server.ts";
import { postgresDialect } from "../support/databases.ts";
import { freePort } from "../support/processes.ts";
import { redisSkipReason, spawnTestRedis } from "../support/redis.ts";
import { processDeployment } from "../queue/process-deployment.ts";

/**
 * Every replica serves a publish, rollback or archive from its next request on: two web replicas
 * (real OS processes over one PostgreSQL), a component changed through one and run through the
 * other at once — with Redis up, and again with Redis killed. The runs are inline (no queue), so
 * what runs is what the serving replica resolved for that very request.
 */

// biome-ignore lint/suspicious/noExplicitAny: bodies are checked field by field
type Json = any;
const skipReason = postgresDialect.skipReason ?? redisSkipReason;

function answer(body: ChatCompletionRequest) {
  const system = body.messages
    .filter((m) => m.role === "system")
    .map((m) => messageText(m as Parameters<typeof messageText>[0]))
    .join("\n");
  const marker = /SAY-([A-Za-z0-9]+)/.exec(system);
  return { text: marker ? `said ${marker[1]}` : "said nothing" };
}

const config = (word: string) => ({ model: { provider: "openai-compatible", id: "scripted" }, instructions: `Always SAY-${word}.` });

describe.skipIf(skipReason !== null)("stored components across replicas", () => {
  let model: ModelServer;
  let redisPort: number;
  let redis: ChildProcess;
  let d: Awaited<ReturnType<typeof processDeployment>>;

  beforeAll(async () => {
    model = await startModelServer({ respond: answer });
    redisPort = await freePort();
    // A Redis of this suite's own, so killing it touches nobody else.
    redis = (await spawnTestRedis(redisPort)).process;
    d = await processDeployment("studio", model, { REDIS_URL: `redis://127.0.0.1:${redisPort}`, AGENTRY_QUEUE_DURABLE: "false" });
  }, 60_000);
  afterAll(async () => {
    redis?.kill("SIGKILL");
    await d?.destroy();
    await model?.close();
  });

  it("a publish, a rollback and an archive on one replica are what the other runs next, with Redis up and with it stopped", async () => {
    const one = await d.api("one");
    const two = await d.api("two");
    const call = async (origin: string, method: string, path: string, body?: unknown) => {
      const response = await fetch(`${origin}${path}`, {
        method,
        headers: body === undefined ? {} : { "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json().catch(() => null)) as Json };
    };
    const run = async (origin: string, id: string) => {
      const form = new URLSearchParams({ message: "hello", stream: "false" });
      const response = await fetch(`${origin}/agents/${id}/runs`, { method: "POST", body: form });
      return { status: response.status, body: (await response.json().catch(() => null)) as Json };
    };

    const created = await call(one.origin, "POST", "/components", { name: "Replicated", component_type: "agent", config: config("one"), stage: "published" });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.component_id as string;
    // The other replica builds (and keeps) v1.
    expect((await run(two.origin, id)).body.content).toBe("said one");

    const publish = async (word: string) => {
      const draft = await call(one.origin, "POST", `/components/${id}/configs`, { config: config(word) });
      expect(draft.status, JSON.stringify(draft.body)).toBe(201);
      const published = await call(one.origin, "PATCH", `/components/${id}/configs/${draft.body.version}`, { stage: "published" });
      expect(published.status, JSON.stringify(published.body)).toBe(200);
      return draft.body.version as number;
    };

    // Redis up: publish v2 on one, the very next run on two uses it.
    await publish("two");
    expect((await run(two.origin, id)).body.content).toBe("said two");

    // Redis stopped: a publish, a rollback and an archive still reach the other replica's next request.
    redis.kill("SIGKILL");
    await publish("three");
    expect((await run(two.origin, id)).body.content).toBe("said three");
    expect((await call(one.origin, "POST", `/components/${id}/configs/1/set-current`)).status).toBe(200);
    expect((await run(two.origin, id)).body.content).toBe("said one");
    expect((await call(one.origin, "DELETE", `/components/${id}`)).status).toBe(204);
    expect(await run(two.origin, id)).toMatchObject({ status: 404, body: { detail: "Agent not found" } });
  }, 120_000);
});
