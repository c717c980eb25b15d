import { describe, expect, it } from "vitest";
import { defineAgent } from "@/lib/config/define.ts";
import type { Db } from "@/lib/db/open-database.ts";
import { queueEventStream } from "@/lib/http/dashboard/queue-stream.ts";
import { testSettings } from "../support/settings.ts";
import { userScope } from "../support/scopes.ts";

const durable = testSettings({ env: { AGENTRY_QUEUE_DURABLE: "true" }, file: { agents: [defineAgent({ id: "assistant", name: "Assistant", model: null })] } });

/** A database whose queries fail while `down` is set, and otherwise answer an empty queue. */
function flakyDb(state: { down: boolean }): Db {
  const query = async (text: string) => {
    if (state.down) throw new Error("connect ECONNREFUSED 10.0.0.5:5432");
    return text.includes("GROUP BY status") ? [] : [{ n: 0, latest: null, attempts: 0, at: null }];
  };
  return { dialect: "sqlite", sql: { query } } as unknown as Db;
}

/** The stream's events (name and data) as they arrive, until it ends or `until` holds. */
async function read(stream: ReadableStream<Uint8Array>, until: (events: { event: string; data: string }[]) => boolean, timeoutMs = 5000) {
  const events: { event: string; data: string }[] = [];
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && !until(events)) {
    const { value, done } = await reader.read();
    if (done) return { events, done: true };
    buffer += decoder.decode(value, { stream: true });
    for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = /^event: (.+)$/m.exec(frame)?.[1];
      if (event) events.push({ event, data: /^data: (.+)$/m.exec(frame)?.[1] ?? "" });
    }
  }
  await reader.cancel();
  return { events, done: false };
}

describe("the queue page's live stream", () => {
  it("ends once the viewer is no longer signed in (disabled, demoted, signed out everywhere)", async () => {
    let allowed = true;
    const stream = queueEventStream({
      db: flakyDb({ down: false }),
      settings: durable,
      scope: userScope("u1"),
      authorize: async () => (allowed ? userScope("u1") : null),
      signal: new AbortController().signal,
      pollMs: 10,
      reauthorizeMs: 30,
    });
    setTimeout(() => (allowed = false), 100);
    const { events, done } = await read(stream, () => false, 3000);
    expect(done).toBe(true);
    expect(events[0]).toMatchObject({ event: "snapshot" });
  });

  it("reports a failed read by error id only (the cause stays in the log), then sends the next good read", async () => {
    const state = { down: true };
    const stream = queueEventStream({
      db: flakyDb(state),
      settings: durable,
      scope: userScope("u1"),
      authorize: async () => userScope("u1"),
      signal: new AbortController().signal,
      pollMs: 10,
    });
    setTimeout(() => (state.down = false), 100);
    const { events } = await read(stream, (seen) => seen.some((e) => e.event === "snapshot"));
    const error = events.find((e) => e.event === "error")!;
    expect(JSON.parse(error.data).detail).toMatch(/^Could not read the queue \(error [0-9a-f-]{36}\); retrying\.$/);
    expect(error.data).not.toContain("ECONNREFUSED");
    expect(events.at(-1)).toMatchObject({ event: "snapshot" });
  });

  it("stops polling when the client goes away", async () => {
    let reads = 0;
    const db = { dialect: "sqlite", sql: { query: async () => (reads++, []) } } as unknown as Db;
    const abort = new AbortController();
    const stream = queueEventStream({ db, settings: durable, scope: userScope("u1"), authorize: async () => userScope("u1"), signal: abort.signal, pollMs: 10 });
    const reader = stream.getReader();
    await reader.read();
    abort.abort();
    await new Promise((r) => setTimeout(r, 50));
    const after = reads;
    await new Promise((r) => setTimeout(r, 100));
    expect(reads).toBe(after);
  });

  it("pages watching the same scope share one read per interval", async () => {
    let reads = 0;
    const db = { dialect: "sqlite", sql: { query: async (text: string) => (text.includes("GROUP BY") && reads++, []) } } as unknown as Db;
    const abort = new AbortController();
    const open = () => queueEventStream({ db, settings: durable, scope: userScope("shared"), authorize: async () => userScope("shared"), signal: abort.signal, pollMs: 100 });
    const streams = [open(), open(), open()].map((stream) => stream.getReader());
    await Promise.all(streams.map((reader) => reader.read()));
    await new Promise((r) => setTimeout(r, 450));
    abort.abort();
    // About five intervals passed: one stream alone reads about five times; three share those reads.
    expect(reads).toBeGreaterThanOrEqual(3);
    expect(reads).toBeLessThanOrEqual(7);
  });
});
