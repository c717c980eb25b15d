import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { defineWorkflow, step } from "@/lib/config/workflow.ts";
import { workflowSocketHandler } from "@/lib/http/workflow-socket.ts";
import { sqliteDialect, postgresDialect } from "../support/databases.ts";
import { startTestApp, type TestApp } from "../support/test-app.ts";

type Json = Record<string, unknown>;
const SECRET = "workflow-socket-secret-of-sufficient-length";

/** A socket client: every message it received (SSE-framed text parsed to its JSON), and a wait for one. */
async function connect(url: string, headers: Record<string, string> = {}) {
  const socket = new WebSocket(url, { headers });
  const received: Json[] = [];
  const waiters: { test: (m: Json) => boolean; resolve: (m: Json) => void }[] = [];
  socket.on("message", (data) => {
    const text = String(data);
    const json = text.startsWith("event: ") ? JSON.parse(text.slice(text.indexOf("data: ") + 6)) : JSON.parse(text);
    received.push(json);
    for (const waiter of [...waiters]) {
      if (waiter.test(json)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(json);
      }
    }
  });
  await new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("error", reject);
  });
  return {
    received,
    send: (message: Json) => socket.send(JSON.stringify(message)),
    next: (test: (m: Json) => boolean, timeoutMs = 10_000) =>
      new Promise<Json>((resolve, reject) => {
        const found = received.find(test);
        if (found) return resolve(found);
        const timer = setTimeout(() => reject(new Error(`no matching message; got ${JSON.stringify(received.map((m) => m.event))}`)), timeoutMs);
        waiters.push({ test, resolve: (m) => (clearTimeout(timer), resolve(m)) });
      }),
    close: () => socket.close(),
  };
}

const workflows = [
  defineWorkflow({ id: "echo", name: "Echo", steps: [step({ name: "echo", executor: (input) => `echo ${String(input.input)}` })] }),
  defineWorkflow({
    id: "gated",
    name: "Gated",
    steps: [step({ name: "act", executor: (input) => `acted on ${String(input.input)}`, humanReview: { requiresConfirmation: true } })],
  }),
];

