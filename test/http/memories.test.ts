import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { upsertMemory } from "@/lib/db/index.ts";
import { MemoryListSchema, MemoryTopicsSchema, UserMemorySchema, UserStatsListSchema } from "@/lib/http/schemas/memories.ts";
import { uid } from "../support/agno-runs.ts";
import { openApiSuite, withScopes } from "../support/api.ts";
import { mintPrincipals } from "../support/principals.ts";
import { adminScope, userScope } from "../support/scopes.ts";

const MEMORY_SCOPES = ["memories:read", "memories:write", "memories:delete"];
let suite: Awaited<ReturnType<typeof openApiSuite>>;
beforeAll(async () => {
  suite = await openApiSuite("memories");
});
afterAll(() => suite.close());

const user = () => `u-${uid("m")}`;
const locs = (body: { detail: { loc: unknown[] }[] }) => body.detail.map((d) => d.loc.join("."));

async function remember(userId: string, memory: string, extra: { topics?: string[]; agentId?: string; teamId?: string; updatedAt?: number } = {}) {
  const stored = await upsertMemory(suite.db, { scope: adminScope(userId), memory: { memory, topics: extra.topics, agentId: extra.agentId, teamId: extra.teamId } });
  if (extra.updatedAt) await suite.db.sql.exec("UPDATE agno_memories SET updated_at = ? WHERE memory_id = ?", [extra.updatedAt, stored.memory_id]);
  return stored.memory_id;
}

