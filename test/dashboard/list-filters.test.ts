import { describe, expect, it } from "vitest";
import { z } from "zod";
import { anyFilterOn, choice, choices, day, filterFields, oneOf, readFilters, someOf, text } from "@/lib/http/dashboard/list-filters.ts";

const filters = z.object({
  status: someOf(["PENDING", "RUNNING"], { label: "Status" }),
  type: oneOf(["agent", "team"], { label: "Type", labels: { agent: "Agent runs" } }),
  enabled: oneOf(["yes", "no"], { label: "State", expected: "yes or no" }),
  agent: choice({ label: "Agent" }),
  topic: choices({ label: "Topic" }),
  q: text({ label: "Name contains", trim: true }),
  from: day({ label: "From" }),
  to: day({ label: "To", endOfDay: true }),
});

describe("dashboard list filters", () => {
  it("parses each filter from the URL; a bad value is a problem naming the parameter and no filter", () => {
    const read = readFilters(filters, { status: ["BOGUS", "RUNNING", "PENDING"], type: "robot", enabled: "maybe", agent: "assistant", q: "  tea ", from: "2026-02-31", to: "2026-03-01" });
    expect(read.problems).toEqual([
      'status must be one of PENDING, RUNNING, got "BOGUS"',
      'type must be one of agent, team, got "robot"',
      'enabled must be yes or no, got "maybe"',
      'from must be a date like 2026-12-01, got "2026-02-31"',
    ]);
    expect(read.values).toEqual({ status: ["RUNNING", "PENDING"], agent: "assistant", topic: [], q: "tea", to: Date.parse("2026-03-02T00:00:00Z") / 1000 });
    // The form shows the first valid value, the text as it filters, a date as the URL wrote it.
    expect(read.shown).toEqual({ status: "RUNNING", agent: "assistant", q: "tea", to: "2026-03-01" });
  });

  it("counts no filter as on for absent, empty or all-space values", () => {
    const read = readFilters(filters, { q: "   ", agent: "", status: [] });
    expect(read.problems).toEqual([]);
    expect(anyFilterOn(read.values)).toBe(false);
    expect(anyFilterOn(readFilters(filters, { topic: "food" }).values)).toBe(true);
  });

  it("describes the filter bar: fixed choices named, the page's choices, a chosen value the page lacks kept", () => {
    const fields = filterFields(filters, { type: "agent", agent: "gone" }, { agent: [{ value: "assistant", label: "Assistant" }] });
    expect(fields.map((f) => [f.name, f.control, f.label])).toEqual([
      ["status", "select", "Status"],
      ["type", "select", "Type"],
      ["enabled", "select", "State"],
      ["agent", "select", "Agent"],
      ["topic", "select", "Topic"],
      ["q", "text", "Name contains"],
      ["from", "date", "From"],
      ["to", "date", "To"],
    ]);
    expect(fields[1]).toMatchObject({
      value: "agent",
      options: [
        { value: "agent", label: "Agent runs" },
        { value: "team", label: "team" },
      ],
    });
    expect(fields[3]?.options).toEqual([
      { value: "assistant", label: "Assistant" },
      { value: "gone", label: "gone" },
    ]);
  });

  it("refuses a filter built without a control", () => {
    expect(() => filterFields(z.object({ raw: z.string() }), {})).toThrow(/list filter "raw" has no control/);
  });
});
