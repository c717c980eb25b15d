import { describe, expect, it } from "vitest";
import { matchTemplate, templateToAppDir } from "@/lib/http/path-template.ts";

describe("path templates", () => {
  it("matches params, decodes them and ignores a trailing slash", () => {
    expect(matchTemplate("/agents/{agent_id}/runs/{run_id}", "/agents/a%20b/runs/r1/")).toEqual({ agent_id: "a b", run_id: "r1" });
    expect(matchTemplate("/agents/{agent_id}/runs", "/agents/a/runs/x")).toBeNull();
    expect(matchTemplate("/", "/")).toEqual({});
  });

  it("matches a trailing catch-all of zero or more segments", () => {
    expect(matchTemplate("/queue/{path*}", "/queue")).toEqual({});
    expect(matchTemplate("/queue/{path*}", "/queue/jobs/abc")).toEqual({ path: "jobs/abc" });
    expect(matchTemplate("/x/{id}/{rest*}", "/x/1/a/b")).toEqual({ id: "1", rest: "a/b" });
    expect(matchTemplate("/queue/{path*}", "/queued")).toBeNull();
  });

  it("maps templates to Next.js folders", () => {
    expect(templateToAppDir("/agents/{agent_id}/runs")).toBe("/agents/[agent_id]/runs");
    expect(templateToAppDir("/queue/{path*}")).toBe("/queue/[[...path]]");
  });
});
