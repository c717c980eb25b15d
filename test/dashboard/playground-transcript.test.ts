import { describe, expect, it } from "vitest";
import type { RunStreamEvent } from "@/components/dashboard/playground/run-api.ts";
import { readSse } from "@/components/dashboard/playground/sse-events.ts";
import { applyRunEvent, decidedTools, endOfStream, newRun, type RunView } from "@/components/dashboard/playground/transcript.ts";
import type { RunRequirement } from "@/lib/runtime/run-output.ts";

function streamOf(chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

async function collect(chunks: string[]) {
  const out = [];
  for await (const message of readSse(streamOf(chunks))) out.push(message);
  return out;
}

const replay = (events: RunStreamEvent[], from: RunView = newRun()) => events.reduce(applyRunEvent, from);
const base = { run_id: "run-1", session_id: "session-1" };

const confirmRequirement: RunRequirement = {
  id: "call-1",
  created_at: 0,
  confirmation: null,
  tool_execution: { tool_call_id: "call-1", tool_name: "server_details", tool_args: {}, created_at: 0, requires_confirmation: true, confirmed: null },
};
const inputRequirement: RunRequirement = {
  id: "call-2",
  created_at: 0,
  user_input_schema: [{ name: "time_zone", field_type: "str", value: null }],
  tool_execution: {
    tool_call_id: "call-2",
    tool_name: "current_time",
    tool_args: {},
    created_at: 0,
    requires_user_input: true,
    answered: false,
    user_input_schema: [{ name: "time_zone", field_type: "str", value: null }],
  },
};

describe("the playground's SSE reader", () => {
  it("yields frames split across chunks, CRLF ends included, and skips heartbeats", async () => {
    const messages = await collect(['event: RunStarted\ndata: {"a"', ":1}\n\n: heartbeat\n\n", "event: RunContent\r", '\ndata: {"b":2}\r\n\r\n', "data: line one\ndata: line two\n\n"]);
    expect(messages).toEqual([
      { event: "RunStarted", data: '{"a":1}' },
      { event: "RunContent", data: '{"b":2}' },
      { event: "message", data: "line one\nline two" },
    ]);
  });

  it("drops a frame the stream ended in the middle of", async () => {
    expect(await collect(['event: RunCompleted\ndata: {"c":3}\n\nevent: RunContent\ndata: {"cut'])).toEqual([{ event: "RunCompleted", data: '{"c":3}' }]);
  });
});

describe("the playground's transcript", () => {
  it("streams text, puts tool calls between it, and does not repeat the streamed answer", () => {
    const tool = { tool_call_id: "t1", tool_name: "add", tool_args: { a: 2, b: 3 }, created_at: 0 };
    const run = replay([
      { event: "RunStarted", ...base },
      { event: "RunContent", content: "Let me ", ...base },
      { event: "RunContent", content: "add.", ...base },
      { event: "ToolCallStarted", tool, ...base },
      { event: "ToolCallCompleted", tool: { ...tool, result: { result: 5 }, tool_call_error: false }, ...base },
      { event: "RunContent", content: "The sum is 5.", ...base },
      { event: "RunCompleted", content: "The sum is 5.", ...base },
    ]);
    expect(run).toMatchObject({ runId: "run-1", sessionId: "session-1", phase: "completed" });
    expect(run.parts).toEqual([
      { kind: "text", text: "Let me add." },
      { kind: "tool", call: { id: "t1", name: "add", args: { a: 2, b: 3 }, status: "done", result: { result: 5 } } },
      { kind: "text", text: "The sum is 5." },
    ]);
  });

  it("shows a final answer that was not streamed: text, or structured output", () => {
    expect(replay([{ event: "RunCompleted", content: "whole answer", ...base }]).parts).toEqual([{ kind: "text", text: "whole answer" }]);
    expect(replay([{ event: "RunCompleted", content: { city: "Oslo" }, ...base }]).parts).toEqual([{ kind: "structured", value: { city: "Oslo" } }]);
  });

  it("waits on a pause, then marks a rejected call when the continued run reports it", () => {
    const paused = replay([
      { event: "RunStarted", ...base },
      { event: "RunPaused", requirements: [confirmRequirement], tools: [confirmRequirement.tool_execution], ...base },
    ]);
    expect(paused.phase).toBe("paused");
    expect(paused.requirements).toEqual([confirmRequirement]);
    expect(paused.parts).toMatchObject([{ kind: "tool", call: { name: "server_details", status: "awaiting" } }]);
    const rejected = { ...confirmRequirement.tool_execution, confirmed: false, result: "The user rejected this tool call." };
    const continued = replay(
      [
        { event: "RunContinued", ...base },
        { event: "ToolCallCompleted", tool: rejected, ...base },
        { event: "RunCompleted", content: "Understood.", ...base },
      ],
      paused,
    );
    expect(continued.requirements).toEqual([]);
    expect(continued.parts).toMatchObject([
      { kind: "tool", call: { status: "rejected" } },
      { kind: "text", text: "Understood." },
    ]);
  });

  it("shows a RunError's content, and a stream that closed mid-run as an error", () => {
    expect(
      replay([
        { event: "RunStarted", ...base },
        { event: "RunError", content: "Model provider returned 500: scripted failure", ...base },
      ]),
    ).toMatchObject({
      phase: "error",
      error: "Model provider returned 500: scripted failure",
    });
    expect(endOfStream(replay([{ event: "RunStarted", ...base }]))).toMatchObject({ phase: "error", error: expect.stringContaining("closed before the run finished") });
    expect(endOfStream(replay([{ event: "RunCancelled", reason: "Run cancelled", ...base }]))).toMatchObject({ phase: "cancelled", cancelReason: "Run cancelled" });
  });

  it("a cancelled run's stream ends RunCancelled, RunCompleted: the run stays cancelled, the completion's content not shown as an answer", () => {
    const run = replay([
      { event: "RunStarted", ...base },
      { event: "RunContent", content: "Half an", ...base },
      { event: "RunCancelled", reason: "Run cancelled by request", content: "Half an", ...base },
      { event: "RunCompleted", content: "Half an", ...base },
    ]);
    expect(run).toMatchObject({ phase: "cancelled", cancelReason: "Run cancelled by request", parts: [{ kind: "text", text: "Half an" }] });
    expect(endOfStream(run).phase).toBe("cancelled");
  });

  it("turns the user's decisions into the tool executions continue takes", () => {
    const tools = decidedTools([confirmRequirement, inputRequirement], { confirmed: { "call-1": true }, values: { "call-2": { time_zone: "Europe/Oslo" } }, results: {} });
    expect(tools).toEqual([
      { ...confirmRequirement.tool_execution, confirmed: true },
      { ...inputRequirement.tool_execution, answered: true, user_input_schema: [{ name: "time_zone", field_type: "str", value: "Europe/Oslo" }] },
    ]);
  });
});
