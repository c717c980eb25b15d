import { describe, expect, it } from "vitest";
import { hasScope, type Principal } from "@/lib/auth/principal.ts";
import { scopeGrants, scopeOverlaps } from "@/lib/auth/scope-match.ts";

const user = (scopes: string[], deniedScopes?: string[]): Principal => ({
  kind: "service_account",
  userId: "sa:x",
  scopes,
  deniedScopes,
  authenticatedBy: "service_account",
  isAdmin: false,
});

describe("scope matching", () => {
  it("grants exact, family, id-wildcard and action-wildcard scopes, nothing wider", () => {
    expect(scopeGrants("agents:run", "agents:abc:run")).toBe(true);
    expect(scopeGrants("agents:*:run", "agents:run")).toBe(true);
    expect(scopeGrants("agents:abc:run", "agents:run")).toBe(false);
    expect(scopeGrants("agents:abc:run", "agents:xyz:run")).toBe(false);
    expect(scopeGrants("sessions:*", "sessions:delete")).toBe(true);
    expect(scopeGrants("sessions:read", "sessions:*")).toBe(false);
    expect(scopeGrants("sessions:read", "memories:read")).toBe(false);
    expect(scopeGrants("odd", "odd")).toBe(true);
    expect(scopeGrants("a:b:c:d", "a:b")).toBe(false);
  });

  it("treats a deny as overlapping anything it takes a part of", () => {
    expect(scopeOverlaps("agents:abc:run", "agents:run")).toBe(true);
    expect(scopeOverlaps("agents:abc:run", "agents:abc:run")).toBe(true);
    expect(scopeOverlaps("agents:abc:run", "agents:xyz:run")).toBe(false);
    expect(scopeOverlaps("agents:abc:run", "agents:abc:read")).toBe(false);
    expect(scopeOverlaps("sessions:*", "sessions:read")).toBe(true);
  });

  it("hasScope checks denies first, over wildcards and agent_os:admin alike", () => {
    const p = user(["agents:*:run", "agent_os:admin"], ["agents:abc:run", "sessions:delete"]);
    expect(hasScope(p, "agents:xyz:run")).toBe(true);
    expect(hasScope(p, "agents:abc:run")).toBe(false);
    expect(hasScope(p, "agents:run")).toBe(false);
    expect(hasScope(p, "sessions:delete")).toBe(false);
    expect(hasScope(p, "sessions:read")).toBe(true);
    expect(hasScope(user(["config:read"], ["system:read"]), "config:read")).toBe(false);
    expect(hasScope(user(["system:read"]), "config:read")).toBe(true);
  });
});
