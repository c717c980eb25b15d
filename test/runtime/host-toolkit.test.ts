import { afterEach, describe, expect, it, vi } from "vitest";
import { hostToolkit } from "@/lib/runtime/tools/host/host.ts";
import { executeTool, newToolExecution } from "@/lib/runtime/tools/run-tool.ts";
import type { ToolContext, ToolDefinition } from "@/lib/runtime/tools/types.ts";
import { isPending } from "@/lib/runtime/run-loop.ts";

const context: ToolContext = { runId: "run-1", sessionId: "session-1", agentId: "assistant", userId: null, signal: new AbortController().signal };

function tool(name: string): ToolDefinition<unknown> {
  const found = hostToolkit.tools.find((t) => t.name === name);
  if (!found) throw new Error(`no tool ${name}`);
  return found as ToolDefinition<unknown>;
}

/** A call the model made, as the run loop records it (flagged for the human steps it needs). */
const callOf = (name: string, input: Record<string, unknown> = {}) => newToolExecution(tool(name), { toolCallId: `call-${name}`, toolName: name, input });

afterEach(() => {
  vi.useRealTimers();
});

describe("Host toolkit", () => {
  it("pauses environment_variable_names for an admin's approval, and reports names only, filtered by prefix", async () => {
    const call = callOf("environment_variable_names", { prefix: "NODE" });
    expect(call).toMatchObject({ approval_type: "required", requires_confirmation: true, confirmed: null });
    expect(isPending(call)).toBe(true);
    process.env.NODE_AGENTRY_HOST_TEST = "secret-value";
    try {
      const done = await executeTool(tool("environment_variable_names"), { ...call, confirmed: true }, context);
      const names = (done.result as { names: string[] }).names;
      expect(names).toContain("NODE_AGENTRY_HOST_TEST");
      expect(names.every((n) => n.startsWith("NODE"))).toBe(true);
      expect(JSON.stringify(done.result)).not.toContain("secret-value");
    } finally {
      delete process.env.NODE_AGENTRY_HOST_TEST;
    }
  });

  it("pauses server_details for confirmation, and once confirmed reports the machine", async () => {
    const call = callOf("server_details");
    expect(call).toMatchObject({ requires_confirmation: true, confirmed: null });
    expect(isPending(call)).toBe(true);
    const done = await executeTool(tool("server_details"), { ...call, confirmed: true }, context);
    expect(done.tool_call_error).toBe(false);
    expect(done.result).toMatchObject({ node_version: process.version, platform: process.platform });
    expect((done.result as { cpus: number }).cpus).toBeGreaterThan(0);
  });

  it("asks the user for current_time's time zone and clock style, and answers in that zone", async () => {
    const call = callOf("current_time");
    expect(call.requires_user_input).toBe(true);
    expect(call.user_input_schema?.map((f) => [f.name, f.field_type])).toEqual([
      ["time_zone", "str"],
      ["hour12", "bool"],
    ]);
    expect(isPending(call)).toBe(true);

    vi.useFakeTimers({ now: new Date("2025-06-03T12:05:00Z"), toFake: ["Date"] });
    // The run loop merges the user's answers into the arguments before the tool runs.
    const oslo = await executeTool(tool("current_time"), { ...call, tool_args: { time_zone: "Europe/Oslo", hour12: false } }, context);
    expect(oslo.result).toMatchObject({ time_zone: "Europe/Oslo", utc: "2025-06-03T12:05:00.000Z" });
    // ICU versions differ in punctuation ("Tuesday, 3 June" or "Tuesday 3 June"), not in the time.
    expect((oslo.result as { local_time: string }).local_time).toMatch(/^Tuesday,? 3 June 2025 at 14:05$/);
    const newYork = await executeTool(tool("current_time"), { ...call, tool_args: { time_zone: "America/New_York", hour12: true } }, context);
    expect((newYork.result as { local_time: string }).local_time).toMatch(/8:05\s?am/i);
  });

  it("tells the model plainly when the time zone does not exist", async () => {
    const done = await executeTool(tool("current_time"), { ...callOf("current_time"), tool_args: { time_zone: "Mars/Olympus" } }, context);
    expect(done.tool_call_error).toBe(true);
    expect(done.result).toBe("Error running current_time: unknown time zone 'Mars/Olympus': use an IANA name such as Europe/Oslo");
  });
});
