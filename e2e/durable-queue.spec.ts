import { expect, test } from "@playwright/test";
import { E2E_PORTS } from "./fixtures/ports.ts";

/**
 * The durable queue under `next start` (SQLite, embedded worker started by instrumentation):
 * route handlers, the worker and the cancel route live in different module graphs of one process,
 * so what they share must work across them.
 */

type Json = Record<string, unknown>;
const app = `http://127.0.0.1:${E2E_PORTS.durableApp}`;

async function submit(fields: Record<string, string>, headers: Record<string, string> = {}): Promise<{ run_id: string; session_id: string; status: string }> {
  const response = await fetch(`${app}/agents/assistant/runs`, { method: "POST", body: new URLSearchParams({ background: "true", stream: "false", ...fields }), headers });
  expect(response.status).toBe(202);
  return (await response.json()) as { run_id: string; session_id: string; status: string };
}

async function runOf(run: { run_id: string; session_id: string }): Promise<Json> {
  return (await (await fetch(`${app}/agents/assistant/runs/${run.run_id}?session_id=${run.session_id}`)).json()) as Json;
}

async function until(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("condition not reached");
}

test("a background run is a job the embedded worker runs to COMPLETED; a repeated Idempotency-Key returns it", async () => {
  const run = await submit({ message: "hello durable" }, { "idempotency-key": `e2e-${Date.now()}` });
  expect(run.status).toBe("PENDING");
  await until(async () => (await runOf(run)).status === "COMPLETED");
  expect((await runOf(run)).content).toBe("Echo: hello durable");
  const stats = (await (await fetch(`${app}/queue/stats`)).json()) as { counts: Record<string, number> };
  expect(stats.counts.completed).toBeGreaterThanOrEqual(1);
  const job = (await (await fetch(`${app}/queue/jobs/${run.run_id}`)).json()) as Json;
  expect(job).toMatchObject({ id: run.run_id, status: "completed", attempt: 1 });
});

test("a running durable run cancelled through the cancel route ends CANCELLED, its stored events ending with RunCancelled, RunCompleted", async () => {
  const run = await submit({ message: "slow durable" });
  await until(async () => (await runOf(run)).status === "RUNNING");
  await new Promise((r) => setTimeout(r, 500)); // well into the model's answer
  expect((await fetch(`${app}/agents/assistant/runs/${run.run_id}/cancel?session_id=${run.session_id}`, { method: "POST" })).status).toBe(200);
  await until(async () => (await runOf(run)).status !== "RUNNING");
  const stored = await runOf(run);
  expect(stored.status).toBe("CANCELLED");
  expect((stored.events as Json[]).slice(-2).map((e) => e.event)).toEqual(["RunCancelled", "RunCompleted"]);
  const job = (await (await fetch(`${app}/queue/jobs/${run.run_id}`)).json()) as Json;
  expect(job.status).toBe("cancelled");
});

test("a background stream (stream=true) arrives event by event through next start, gzip asked or not", async () => {
  const response = await fetch(`${app}/agents/assistant/runs`, {
    method: "POST",
    body: new URLSearchParams({ message: "slow stream", background: "true", stream: "true" }),
    headers: { "accept-encoding": "gzip, deflate, br" },
  });
  expect(response.headers.get("content-type")).toContain("text/event-stream");
  expect(response.headers.get("content-encoding")).toBeNull();
  const reader = response.body!.getReader();
  let text = "";
  while (!text.includes('"event":"RunContent"')) text += new TextDecoder().decode((await reader.read()).value);
  const data = text.split("\n").find((l) => l.startsWith("data: "))!;
  const first = JSON.parse(data.slice(6)) as { run_id: string; session_id: string };
  // The model streams 40 words 150 ms apart: the first delta arrives long before the run ends.
  expect((await runOf(first)).status).toBe("RUNNING");
  await reader.cancel();
  // The client went away; the run goes on and completes.
  await until(async () => (await runOf(first)).status === "COMPLETED", 30_000);
});
