import { describe, expect, it } from "vitest";
import { adminScope, canWrite, ownerSql, ownerWhere, userScope } from "@/lib/db/scope.ts";

/**
 * Owner-less rows are shared: resources that allow it (metrics of user-less sessions, shared
 * knowledge, pre-v3 documents) let everyone read them, but only admins change them. These are the
 * primitives those resources build on.
 */
describe("shared (owner-less) rows", () => {
  const alice = userScope("alice");

  it("are readable by members where the resource includes shared rows, and only then", () => {
    expect(ownerSql(alice, "user_id", { includeShared: true })).toEqual({ clause: "(user_id = ? OR user_id IS NULL)", params: ["alice"] });
    expect(ownerSql(alice)).toEqual({ clause: "user_id = ?", params: ["alice"] });
    expect(ownerWhere(alice, { includeShared: true })).toEqual({ OR: [{ user_id: "alice" }, { user_id: null }] });
  });

  it("are writable by admins only", () => {
    expect(canWrite(alice, null)).toBe(false);
    expect(canWrite(alice, "bob")).toBe(false);
    expect(canWrite(alice, "alice")).toBe(true);
    expect(canWrite(adminScope(), null)).toBe(true);
  });

  it("an admin can address exactly the shared rows", () => {
    expect(ownerSql(adminScope(null))).toEqual({ clause: "user_id IS NULL", params: [] });
    expect(ownerSql(adminScope())).toEqual({ clause: "1=1", params: [] });
  });
});
