import { expect, test } from "@playwright/test";

type Json = Record<string, unknown>;

/** Reads SSE frames from a fetch body as they arrive. */
async function* sseEvents(response: Response): AsyncGenerator<Json> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = buffer.indexOf("\n\n")) !== -1) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = frame.split("\n").find((line) => line.startsWith("data: "));
      if (data) yield JSON.parse(data.slice(6)) as Json;
    }
  }
}

test("against next start: events stream one by one, and a run started by one route is cancelled through another", async ({ baseURL }) => {
  const form = new FormData();
  form.set("message", "slow please");
  form.set("stream", "true");
  form.set("session_id", "");
  // A browser asks for gzip; the stream must still arrive event by event.
  const response = await fetch(`${baseURL}/agents/assistant/runs`, { method: "POST", body: form, headers: { "accept-encoding": "gzip, deflate, br" } });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toContain("text/event-stream");
  expect(response.headers.get("content-encoding")).toBeNull();
  // Read by hand: breaking out of a for-await would close the stream.
  const events = sseEvents(response);
  let first: Json | undefined;
  const seen: Json[] = [];
  while (!first) {
    const next = await events.next();
    if (next.done) break;
    seen.push(next.value);
    if (next.value.event === "RunContent") first = next.value;
  }
  // The model streams 40 words 150 ms apart: the first delta is here long before the run could end.
  expect(first?.content).toBe("word1 ");
  const cancel = await fetch(`${baseURL}/agents/assistant/runs/${first!.run_id}/cancel?session_id=${first!.session_id}`, { method: "POST" });
  expect(cancel.status).toBe(200);
  for await (const event of events) seen.push(event);
  const names = seen.map((e) => e.event);
  // As in Agno v3: RunCancelled, then RunCompleted as the stream's end; the run stays CANCELLED.
  expect(names.slice(-2)).toEqual(["RunCancelled", "RunCompleted"]);
  expect(seen.filter((e) => e.event === "RunContent").length).toBeLessThan(40);

  const stored = (await (await fetch(`${baseURL}/agents/assistant/runs/${first!.run_id}?session_id=${first!.session_id}`)).json()) as Json;
  expect(stored.status).toBe("CANCELLED");
});

test("agent-ui's calls: plain arrays with db_id, a tool call streamed, the new session listed", async ({ baseURL }) => {
  const agents = (await (await fetch(`${baseURL}/agents`)).json()) as Json[];
  expect(Array.isArray(agents)).toBe(true);
  expect(agents[0]).toMatchObject({ id: "assistant", db_id: "agentry-db" });
  // The sample's team and workflow, as agent-ui lists them.
  const teams = (await (await fetch(`${baseURL}/teams`)).json()) as Json[];
  expect(teams.map((t) => [t.id, t.mode, t.db_id])).toEqual([["research-desk", "coordinate", "agentry-db"]]);
  expect((teams[0]!.members as Json[]).map((m) => m.id)).toEqual(["analyst", "writer"]);
  const workflows = (await (await fetch(`${baseURL}/workflows`)).json()) as Json[];
  expect(workflows.map((w) => [w.id, w.db_id])).toEqual([["brief", "agentry-db"]]);

  const form = new FormData();
  form.set("message", "add 2 and 40");
  form.set("stream", "true");
  form.set("session_id", "");
  const events: Json[] = [];
  for await (const event of sseEvents(await fetch(`${baseURL}/agents/assistant/runs`, { method: "POST", body: form }))) events.push(event);
  expect(events.find((e) => e.event === "ToolCallCompleted")?.tool).toMatchObject({ tool_name: "add", result: { result: 42 } });
  expect(events.at(-1)).toMatchObject({ event: "RunCompleted" });
  const sessionId = String(events[0].session_id);
  const sessions = (await (await fetch(`${baseURL}/sessions?type=agent&component_id=assistant&db_id=agentry-db`)).json()) as { data: Json[] };
  expect(sessions.data.map((s) => s.session_id)).toContain(sessionId);
});
