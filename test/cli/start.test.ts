import { WebSocket } from "ws";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deferred, messageText, startModelServer, type ModelServer } from "../../e2e/fixtures/model-server.ts";
import { buildIsStale } from "../../lib/cli/build-freshness.ts";
import { freePort } from "../support/processes.ts";
import { openDatabase } from "../../lib/db/open-database.ts";
import { traceTime } from "../../lib/db/traces/trace-rows.ts";
import { writeTraceBatch } from "../../lib/db/traces/traces.ts";
import { MigrationManager } from "../../lib/migrations/migration-manager.ts";

/** React's encoding of a server action's arguments, as the dashboard's pages send them (Next's own copy of React). */
const { encodeReply } = createRequire(import.meta.url)("next/dist/compiled/react-server-dom-turbopack/client.edge") as {
  encodeReply: (value: unknown) => Promise<string | FormData>;
};

/**
 * `agentry start` as an operator runs it (`node bin/agentry.mjs start`, what `npm start` runs):
 * one process serves the API and the dashboard, answers an upgrade request it has no handler for
 * without falling over, and on SIGTERM stops accepting, lets a stream in flight finish and exits 0.
 * It serves the existing Next build (`.next`, or AGENTRY_NEXT_DIST_DIR): with none, or one older
 * than the sources, these tests are skipped (`npx next build` first) — except in CI, which builds
 * before the tests.
 */

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const DIST_DIR = process.env.AGENTRY_NEXT_DIST_DIR || ".next";
const freshness = buildIsStale(ROOT, DIST_DIR);
if (freshness.stale && process.env.CI) throw new Error(`agentry start needs a fresh build in ${DIST_DIR} (${freshness.reason}); CI builds before the tests`);
if (freshness.stale) console.warn(`test/cli/start.test.ts skipped: ${freshness.reason} in ${DIST_DIR} (run \`npx next build\` first)`);

interface Started {
  child: ChildProcess;
  origin: string;
  port: number;
  lines: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<string>;
}

/** Every process started here: killed after the suite, so a test that times out leaves none behind. */
const startedChildren = new Set<ChildProcess>();

function startAgentry(env: Record<string, string>, port: number): Started {
  const child = spawn(process.execPath, ["bin/agentry.mjs", "start"], {
    cwd: ROOT,
    env: { ...process.env, HOST: "127.0.0.1", PORT: String(port), AGENTRY_LOG_LEVEL: "info", NEXT_TELEMETRY_DISABLED: "1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  startedChildren.add(child);
  const lines: string[] = [];
  const waiters = new Set<() => void>();
  for (const stream of [child.stdout!, child.stderr!]) {
    createInterface({ input: stream }).on("line", (line) => {
      lines.push(line);
      for (const wake of waiters) wake();
    });
  }
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  let gone = false;
  void exited.then(() => {
    gone = true;
    for (const wake of waiters) wake();
  });
  return {
    child,
    port,
    origin: `http://127.0.0.1:${port}`,
    lines,
    exited,
    waitForLine(pattern, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const line = lines.find((l) => pattern.test(l));
          if (line || gone) {
            waiters.delete(check);
            clearTimeout(timer);
            if (line) resolve(line);
            else reject(new Error(`agentry start exited before printing ${pattern}:\n${lines.join("\n")}`));
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no line matching ${pattern} within ${timeoutMs} ms:\n${lines.join("\n")}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
  };
}

/** The processes descended from `pid` (Linux /proc). */
function descendants(pid: number): number[] {
  const parentOf = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      parentOf.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // gone meanwhile
    }
  }
  const found: number[] = [];
  for (const [child, parent] of parentOf) {
    for (let p: number | undefined = parent; p !== undefined && p > 1; p = parentOf.get(p)) {
      if (p === pid) {
        found.push(child);
        break;
      }
    }
  }
  return found;
}

/** Whether a new TCP connection to the port is refused. */
function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code === "ECONNREFUSED"));
  });
}

/** Sends raw bytes and reads everything until the server closes the connection. */
function rawExchange(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(request));
    let text = "";
    socket.on("data", (chunk) => (text += chunk.toString("latin1")));
    socket.on("close", () => resolve(text));
    socket.on("error", reject);
  });
}

const form = (fields: Record<string, string>) => ({
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded" },
  body: new URLSearchParams(fields).toString(),
});

