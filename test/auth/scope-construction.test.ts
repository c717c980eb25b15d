import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { dataScopeFor, type Principal } from "@/lib/auth/principal.ts";
import { unsafeSystemScope } from "@/lib/db/scope.ts";

/**
 * A DataScope is made by dataScopeFor(principal, …) or by unsafeSystemScope(reason, …) and by
 * nothing else: the type's brand makes an object literal a type error, and this suite finds the
 * casts that would get around it, and every use of the escape hatch.
 */

const ROOTS = ["lib", "app", "components", "workers", "bin", "bench"];
const SOURCE = /\.(ts|tsx|mts|mjs)$/;

function sources(): { path: string; text: string }[] {
  const found: { path: string; text: string }[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      if (entry === "node_modules" || entry === "generated") continue;
      if (statSync(path).isDirectory()) walk(path);
      else if (SOURCE.test(entry)) found.push({ path: relative(process.cwd(), path), text: readFileSync(path, "utf8") });
    }
  };
  for (const root of ROOTS) walk(join(process.cwd(), root));
  return found;
}

const files = sources();
const where = (pattern: RegExp) =>
  files
    .filter((f) => pattern.test(f.text))
    .map((f) => f.path)
    .sort();

describe("who makes a data scope", () => {
  it("casts to DataScope only where the two constructors live", () => {
    expect(where(/as DataScope\b/)).toEqual(["lib/auth/principal.ts", "lib/db/scope.ts"]);
  });

  it("has no other constructor: adminScope/userScope are test helpers only (test/support/scopes.ts)", () => {
    expect(where(/\b(adminScope|userScope)\s*\(/)).toEqual([]);
  });

  it("never uses the escape hatch on the request path, and gives every use a reason", () => {
    // Every call but the definition (and its doc comment) in lib/db/scope.ts.
    const calls = files.filter((f) => f.path !== "lib/db/scope.ts").flatMap((f) => [...f.text.matchAll(/unsafeSystemScope\(\s*([^,)]*)/g)].map((m) => ({ path: f.path, reason: m[1].trim() })));
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.filter((u) => u.path.startsWith("lib/http/") || u.path.startsWith("app/")).map((u) => u.path)).toEqual([]);
    // Its reason is written where it is called: a string saying why there is no principal.
    expect(calls.filter((u) => !/^["'`].{10,}/.test(u.reason)).map((u) => `${u.path}: ${u.reason}`)).toEqual([]);
  });

  it("gives the same shapes both ways", () => {
    const admin: Principal = { kind: "admin", userId: null, scopes: ["agent_os:admin"], authenticatedBy: "none", isAdmin: true };
    const member: Principal = { kind: "user", userId: "u1", scopes: [], authenticatedBy: "jwt", isAdmin: false, isolated: true };
    expect(dataScopeFor(admin)).toEqual(unsafeSystemScope("test: every row"));
    expect(dataScopeFor(admin, null)).toEqual(unsafeSystemScope("test: the shared rows", { actingAs: null }));
    expect(dataScopeFor(member)).toEqual(unsafeSystemScope("test: as the member", { actingAs: "u1" }));
    expect(dataScopeFor({ ...member, isolated: false }, "u2", { isolation: "always" })).toEqual({ kind: "user", userId: "u1" });
  });
});