for (const dialect of [sqliteDialect, postgresDialect]) {
  describe.skipIf(dialect.skipReason !== null)(`the workflow WebSocket (${dialect.name})`, () => {
    let app: TestApp;
    let server: Server;
    let url: string;
    const sockets = new Set<import("node:stream").Duplex>();
    const token = (sub: string, scopes = ["workflows:read", "workflows:run"]) =>
      new SignJWT({ scopes }).setProtectedHeader({ alg: "HS256" }).setSubject(sub).setExpirationTime("10m").sign(new TextEncoder().encode(SECRET));

    beforeAll(async () => {
      app = await startTestApp({ dialect, agents: [], workflows, env: { JWT_VERIFICATION_KEY: SECRET } });
      const handler = workflowSocketHandler(() => app.settings);
      server = createServer((_req, res) => res.end());
      server.on("upgrade", (request, socket, head) => {
        sockets.add(socket);
        handler(request, socket, head);
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/workflows/ws`;
    });
    afterAll(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
      await app.close();
    });

    it("asks for authentication, refuses a bad token, and takes a JWT; ping and unknown actions are answered", async () => {
      const client = await connect(url);
      expect(await client.next((m) => m.event === "connected")).toMatchObject({ requires_auth: true });
      client.send({ action: "start-workflow", workflow_id: "echo", message: "hi" });
      expect(await client.next((m) => m.event === "auth_required")).toMatchObject({ error: "Authentication required. Send authenticate action with valid JWT." });
      client.send({ action: "authenticate" });
      expect(await client.next((m) => m.event === "auth_error")).toMatchObject({ error: "Token is required" });
      client.send({ action: "authenticate", token: "not-a-jwt" });
      await client.next((m) => m.event === "auth_error" && m.error !== "Token is required");
      client.send({ action: "authenticate", token: await token("alice") });
      expect(await client.next((m) => m.event === "authenticated" && m.user_id === "alice")).toMatchObject({ message: "JWT authentication successful." });
      client.send({ action: "ping" });
      await client.next((m) => m.event === "pong");
      client.send({ action: "dance" });
      expect(await client.next((m) => m.event === "error")).toEqual({ event: "error", error: "Unknown action: dance" });
      client.close();
    });

    it("start-workflow streams the run's events; reconnect replays them; another user cannot reconnect to it", async () => {
      const client = await connect(url);
      client.send({ action: "authenticate", token: await token("alice") });
      await client.next((m) => m.event === "authenticated" && m.user_id === "alice");
      client.send({ action: "start-workflow", workflow_id: "nope", message: "hi" });
      expect(await client.next((m) => m.event === "error")).toEqual({ event: "error", error: "Workflow nope not found" });
      client.send({ action: "start-workflow", workflow_id: "echo", message: "over the socket" });
      const done = await client.next((m) => m.event === "WorkflowCompleted");
      expect(done).toMatchObject({ workflow_id: "echo", content: "echo over the socket" });
      const events = client.received.filter((m) => m.run_id === done.run_id);
      expect(events[0]).toMatchObject({ event: "WorkflowStarted" });
      client.close();

      const again = await connect(url);
      again.send({ action: "authenticate", token: await token("alice") });
      await again.next((m) => m.event === "authenticated" && m.user_id === "alice");
      again.send({ action: "reconnect", run_id: done.run_id, workflow_id: "echo", session_id: done.session_id, last_event_index: 0 });
      expect(await again.next((m) => m.event === "replay")).toMatchObject({ run_id: done.run_id, status: "COMPLETED" });
      await again.next((m) => m.event === "WorkflowCompleted");
      again.close();

      const bob = await connect(url);
      bob.send({ action: "authenticate", token: await token("bob") });
      await bob.next((m) => m.event === "authenticated" && m.user_id === "bob");
      bob.send({ action: "reconnect", run_id: done.run_id, workflow_id: "echo", session_id: done.session_id });
      expect(await bob.next((m) => m.event === "error")).toMatchObject({ error: expect.stringMatching(/not found/) });
      bob.received.length = 0;
      bob.send({ action: "reconnect", run_id: done.run_id });
      expect(await bob.next((m) => m.event === "error")).toMatchObject({ error: "session_id is required to reconnect to a workflow run" });
      bob.close();
    });

    it("closes a connection sending a frame over 1 MiB with 1009, before authentication, and throws nothing", async () => {
      const uncaught: unknown[] = [];
      const onUncaught = (error: unknown) => uncaught.push(error);
      process.on("uncaughtException", onUncaught);
      try {
        const socket = new WebSocket(url);
        const errors: Error[] = [];
        socket.on("error", (error) => errors.push(error));
        const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.once("close", (code, reason) => resolve({ code, reason: String(reason) })));
        await new Promise<void>((resolve) => socket.once("message", () => resolve())); // "connected"
        socket.send("x".repeat(1.5 * 1024 * 1024));
        expect((await closed).code).toBe(1009);
        // The server goes on serving: a new connection is answered.
        const next = await connect(url);
        expect(await next.next((m) => m.event === "connected")).toMatchObject({ requires_auth: true });
        next.close();
        expect(uncaught).toEqual([]);
      } finally {
        process.off("uncaughtException", onUncaught);
      }
    });

    it("continue-workflow continues a paused run; a caller without workflows:run is refused", async () => {
      const client = await connect(url);
      client.send({ action: "authenticate", token: await token("carol") });
      await client.next((m) => m.event === "authenticated" && m.user_id === "carol");
      client.send({ action: "start-workflow", workflow_id: "gated", message: "the plan" });
      const paused = await client.next((m) => m.event === "WorkflowPaused");
      const requirement = (paused.step_requirements as Json[])[0]!;
      client.send({ action: "continue-workflow", workflow_id: "gated", run_id: paused.run_id, session_id: paused.session_id, step_requirements: [{ ...requirement, confirmed: true }] });
      expect(await client.next((m) => m.event === "WorkflowCompleted")).toMatchObject({ run_id: paused.run_id, content: "acted on the plan" });
      client.close();

      const reader = await connect(url);
      reader.send({ action: "authenticate", token: await token("dave", ["workflows:read"]) });
      await reader.next((m) => m.event === "authenticated");
      reader.send({ action: "start-workflow", workflow_id: "echo", message: "hi" });
      expect(await reader.next((m) => m.event === "error")).toEqual({ event: "error", error: "Insufficient permissions to run this workflow" });
      reader.close();
    });
  });
}

describe("the workflow WebSocket without authentication", () => {
  it("serves loopback callers as the trusted admin, and refuses a handshake from another site's page (403)", async () => {
    const app = await startTestApp({ dialect: sqliteDialect, agents: [], workflows });
    const server = createServer((_req, res) => res.end());
    const handler = workflowSocketHandler(() => app.settings);
    const sockets = new Set<import("node:stream").Duplex>();
    server.on("upgrade", (request, socket, head) => {
      sockets.add(socket);
      handler(request, socket, head);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/workflows/ws`;
    try {
      const local = await connect(url);
      expect(await local.next((m) => m.event === "connected")).toMatchObject({ requires_auth: false });
      local.send({ action: "start-workflow", workflow_id: "echo", message: "trusted" });
      expect(await local.next((m) => m.event === "WorkflowCompleted")).toMatchObject({ content: "echo trusted" });
      local.close();
      const refused = await connect(url, { origin: "https://evil.example" }).then(
        () => "opened",
        (error: Error) => error.message,
      );
      expect(refused).toMatch(/Unexpected server response: 403/);
      // DNS names an attacker's page can rebind to 127.0.0.1, and forms a browser never sends.
      for (const host of ["127.0.0.1.evil.example", "127.attacker.example", "localhost.evil.example", "0x7f.0.0.1", "[::1].evil"]) {
        const rebound = await connect(url, { host, origin: `http://${host}` }).then(
          () => "opened",
          (error: Error) => error.message,
        );
        expect(rebound, host).toMatch(/Unexpected server response: 403/);
      }
      const named = await connect(url, { host: "localhost." });
      expect(await named.next((m) => m.event === "connected")).toMatchObject({ requires_auth: false });
      named.close();
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
      await app.close();
    }
  });
});
