import { describe, expect, it } from "vitest";
import { runEventStream } from "@/lib/http/sse.ts";
import { makeEvent } from "@/lib/live-runs/events.ts";
import { finishRun, publish, registerRun } from "@/lib/live-runs/run-registry.ts";

describe("the run event stream", () => {
  it("sends heartbeat comments while idle and closes when the run ends", async () => {
    const live = registerRun({ runId: `hb-${Date.now()}`, sessionId: "s", componentType: "agent", componentId: "a", userId: null });
    const base = { agent_id: "a", agent_name: "A", run_id: live.runId, session_id: "s" };
    publish(live, makeEvent(base, "RunStarted"));
    const reader = runEventStream({ live, lastEventIndex: null, heartbeatMs: 10 }).getReader();
    const decoder = new TextDecoder();
    let text = "";
    while (!text.includes(": heartbeat")) text += decoder.decode((await reader.read()).value);
    publish(live, makeEvent(base, "RunCompleted", { content: "done" }));
    finishRun(live, "COMPLETED");
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
    }
    expect(text.indexOf("event: RunStarted")).toBeLessThan(text.indexOf(": heartbeat"));
    expect(text).toMatch(/event: RunCompleted\ndata: \{[^\n]*"event":"RunCompleted"/);
  });
});
