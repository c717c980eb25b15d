import { describe, expect, it } from "vitest";
import { ROUTES } from "@/lib/http/route-table.ts";

/**
 * Agno's default scope map (the scopes its AuthMiddleware requires unless configured otherwise),
 * as rules over method and path. Every route of the table must declare exactly the scope these
 * rules give, so a new route is checked automatically.
 */
function agnoScope(method: string, path: string): string | "public" {
  const segments = path.split("/").filter(Boolean);
  const [first] = segments;
  if (["", "health", "info", "docs", "openapi.json"].includes(first ?? "")) return "public";
  if (first === "config" || first === "models") return "config:read";
  if (first === "databases") return "config:write";
  if (first === "queue") return "agent_os:admin";
  if (first === "memory_topics" || first === "user_memory_stats") return "memories:read";
  if (first === "trace_session_stats") return "traces:read";
  if (first === "optimize-memories") return "memories:write";
  const resource = first === "service-accounts" ? "service_accounts" : first === "eval-runs" ? "evals" : first;
  if (["agents", "teams", "workflows"].includes(first) && method === "POST" && (path.endsWith("/runs") || /\/(continue|cancel|resume)$/.test(path))) {
    return `${resource}:run`;
  }
  // Restoring an archived component is a delete's scope in Agno's map.
  if (first === "components" && method === "POST" && path.endsWith("/restore")) return "components:delete";
  // Searches read (knowledge and traces search by POST).
  if (method === "GET" || (method === "POST" && path.endsWith("/search"))) return `${resource}:read`;
  if (method === "DELETE") return `${resource}:delete`;
  return `${resource}:write`;
}

describe("the scope map", () => {
  it("every route declares Agno's default scope for it", () => {
    const mismatches = ROUTES.map((route) => {
      const expected = agnoScope(route.method, route.path);
      const declared = "public" in route.access ? "public" : route.access.permission;
      return declared === expected ? null : `${route.method} ${route.path}: declares ${declared}, Agno's map says ${expected}`;
    }).filter(Boolean);
    expect(mismatches).toEqual([]);
  });
});