describe.skipIf(freshness.stale)("agentry start", () => {
  let model: ModelServer;
  let dir: string;
  /** Held by the test: a model answer that waits for it (the durable-queue case). */
  const held = deferred();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "agentry-start-test-"));
    model = await startModelServer({
      respond: (body) => {
        const text = messageText([...body.messages].reverse().find((m) => m.role === "user"));
        if (text.startsWith("slow")) {
          const words = Array.from({ length: 12 }, (_, i) => `word${i + 1} `);
          return { chunks: words, delayMs: 150 };
        }
        if (text.startsWith("hold")) return { text: "held", hold: held.promise };
        return { text: `Echo: ${text}` };
      },
    });
  });
  afterAll(async () => {
    for (const child of startedChildren) child.kill("SIGKILL");
    held.resolve();
    await model?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const modelEnv = () => ({ OPENAI_COMPATIBLE_BASE_URL: model.url, OPENAI_COMPATIBLE_MODEL: "scripted", OPENAI_COMPATIBLE_API_KEY: "x" });

  it("serves the API and the dashboard from one process, 404s an upgrade it has no handler for, and drains on SIGTERM", async () => {
    const app = startAgentry({ ...modelEnv(), DATABASE_URL: `file:${join(dir, "app.db")}` }, await freePort());
    try {
      await app.waitForLine(/^Agentry on http:\/\/127\.0\.0\.1:\d+ \(auth mode: none; dashboard at \/dashboard\)$/, 120_000);
      // One process: the preparation (settings, build check, migrations) ran in a child that has exited.
      expect(descendants(app.child.pid!)).toEqual([]);

      expect((await fetch(`${app.origin}/health`)).status).toBe(200);
      const config = (await (await fetch(`${app.origin}/config`)).json()) as { agents: { id: string }[] };
      expect(config.agents.map((a) => a.id)).toContain("assistant");
      const run = await fetch(`${app.origin}/agents/assistant/runs`, form({ message: "hello", stream: "false" }));
      expect(run.status).toBe(200);
      expect(await run.json()).toMatchObject({ status: "COMPLETED", content: "Echo: hello" });
      // The dashboard: first-run setup, as no user exists yet.
      const dashboard = await fetch(`${app.origin}/dashboard`, { redirect: "manual" });
      expect(dashboard.status).toBe(307);
      expect(dashboard.headers.get("location")).toMatch(/\/dashboard\/setup$/);
      const setup = await fetch(`${app.origin}/dashboard/setup`);
      expect(setup.status).toBe(200);
      const setupPage = await setup.text();
      expect(setupPage).toContain("<html");
      // The setup form's server action: its hidden fields name the action's id.
      const setupActionId = /\$ACTION_ID_([0-9a-f]{42})/.exec(setupPage)?.[1] ?? /&quot;id&quot;:&quot;([0-9a-f]{42})&quot;/.exec(setupPage)?.[1];
      expect(setupActionId, "a server action id in the setup page").toMatch(/^[0-9a-f]{42}$/);

      // The workflow WebSocket is served through the upgrade hook (lib/http/workflow-socket.ts).
      const socket = new WebSocket(`ws://127.0.0.1:${app.port}/workflows/ws`);
      const connected = await new Promise<string>((resolve, reject) => {
        socket.once("message", (data) => resolve(String(data)));
        socket.once("error", reject);
      });
      expect(JSON.parse(connected)).toEqual({ event: "connected", message: "Connected to AgentOS.", requires_auth: false });
      socket.close();
      // Upgrades on a path with no handler, and on one that matches a route, after Next has served requests.
      for (const path of ["/teams/ws", "/agents/assistant/runs"]) {
        const answer = await rawExchange(
          app.port,
          `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`,
        );
        expect(answer, path).toMatch(/^HTTP\/1\.1 404 Not Found\r\n/);
      }
      expect((await fetch(`${app.origin}/health`)).status).toBe(200);

      // A frame over the socket's 1 MiB limit, sent first thing: the socket is closed with 1009 and
      // one warning is logged, with no uncaught exception; the server goes on serving.
      const flooding = new WebSocket(`ws://127.0.0.1:${app.port}/workflows/ws`);
      flooding.on("error", () => undefined);
      const floodClosed = new Promise<number>((resolve) => flooding.once("close", (code) => resolve(code)));
      await new Promise((resolve) => flooding.once("open", resolve));
      flooding.send("x".repeat(1.5 * 1024 * 1024));
      expect(await floodClosed).toBe(1009);
      await app.waitForLine(/^\[workflows\/ws\] closing the connection from \S+ with 1009: a message over 1048576 bytes$/, 10_000);
      expect((await fetch(`${app.origin}/health`)).status).toBe(200);

      // The loopback fence over real HTTP (auth mode none): a DNS name an attacker's page can
      // rebind to 127.0.0.1 is no loopback host, for the API, its writes and the workflow socket.
      const rebound = `127.0.0.1.evil.example:${app.port}`;
      const sessions = await rawExchange(app.port, `GET /sessions HTTP/1.1\r\nHost: ${rebound}\r\nConnection: close\r\n\r\n`);
      expect(sessions).toMatch(/^HTTP\/1\.1 403 /);
      expect(sessions).toContain("DNS rebinding");
      const admin = JSON.stringify({ name: "x", scopes: ["agent_os:admin"] });
      const created = await rawExchange(
        app.port,
        `POST /service-accounts HTTP/1.1\r\nHost: ${rebound}\r\nOrigin: http://${rebound}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(admin)}\r\nConnection: close\r\n\r\n${admin}`,
      );
      expect(created).toMatch(/^HTTP\/1\.1 403 /);
      expect(created).toContain("DNS rebinding");
      expect(await (await fetch(`${app.origin}/service-accounts`)).text()).not.toContain('"name":"x"');
      const reboundSocket = await rawExchange(
        app.port,
        `GET /workflows/ws HTTP/1.1\r\nHost: ${rebound}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`,
      );
      expect(reboundSocket).toMatch(/^HTTP\/1\.1 403 Forbidden\r\n/);
      expect(reboundSocket).toContain("DNS rebinding");

      // Server action bodies Next.js would answer with a 500: past its 1 MiB limit a 413, one it
      // cannot decode a 400, each with a detail (lib/server/server-action-body.mjs).
      const action = (body: BodyInit, headers: Record<string, string>, path = "/dashboard") =>
        fetch(`${app.origin}${path}`, { method: "POST", headers: { "next-action": setupActionId!, origin: app.origin, ...headers }, body, duplex: "half", redirect: "manual" } as RequestInit);
      const tooLarge = await action(new Uint8Array(2_000_000), { "content-type": "text/plain;charset=UTF-8" }); // content-length: 2000000
      expect(tooLarge.status).toBe(413);
      expect(await tooLarge.json()).toEqual({ detail: "Server action request body too large: the limit is 1048576 bytes (1 MiB)" });
      let streamedBytes = 0;
      const chunked = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (streamedBytes >= 1.5 * 1024 * 1024) return controller.close();
          streamedBytes += 64 * 1024;
          controller.enqueue(new Uint8Array(64 * 1024).fill(0x20));
        },
      });
      const tooLargeChunked = await action(chunked, { "content-type": "text/plain;charset=UTF-8" }); // no content-length
      expect(tooLargeChunked.status).toBe(413);
      expect(await tooLargeChunked.json()).toMatchObject({ detail: expect.stringContaining("too large") });
      const notJson = await action("this is not the arguments' JSON", { "content-type": "text/plain;charset=UTF-8" });
      expect(notJson.status).toBe(400);
      expect(await notJson.json()).toEqual({ detail: "Malformed server action request: its arguments are not JSON" });
      // Next runs actions posted to any page, its own /_not-found too (outside the proxy's paths).
      expect((await action("[", { "content-type": "text/plain;charset=UTF-8" }, "/_not-found")).status).toBe(400);
      const brokenBoundary = await action('--other\r\nContent-Disposition: form-data; name="0"\r\n\r\n[]\r\n--other--\r\n', {
        "content-type": "multipart/form-data; boundary=not-the-one-used",
      });
      expect(brokenBoundary.status).toBe(400);
      expect(await brokenBoundary.json()).toEqual({ detail: "Malformed server action request: its multipart body does not parse with the boundary its content type names" });
      // Next.js's own answer to an action id it does not know (one of another deployment): 409, with
      // a header its client router reads.
      const unknownAction = await fetch(`${app.origin}/dashboard`, {
        method: "POST",
        headers: { "next-action": "7f".padEnd(42, "0"), origin: app.origin, "content-type": "text/plain;charset=UTF-8" },
        body: "[]",
        redirect: "manual",
      });
      expect(unknownAction.status).toBe(409);
      expect(unknownAction.headers.get("x-nextjs-action-not-found")).toBe("1");
      // The dashboard's own call still works: what the setup form sends once hydrated, its state and
      // its fields encoded by React's encodeReply (multipart: the fields, then the arguments).
      const password = "a long enough passphrase 42";
      const fields = new FormData();
      for (const [name, value] of Object.entries({ email: "admin@example.com", name: "Admin", password, confirm: password })) fields.set(name, value);
      const setupArguments = await encodeReply([{}, fields]);
      expect(setupArguments).toBeInstanceOf(FormData);
      const setupDone = await action(setupArguments, {}, "/dashboard/setup");
      expect(setupDone.status).toBe(200);
      expect(setupDone.headers.get("x-action-redirect")).toMatch(/^\/dashboard;/);
      expect((await fetch(`${app.origin}/dashboard/setup`)).status).toBe(404); // the first admin exists
      expect((await fetch(`${app.origin}/health`)).status).toBe(200);
      expect(app.lines.join("\n")).not.toMatch(/uncaught|RangeError|Max payload|Body exceeded|\[server\] POST/i);

      // SIGTERM with a stream in flight: no new connections, the stream runs to its end, exit 0.
      const stream = await fetch(`${app.origin}/agents/assistant/runs`, form({ message: "slow please", stream: "true" }));
      expect(stream.status).toBe(200);
      const reader = stream.body!.getReader();
      let events = new TextDecoder().decode((await reader.read()).value);
      app.child.kill("SIGTERM");
      await app.waitForLine(/^\[server\] SIGTERM: no new connections/);
      expect(await refused(app.port)).toBe(true);
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) events += new TextDecoder().decode(chunk.value);
      expect(events).toContain("word12");
      expect(events).toMatch(/"event":\s*"RunCompleted"/);
      expect(await app.exited).toEqual({ code: 0, signal: null });
      expect(app.lines.join("\n")).not.toMatch(/cut \d+ request/);
    } finally {
      app.child.kill("SIGKILL");
    }
  });

  it("with the durable queue, the served build runs and requeues every kind of job the features register (lib/server/features.ts)", async () => {
    const file = join(dir, "kinds.db");
    // A trace past the retention: the scheduler's first daily tick enqueues a trace_retention job for it.
    const seed = await openDatabase({ url: `file:${file}` });
    await new MigrationManager(seed, { log: () => undefined }).up();
    const long = traceTime(Date.now() - 30 * 86_400_000);
    const oldTrace = "0123456789abcdef0123456789abcdef";
    await writeTraceBatch(seed, {
      traces: [
        {
          trace_id: oldTrace,
          name: "Old.run",
          status: "OK",
          start_time: long,
          end_time: long,
          duration_ms: 0,
          run_id: null,
          session_id: null,
          user_id: null,
          agent_id: null,
          team_id: null,
          workflow_id: null,
          created_at: long,
        },
      ],
      spans: [
        {
          span_id: "0123456789abcdef",
          trace_id: oldTrace,
          parent_span_id: null,
          name: "Old.run",
          span_kind: "INTERNAL",
          status_code: "OK",
          status_message: null,
          start_time: long,
          end_time: long,
          duration_ms: 0,
          attributes: {},
          created_at: long,
        },
      ],
    });
    await seed.close();
    const app = startAgentry({ ...modelEnv(), DATABASE_URL: `file:${file}`, AGENTRY_QUEUE_DURABLE: "true", AGENTRY_QUEUE_POLL_INTERVAL_MS: "100" }, await freePort());
    const call = (method: string, path: string, body?: unknown) =>
      fetch(`${app.origin}${path}`, { method, ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }) });
    type Job = { id: string; job_type: string; status: string; attempt: number };
    const kinds = ["run", "schedule_fire", "metrics_refresh", "eval_run", "knowledge_content", "trace_retention"];
    const jobs = async () => ((await (await call("GET", `/queue/jobs?limit=100&${kinds.map((kind) => `job_type=${kind}`).join("&")}`)).json()) as { data: Job[] }).data;
    const settled = (job: Job | undefined) => job !== undefined && ["completed", "failed", "cancelled"].includes(job.status);
    try {
      await app.waitForLine(/^Agentry on http:/, 120_000);
      // One of each kind, through the API only: a background run, a schedule's fire, a
      // background metrics refresh, a background eval, a text content added to a knowledge base.
      const submitted = await fetch(`${app.origin}/agents/assistant/runs`, form({ message: "kinds", stream: "false", background: "true" }));
      expect(submitted.status).toBe(202);
      const { run_id: runId } = (await submitted.json()) as { run_id: string };
      // A schedule due every minute: its next slot is enqueued as a fire by the scheduler's tick.
      expect((await call("POST", "/schedules", { name: "kinds", cron_expr: "* * * * *", endpoint: "/agents/assistant/runs", payload: { message: "scheduled" } })).status).toBe(201);
      expect((await call("POST", "/metrics/refresh?background=true")).status).toBe(202);
      expect((await call("POST", "/eval-runs?background=true", { agent_id: "assistant", eval_type: "accuracy", input: "two", expected_output: "Echo: two", num_iterations: 1 })).status).toBe(202);
      const content = new FormData();
      content.set("name", "kinds");
      content.set("text_content", "Every kind of job runs in the served build.");
      expect((await fetch(`${app.origin}/knowledge/content?knowledge_id=handbook`, { method: "POST", body: content })).status).toBe(202);

      const firstOf = (all: Job[], kind: string) => all.filter((j) => j.job_type === kind).at(-1);
      let all: Job[] = [];
      for (let i = 0; i < 1200 && !kinds.every((kind) => settled(firstOf(all, kind))); i++) {
        await new Promise((r) => setTimeout(r, 100));
        all = await jobs();
      }
      expect(Object.fromEntries(kinds.map((kind) => [kind, settled(firstOf(all, kind)) || firstOf(all, kind)?.status || "none"]))).toEqual(Object.fromEntries(kinds.map((kind) => [kind, true])));
      // The served build records the durable run as a trace (starting with its queue.wait), and retention deleted the old one.
      let traced: { data: { trace_id: string; name: string }[] } = { data: [] };
      for (let i = 0; i < 100 && traced.data.length === 0; i++) {
        await new Promise((r) => setTimeout(r, 100));
        traced = (await (await call("GET", `/traces?run_id=${runId}`)).json()) as typeof traced;
      }
      expect(traced.data[0]?.name).toBe("Assistant.run");
      expect((await call("GET", `/traces/${oldTrace}`)).status).toBe(404);

      // Each is made to fail in the database, then requeued through the API (force: a fresh
      // failure) and run again by this process's catalog: another attempt, settled again.
      const db = new Database(file);
      try {
        db.prepare("UPDATE agno_jobs SET status = 'failed', error = 'made to fail by the test' WHERE status <> 'cancelled'").run();
      } finally {
        db.close();
      }
      const before = new Map(kinds.map((kind) => [kind, firstOf(all, kind)!]));
      for (const job of before.values()) {
        const requeued = await call("POST", `/queue/jobs/${encodeURIComponent(job.id)}/requeue?force=true&clear_cancellation=true`);
        expect([job.job_type, requeued.status]).toEqual([job.job_type, 200]);
      }
      const again = (kind: string) => all.find((j) => j.id === before.get(kind)!.id);
      for (let i = 0; i < 600 && !kinds.every((kind) => again(kind)!.attempt > before.get(kind)!.attempt && settled(again(kind))); i++) {
        await new Promise((r) => setTimeout(r, 100));
        all = await jobs();
      }
      expect(Object.fromEntries(kinds.map((kind) => [kind, again(kind)!.attempt > before.get(kind)!.attempt && settled(again(kind))]))).toEqual(Object.fromEntries(kinds.map((kind) => [kind, true])));
    } finally {
      app.child.kill("SIGKILL");
    }
  }, 240_000);

  it("with the durable queue, SIGTERM lets the embedded worker release the job it runs before the process exits", async () => {
    const file = join(dir, "durable.db");
    const app = startAgentry({ ...modelEnv(), DATABASE_URL: `file:${file}`, AGENTRY_QUEUE_DURABLE: "true", AGENTRY_QUEUE_POLL_INTERVAL_MS: "100" }, await freePort());
    try {
      await app.waitForLine(/^Agentry on http:/, 120_000);
      const submitted = await fetch(`${app.origin}/agents/assistant/runs`, form({ message: "hold on", stream: "false", background: "true" }));
      expect(submitted.status).toBe(202);
      const { session_id: sessionId } = (await submitted.json()) as { session_id: string };
      const calls = model.requests.length;
      for (let i = 0; i < 200 && model.requests.length === calls; i++) await new Promise((r) => setTimeout(r, 50));
      expect(model.requests.length).toBeGreaterThan(calls); // the worker is running the job, its model call held
      app.child.kill("SIGTERM");
      expect(await app.exited).toEqual({ code: 0, signal: null });
      const db = new Database(file, { readonly: true });
      try {
        const jobs = db.prepare("SELECT status, locked_by FROM agno_jobs WHERE session_id = ?").all(sessionId);
        expect(jobs).toEqual([{ status: "queued", locked_by: null }]); // released for the next worker, not left running
      } finally {
        db.close();
      }
    } finally {
      app.child.kill("SIGKILL");
    }
  });
});