describe("POST /memories", () => {
  it("creates a memory (200 UserMemorySchema) and requires a user id from an identity-less admin (400)", async () => {
    const owner = user();
    const created = await suite.api("POST", "/memories", { body: { memory: "Likes green tea", user_id: owner, topics: ["drinks"] } });
    expect(created.status).toBe(200);
    expect(UserMemorySchema.parse(created.body)).toMatchObject({ memory: "Likes green tea", user_id: owner, topics: ["drinks"], agent_id: null });
    expect(created.body.updated_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(await suite.api("POST", "/memories", { body: { memory: "orphan" } })).toEqual({ status: 400, body: { detail: "User ID is required" } });
    expect(locs((await suite.api("POST", "/memories", { body: { memory: "", user_id: owner } })).body)).toEqual(["body.memory"]);
    expect(locs((await suite.api("POST", "/memories", { body: { user_id: owner, topics: "drinks" } })).body)).toEqual(["body.memory", "body.topics"]);
  });
});

describe("GET /memories", () => {
  it("filters by user, agent, team, topics and content, and pages and sorts", async () => {
    const owner = user();
    const tea = await remember(owner, "Likes green tea", { topics: ["drinks", "preferences"], agentId: "assistant", updatedAt: 1_700_000_300 });
    const coffee = await remember(owner, "Hates coffee", { topics: ["drinks"], teamId: "squad", updatedAt: 1_700_000_200 });
    const paris = await remember(owner, "Lives in Paris", { topics: ["location"], updatedAt: 1_700_000_100 });
    await remember(user(), "Someone else's tea");
    const ids = async (query: string) => MemoryListSchema.parse((await suite.api("GET", `/memories?user_id=${owner}&${query}`)).body).data.map((m) => m.memory_id);
    expect(await ids("")).toEqual([tea, coffee, paris]);
    expect(await ids("sort_order=asc")).toEqual([paris, coffee, tea]);
    expect(await ids("agent_id=assistant")).toEqual([tea]);
    expect(await ids("team_id=squad")).toEqual([coffee]);
    expect(await ids("topics=location,preferences")).toEqual([tea, paris]);
    expect(await ids("topics=location&topics=preferences")).toEqual([tea, paris]);
    expect(await ids("search_content=TEA")).toEqual([tea]);
    const page = MemoryListSchema.parse((await suite.api("GET", `/memories?user_id=${owner}&limit=2&page=2`)).body);
    expect(page.data.map((m) => m.memory_id)).toEqual([paris]);
    expect(page.meta).toMatchObject({ page: 2, limit: 2, total_pages: 2, total_count: 3 });
    expect(page.data[0].updated_at).toBe("2023-11-14T22:15:00.000Z");
  });

  it("rejects bad parameters with 422 naming them, and bad database selection with 400/404", async () => {
    for (const [query, loc] of [
      ["topics=,,", "query.topics"],
      ["sort_by=memory", "query.sort_by"],
      ["sort_order=sideways", "query.sort_order"],
      ["page=0", "query.page"],
      ["limit=-1", "query.limit"],
    ] as const) {
      const { status, body } = await suite.api("GET", `/memories?${query}`);
      expect(status, query).toBe(422);
      expect(locs(body), query).toEqual([loc]);
    }
    expect(await suite.api("GET", "/memories?db_id=nope")).toEqual({ status: 404, body: { detail: "No database found with id 'nope'" } });
    expect((await suite.api("GET", "/memories?table=agno_memories")).status).toBe(400);
    expect((await suite.api("GET", `/memories?db_id=${suite.dbId}&table=agno_memories`)).status).toBe(200);
  });
});

describe("one memory", () => {
  it("GET, PATCH (keeping topics and agent when not given) and DELETE, with 404s for a missing id", async () => {
    const owner = user();
    const id = await remember(owner, "Has a cat", { topics: ["pets"], agentId: "assistant" });
    expect(UserMemorySchema.parse((await suite.api("GET", `/memories/${id}`)).body).memory).toBe("Has a cat");
    const patched = await suite.api("PATCH", `/memories/${id}`, { body: { memory: "Has two cats", user_id: owner } });
    expect(patched.status).toBe(200);
    expect(UserMemorySchema.parse(patched.body)).toMatchObject({ memory_id: id, memory: "Has two cats", topics: ["pets"], agent_id: "assistant", user_id: owner });
    expect(await suite.api("PATCH", `/memories/${id}`, { body: { memory: "x" } })).toEqual({ status: 400, body: { detail: "User ID is required" } });
    expect(await suite.api("DELETE", `/memories/${id}`)).toEqual({ status: 204, body: null });
    for (const [method, body] of [["GET"], ["PATCH", { memory: "x", user_id: owner }], ["DELETE"]] as const) {
      expect(await suite.api(method, `/memories/${id}`, { body }), method).toEqual({ status: 404, body: { detail: `Memory with ID ${id} not found` } });
    }
  });

  it("DELETE /memories deletes several (204); an empty list is 422", async () => {
    const owner = user();
    const ids = [await remember(owner, "one"), await remember(owner, "two")];
    expect((await suite.api("DELETE", "/memories", { body: { memory_ids: ids, user_id: owner } })).status).toBe(204);
    expect(MemoryListSchema.parse((await suite.api("GET", `/memories?user_id=${owner}`)).body).meta.total_count).toBe(0);
    expect(locs((await suite.api("DELETE", "/memories", { body: { memory_ids: [] } })).body)).toEqual(["body.memory_ids"]);
  });
});

describe("topics, stats and optimisation", () => {
  it("GET /memory_topics lists distinct sorted topics; GET /user_memory_stats counts per user", async () => {
    const first = user();
    const second = user();
    await remember(first, "a", { topics: ["work", "food"], updatedAt: 1_900_000_100 });
    await remember(first, "b", { topics: ["food"], updatedAt: 1_900_000_200 });
    await remember(second, "c", { topics: ["sport"], updatedAt: 1_900_000_300 });
    expect(MemoryTopicsSchema.parse((await suite.api("GET", `/memory_topics?user_id=${first}`)).body)).toEqual(["food", "work"]);
    const stats = UserStatsListSchema.parse((await suite.api("GET", "/user_memory_stats?limit=2")).body);
    expect(stats.data).toEqual([
      { user_id: second, total_memories: 1, last_memory_updated_at: new Date(1_900_000_300_000).toISOString() },
      { user_id: first, total_memories: 2, last_memory_updated_at: new Date(1_900_000_200_000).toISOString() },
    ]);
    expect(stats.meta.limit).toBe(2);
    expect(stats.meta.total_count).toBeGreaterThanOrEqual(2);
    expect(locs((await suite.api("GET", "/user_memory_stats?page=0")).body)).toEqual(["query.page"]);
  });

  it("POST /optimize-memories: 404 when the user has no memories, else 501 without changing anything", async () => {
    const owner = user();
    expect(await suite.api("POST", "/optimize-memories", { body: { user_id: owner } })).toEqual({ status: 404, body: { detail: "No memories found for user" } });
    const id = await remember(owner, "keep me");
    const response = await suite.api("POST", "/optimize-memories", { body: { user_id: owner, apply: true } });
    expect(response.status).toBe(501);
    expect(response.body.detail).toMatch(/model-backed memory manager/);
    expect((await suite.api("GET", `/memories/${id}`)).body.memory).toBe("keep me");
    expect(await suite.api("POST", "/optimize-memories", { body: {} })).toEqual({ status: 400, body: { detail: "User ID is required" } });
  });
});

describe("isolation: user A cannot see or change user B's memories", () => {
  it("answers 404 for B's memory, lists, counts and topics only A's own, and stamps A's writes as A", async () => {
    const p = mintPrincipals();
    const a = withScopes(p.a, MEMORY_SCOPES);
    const theirs = await upsertMemory(suite.db, { scope: userScope(p.userB), memory: { memory: "B's secret", topics: ["secret"] } });
    const mine = await suite.api("POST", "/memories", { as: a, body: { memory: "A's note", user_id: p.userB, topics: ["note"] } });
    expect(mine.body.user_id).toBe(p.userA);

    for (const [method, body] of [["GET"], ["PATCH", { memory: "hijacked", user_id: p.userB }], ["DELETE"]] as const) {
      const response = await suite.api(method, `/memories/${theirs.memory_id}?user_id=${p.userB}`, { as: a, body });
      expect(response, method).toEqual({ status: 404, body: { detail: `Memory with ID ${theirs.memory_id} not found` } });
    }
    expect((await suite.api("DELETE", "/memories", { as: a, body: { memory_ids: [theirs.memory_id], user_id: p.userB } })).status).toBe(204);
    const list = MemoryListSchema.parse((await suite.api("GET", `/memories?user_id=${p.userB}`, { as: a })).body);
    expect(list.data.map((m) => m.memory)).toEqual(["A's note"]);
    expect((await suite.api("GET", `/memory_topics?user_id=${p.userB}`, { as: a })).body).toEqual(["note"]);
    expect(UserStatsListSchema.parse((await suite.api("GET", "/user_memory_stats", { as: a })).body).data.map((s) => s.user_id)).toEqual([p.userA]);

    const stillThere = await suite.api("GET", `/memories/${theirs.memory_id}`, { as: withScopes(p.b, MEMORY_SCOPES) });
    expect(UserMemorySchema.parse(stillThere.body).memory).toBe("B's secret");
    const reader = withScopes(p.a, ["memories:read"]);
    expect((await suite.api("POST", "/memories", { as: reader, body: { memory: "x" } })).status).toBe(403);
    expect((await suite.api("POST", "/optimize-memories", { as: reader, body: {} })).status).toBe(403);
  });
});
