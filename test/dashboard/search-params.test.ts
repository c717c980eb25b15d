import { describe, expect, it } from "vitest";
import { allParams, firstParam, pathId } from "@/lib/http/dashboard/search-params.ts";

describe("dashboard URL values", () => {
  it("a filter holding a NUL or a lone surrogate is no filter (PostgreSQL cannot compare such text)", () => {
    expect(firstParam({ q: "a\u0000b" }, "q")).toBeUndefined();
    expect(firstParam({ q: "x\ud800" }, "q")).toBeUndefined();
    expect(firstParam({ q: ["", "second"] }, "q")).toBeUndefined();
    expect(firstParam({ q: "caf\u00e9 \u{1F600}" }, "q")).toBe("caf\u00e9 \u{1F600}");
    expect(allParams({ status: ["COMPLETED", "\u0000", "", "ERROR"] }, "status")).toEqual(["COMPLETED", "ERROR"]);
  });

  it("a path id with a broken escape or unstorable text is no id (the page answers 404)", () => {
    expect(pathId("%E0%A4")).toBeNull();
    expect(pathId("a%00b")).toBeNull();
    expect(pathId("%ED%A0%80")).toBeNull();
    expect(pathId("")).toBeNull();
    expect(pathId("run%2F1")).toBe("run/1");
    expect(pathId("sess-%F0%9F%98%80")).toBe("sess-\u{1F600}");
  });
});
