import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  archiveComponent,
  componentIdFromName,
  componentIdProblem,
  createComponent,
  createConfig,
  deleteConfig,
  getComponent,
  getConfig,
  getCurrentConfig,
  listComponents,
  listConfigs,
  ownerDigest,
  restoreComponent,
  setCurrentConfig,
  unsafeComponentHead,
  unsafeLoadComponentVersion,
  updateComponent,
  updateConfig,
  type ComponentCreateBody,
  type StoreCaller,
} from "@/lib/components/store.ts";
import type { Settings } from "@/lib/config/settings.ts";
import { archiveComponentRow, ComponentWriteConflict, getConfigRow, linksOf } from "@/lib/db/components/components.ts";
import { createSchedule, getSchedule } from "@/lib/db/schedules/schedules.ts";
import type { TestDb } from "../support/databases.ts";
import { DIALECTS, useMigratedDb } from "../support/databases.ts";
import { calculatorToolkit } from "@/lib/runtime/tools/calculator/calculator.ts";
import { defineTool, defineToolkit } from "@/lib/runtime/tools/types.ts";
import { HttpError } from "@/lib/errors/http-error.ts";
import { adminScope } from "../support/scopes.ts";
import { testSettings } from "../support/settings.ts";

/**
 * Studio's store (lib/components/store.ts over lib/db/components) on both dialects, with Agno's
 * semantics and texts: ids, versions (max + 1, tombstones never reused), stages, links (members
 * and steps, published parents pin published children), compare-and-set guards (and racing
 * writers: one wins), archive (schedules disabled in the same transaction) and restore,
 * visibility and write rules, draft access and redaction, limits and the config checks.
 */

const vault = defineToolkit({
  id: "vault",
  name: "Vault",
  tools: [defineTool({ name: "open_vault", description: "Opens the vault", parameters: z.object({}), execute: () => "open" })],
});

function settingsWith(limits?: { maxComponentsPerUser?: number; maxConfigBytes?: number; maxInstructionsChars?: number }): Settings {
  return testSettings({
    env: { OPENAI_API_KEY: "sk-test" },
    file: {
      database: { id: "components-db" },
      agents: [{ id: "coded", name: "Coded", model: null }],
      teams: [{ id: "coded-team", name: "Coded team", model: null, members: [{ id: "coded-member", name: "Coded member", model: null }] }],
      registry: { toolkits: [calculatorToolkit, { toolkit: vault, membersMayAttach: false }] },
      ...(limits ? { studio: { limits } } : {}),
    },
  });
}

let seq = 0;
const uid = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${++seq}`;
const member = (userId: string): StoreCaller => ({ userId, isAdmin: false, scoped: true });
const ADMIN: StoreCaller = { userId: null, isAdmin: true, scoped: false };

/** The HttpError a promise rejects with, as `{status, detail}`. */
async function refusal(promise: Promise<unknown>): Promise<{ status: number; detail: unknown }> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof HttpError) return { status: error.status, detail: error.detail };
    throw error;
  }
  throw new Error("expected a refusal");
}

const agentConfig = (word: string, extra: Record<string, unknown> = {}) => ({ name: `Agent ${word}`, instructions: `Say ${word}.`, ...extra });

describe("component ids", () => {
  it("mints from the name as Agno does, and checks explicit ids as path segments", () => {
    expect(componentIdFromName("  Hello, World!! ")).toBe("hello-world");
    expect(componentIdFromName("My_Agent v2")).toBe("my-agent-v2");
    expect(componentIdFromName("Ünïcode Näme")).toBe("ünïcode-näme");
    expect(componentIdFromName("---")).toBe("component");
    expect(componentIdFromName("")).toBe("component");
    expect(ownerDigest("alice")).toBe("2bd806c9");
    expect(componentIdProblem("")).toBe("component_id must not be empty");
    expect(componentIdProblem("a b")).toBe("component_id must not contain whitespace");
    expect(componentIdProblem("a\tb")).toBe("component_id must not contain whitespace");
    expect(componentIdProblem("a/b")).toBe("component_id must not contain '/'");
    expect(componentIdProblem("a\\b")).toBe("component_id must not contain '\\\\'");
    expect(componentIdProblem("a?b")).toBe("component_id must not contain '?'");
    expect(componentIdProblem("a#b")).toBe("component_id must not contain '#'");
    expect(componentIdProblem("a%b")).toBe("component_id must not contain '%'");
    expect(componentIdProblem("a\x01b")).toBe("component_id must not contain '\\x01'");
    expect(componentIdProblem(".")).toBe("component_id must not be a path segment");
    expect(componentIdProblem("..")).toBe("component_id must not be a path segment");
    expect(componentIdProblem("ok.id_1-ü")).toBeNull();
  });
});

describe.each(DIALECTS)("the components store on $name", (dialect) => {
  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    let db: TestDb;
    useMigratedDb(dialect, (opened) => (db = opened));
    const settings = settingsWith();
    const create = (caller: StoreCaller, body: Partial<ComponentCreateBody> & { name: string }) => createComponent(db, settings, caller, { component_type: "agent", ...body });

    it("mints ids (the owner's digest for a scoped caller), refuses bad and taken ids, archived ones included", async () => {
      const alice = uid("alice");
      const name = uid("Research Helper");
      const mine = await create(member(alice), { name });
      expect(mine.component_id).toBe(`${componentIdFromName(name)}-${ownerDigest(alice)}`);
      expect(mine).toMatchObject({ component_type: "agent", name, user_id: alice, current_version: null, deleted_at: null, updated_at: null });
      const shared = await create(ADMIN, { name });
      expect([shared.component_id, shared.user_id]).toEqual([componentIdFromName(name), null]);
      // An admin with an identity of its own owns what it creates.
      expect((await create({ userId: "root", isAdmin: true, scoped: false }, { name: uid("Owned") })).user_id).toBe("root");

      expect(await refusal(create(ADMIN, { name: "x", component_id: "a/b" }))).toEqual({ status: 400, detail: "component_id must not contain '/'" });
      expect(await refusal(create(ADMIN, { name: "x", component_id: "" }))).toEqual({ status: 400, detail: "component_id must not be empty" });
      expect(await refusal(create(ADMIN, { name: "again", component_id: shared.component_id }))).toEqual({ status: 400, detail: `Component ID ${shared.component_id} is not available` });
      await archiveComponent(db, settings, ADMIN, shared.component_id);
      expect(await refusal(create(ADMIN, { name: "again", component_id: shared.component_id }))).toEqual({ status: 400, detail: `Component ID ${shared.component_id} is not available` });
      expect(await refusal(create(ADMIN, { name: "x", stage: "final" }))).toEqual({ status: 400, detail: "Invalid stage: final" });
    });

    it("numbers versions max + 1 and never reuses a deleted draft's number; labels are unique among visible versions", async () => {
      const alice = member(uid("alice"));
      const { component_id: id } = await create(alice, { name: uid("Versions"), config: agentConfig("one"), label: "first" });
      const v2 = await createConfig(db, settings, alice, id, { config: agentConfig("two"), label: "second" });
      const v3 = await createConfig(db, settings, alice, id, { config: agentConfig("three") });
      expect([v2.version, v3.version, v2.stage, v2.label]).toEqual([2, 3, "draft", "second"]);
      expect(await refusal(createConfig(db, settings, alice, id, { config: agentConfig("x"), label: "first" }))).toEqual({ status: 400, detail: `Label 'first' already exists for ${id}` });
      expect(await refusal(updateConfig(db, settings, alice, id, 3, { label: "second" }))).toEqual({ status: 400, detail: `Label 'second' already exists for ${id}` });

      await deleteConfig(db, settings, alice, id, 3);
      await deleteConfig(db, settings, alice, id, 2);
      expect(await refusal(getConfig(db, settings, alice, id, 3))).toEqual({ status: 404, detail: `Config ${id} v3 not found` });
      expect(await refusal(deleteConfig(db, settings, alice, id, 3))).toEqual({ status: 404, detail: `Config ${id} v3 not found` });
      const tombstone = await getConfigRow(db, id, 2, { includeDeleted: true });
      expect([tombstone?.stage, tombstone?.label]).toEqual(["_deleted", null]);
      // The tombstone freed its label, not its number.
      const v4 = await createConfig(db, settings, alice, id, { config: agentConfig("four"), label: "second" });
      expect([v4.version, v4.label]).toEqual([4, "second"]);
      expect((await listConfigs(db, settings, alice, id, { includeConfig: true })).map((c) => c.version)).toEqual([4, 1]);
      const bare = await listConfigs(db, settings, alice, id, { includeConfig: false });
      expect(bare.map((c) => c.config)).toEqual([null, null]);
      await deleteConfig(db, settings, alice, id, 4);
      expect(await refusal(deleteConfig(db, settings, alice, id, 1))).toEqual({ status: 409, detail: `Cannot delete the last visible config of ${id}` });
      expect((await createConfig(db, settings, alice, id, { config: agentConfig("five") })).version).toBe(5);
    });

    it("publishes drafts (current_version moves, the row takes the version's name, description and metadata); published versions are immutable", async () => {
      const alice = member(uid("alice"));
      const { component_id: id } = await create(alice, { name: "Row name", description: "row description", metadata: { row: true }, config: agentConfig("one") });
      const draft = await updateConfig(db, settings, alice, id, 1, { config: agentConfig("uno", { description: "from v1", metadata: { studio: { by: "x" } } }), notes: "edited" });
      expect([draft.stage, draft.notes, draft.config?.instructions, draft.updated_at !== null]).toEqual(["draft", "edited", "Say uno.", true]);
      expect((await getComponent(db, settings, alice, id, { includeDeleted: false })).current_version).toBeNull();

      const published = await updateConfig(db, settings, alice, id, 1, { stage: "published" });
      expect(published.stage).toBe("published");
      // name from the config; description because the key is there; metadata left alone (only Studio's stamp).
      expect(await getComponent(db, settings, alice, id, { includeDeleted: false })).toMatchObject({ current_version: 1, name: "Agent uno", description: "from v1", metadata: { row: true } });
      expect(await refusal(updateConfig(db, settings, alice, id, 1, { notes: "again" }))).toEqual({ status: 400, detail: `Cannot update published config ${id} v1` });
      expect(await refusal(deleteConfig(db, settings, alice, id, 1))).toEqual({ status: 400, detail: `Cannot delete published config ${id} v1; only drafts are deletable` });
      expect(await refusal(updateConfig(db, settings, alice, id, 1, { stage: "final" }))).toEqual({ status: 400, detail: "Invalid stage: final" });
      expect(await refusal(updateConfig(db, settings, alice, id, 9, { notes: "x" }))).toEqual({ status: 400, detail: `Config ${id} v9 not found` });

      // A version published on creation is current at once; metadata beyond the stamp is projected.
      const v2 = await createConfig(db, settings, alice, id, { config: agentConfig("dos", { metadata: { team: "blue", studio: {} } }), stage: "published" });
      expect(v2.version).toBe(2);
      expect(await getComponent(db, settings, alice, id, { includeDeleted: false })).toMatchObject({
        current_version: 2,
        name: "Agent dos",
        description: "from v1",
        metadata: { team: "blue", studio: {} },
      });
      expect((await getCurrentConfig(db, settings, alice, id)).version).toBe(2);

      // Rollback among published versions; drafts and unknown versions are refused.
      const rolled = await setCurrentConfig(db, settings, alice, id, 1);
      expect(rolled).toMatchObject({ current_version: 1, name: "Agent uno" });
      await createConfig(db, settings, alice, id, { config: agentConfig("tres") });
      expect(await refusal(setCurrentConfig(db, settings, alice, id, 3))).toEqual({ status: 400, detail: `Cannot set draft config ${id} v3 as current. Only published configs can be current.` });
      expect(await refusal(setCurrentConfig(db, settings, alice, id, 7))).toEqual({ status: 404, detail: `Component ${id} or config version 7 not found` });
      // PATCH's current_version is the same rollback; its own fields win over the projection.
      const patched = await updateComponent(db, settings, alice, id, { current_version: 2, name: "Mine" });
      expect(patched).toMatchObject({ current_version: 2, name: "Mine", metadata: { team: "blue", studio: {} } });
      expect(await refusal(updateComponent(db, settings, alice, id, { current_version: 3 }))).toEqual({
        status: 400,
        detail: `Cannot set draft config ${id} v3 as current. Only published configs can be current.`,
      });
      expect(await refusal(updateComponent(db, settings, alice, id, { current_version: 8 }))).toEqual({ status: 404, detail: `Config ${id} v8 not found` });
      expect(await refusal(updateComponent(db, settings, alice, id, { component_type: "team" }))).toEqual({
        status: 400,
        detail: `Cannot change component ${id} from agent to team; a component's type is fixed at creation.`,
      });
      expect(await refusal(updateComponent(db, settings, alice, id, { component_type: "robot" }))).toEqual({ status: 400, detail: "'robot' is not a valid ComponentType" });
      // A draft-only component's "current" config is its newest version.
      const { component_id: drafty } = await create(alice, { name: uid("Drafty"), config: agentConfig("d") });
      expect((await getCurrentConfig(db, settings, alice, drafty)).version).toBe(1);
    });

    it("checks compare-and-set guards, and of racing writers exactly one wins", async () => {
      const alice = member(uid("alice"));
      const { component_id: id } = await create(alice, { name: uid("Guarded"), config: agentConfig("one"), stage: "published" });
      expect(await refusal(createConfig(db, settings, alice, id, { config: agentConfig("x"), guard: { latest_version: 4 } }))).toEqual({
        status: 409,
        detail: `Component ${id} latest version is 1, expected 4`,
      });
      expect(await refusal(createConfig(db, settings, alice, id, { config: agentConfig("x"), guard: { current_version: 1 } }))).toEqual({
        status: 400,
        detail: "This route checks guard.latest_version only; guard.current_version is not honoured here. Remove it, or use the route that enforces it.",
      });
      expect(await refusal(setCurrentConfig(db, settings, alice, id, 1, { latest_version: 1 }))).toEqual({
        status: 400,
        detail: "This route checks guard.current_version only; guard.latest_version is not honoured here. Remove it, or use the route that enforces it.",
      });
      expect(await refusal(setCurrentConfig(db, settings, alice, id, 1, { current_version: 3 }))).toEqual({ status: 409, detail: `Component ${id} current version is 1, expected 3` });
      expect(await refusal(updateComponent(db, settings, alice, id, { name: "x", guard: { current_version: 2 } }))).toEqual({
        status: 409,
        detail: `Component ${id} current version is 1, expected 2`,
      });
      expect(await refusal(archiveComponent(db, settings, alice, id, { current_version: 5 }))).toEqual({ status: 409, detail: `Component ${id} current version is 1, expected 5` });
      expect((await updateComponent(db, settings, alice, id, { name: "Guarded ok", guard: { current_version: 1 } })).name).toBe("Guarded ok");

      // Five appends expecting the same latest version: one is version 2, the others are 409s.
      const raced = await Promise.allSettled(Array.from({ length: 5 }, (_, i) => createConfig(db, settings, alice, id, { config: agentConfig(`r${i}`), guard: { latest_version: 1 } })));
      const won = raced.filter((r) => r.status === "fulfilled");
      expect(won.map((r) => (r as PromiseFulfilledResult<{ version: number }>).value.version)).toEqual([2]);
      for (const lost of raced.filter((r) => r.status === "rejected")) expect((lost as PromiseRejectedResult).reason).toMatchObject({ status: 409 });
      // Without a guard, racing appends each get a number of their own: never one twice, none lost.
      const appended = await Promise.all(Array.from({ length: 6 }, (_, i) => createConfig(db, settings, alice, id, { config: agentConfig(`a${i}`) })));
      const versions = appended.map((c) => c.version).sort((p, q) => p - q);
      expect(versions).toEqual([3, 4, 5, 6, 7, 8]);
      // Two publishes racing with the same expected current version: one moves the pointer.
      const [x, y] = [versions[0]!, versions[1]!];
      await updateConfig(db, settings, alice, id, x, { stage: "published" });
      await updateConfig(db, settings, alice, id, y, { stage: "published" });
      await setCurrentConfig(db, settings, alice, id, 1);
      const rolls = await Promise.allSettled([setCurrentConfig(db, settings, alice, id, x, { current_version: 1 }), setCurrentConfig(db, settings, alice, id, y, { current_version: 1 })]);
      expect(rolls.filter((r) => r.status === "fulfilled")).toHaveLength(1);
      expect((rolls.find((r) => r.status === "rejected") as PromiseRejectedResult).reason).toMatchObject({ status: 409 });
    });

    it("links team members and workflow steps, pins published children, refuses cycles and archived children", async () => {
      const alice = member(uid("alice"));
      const { component_id: helper } = await create(alice, { name: uid("Helper"), config: agentConfig("h"), stage: "published" });
      const { component_id: drafty } = await create(alice, { name: uid("Drafty"), config: agentConfig("d") });
      const members = [
        { type: "agent", agent_id: "coded" },
        { type: "agent", agent_id: helper },
        { type: "agent", agent_id: drafty },
        { type: "team", team_id: "coded-team" },
      ];
      const team = await create(alice, { name: uid("Desk"), component_type: "team", config: { members, mode: "coordinate" }, stage: "published" });
      const teamLinks = await linksOf(db, team.component_id, 1);
      // Only the stored member with a published version gets a row, pinned at that version.
      expect(teamLinks.map((l) => [l.link_kind, l.link_key, l.child_component_id, l.child_version, l.position, l.meta])).toEqual([["member", "member_1", helper, 1, 1, { type: "agent" }]]);
      const teamName = uid("Bad desk");
      expect(
        await refusal(
          create(alice, {
            name: teamName,
            component_type: "team",
            config: {
              members: [
                { type: "agent", agent_id: "nobody" },
                { type: "team", team_id: "ghosts" },
              ],
            },
          }),
        ),
      ).toEqual({
        status: 400,
        detail: `Cannot create team '${teamName}': the following members could not be resolved: nobody, ghosts. Referenced agents/teams must exist as components or be registered with the AgentOS instance.`,
      });

      const steps = [
        { type: "Step", name: "research", agent_id: helper },
        {
          type: "Condition",
          name: "check",
          steps: [{ type: "Step", name: "review", team_id: team.component_id }],
          else_steps: [
            { type: "Step", name: "review", agent_id: "coded" },
            { type: "Step", name: "fallback", agent_id: helper },
          ],
        },
      ];
      const flow = await create(alice, { name: uid("Flow"), component_type: "workflow", config: { steps } });
      expect((await linksOf(db, flow.component_id, 1)).map((l) => [l.link_kind, l.link_key, l.child_component_id, l.child_version, l.position])).toEqual([
        ["step_agent", "research", helper, 1, 0],
        ["step_team", "review", team.component_id, 1, 0],
        ["step_agent", "fallback#else", helper, 1, 1],
      ]);
      const { component_id: other } = await create(alice, { name: uid("Other"), config: agentConfig("o"), stage: "published" });
      const clash = [
        { type: "Step", name: "same", agent_id: helper },
        { type: "Parallel", name: "p", steps: [{ type: "Step", name: "same", agent_id: other }] },
      ];
      expect(await refusal(create(alice, { name: uid("Clash"), component_type: "workflow", config: { id: "wf", steps: clash } }))).toEqual({
        status: 400,
        detail: `Workflow 'wf' produces two different links for key 'same' ('${helper}' v1 and '${other}' v1); give steps distinct names so every pin is kept.`,
      });

      // An explicit pin at a draft version cannot go live; at the published one it can.
      await createConfig(db, settings, alice, helper, { config: agentConfig("h2") });
      const pinDraft = [{ link_kind: "member", link_key: "member_0", child_component_id: helper, child_version: 2, position: 0, meta: { type: "agent" } }];
      expect(await refusal(createConfig(db, settings, alice, team.component_id, { config: { members: [{ type: "agent", agent_id: helper }] }, links: pinDraft, stage: "published" }))).toEqual({
        status: 409,
        detail: `Cannot publish ${team.component_id} v2: pinned member '${helper}' v2 is draft; publish the child first.`,
      });
      const pinned = await createConfig(db, settings, alice, team.component_id, {
        config: { members: [{ type: "agent", agent_id: helper }] },
        links: [{ ...pinDraft[0], child_version: "1" }],
        stage: "published",
      });
      expect((await linksOf(db, team.component_id, pinned.version)).map((l) => l.child_version)).toEqual([1]);
      expect(await refusal(createConfig(db, settings, alice, team.component_id, { config: {}, links: [{ ...pinDraft[0], child_version: 2.5 }] }))).toEqual({
        status: 400,
        detail: "Link child_version 2.5 is not an integer version number",
      });
      expect(await refusal(createConfig(db, settings, alice, team.component_id, { config: {}, links: [{ ...pinDraft[0], child_version: "two" }] }))).toEqual({
        status: 400,
        detail: "Link child_version 'two' is not an integer version number",
      });
      expect(await refusal(createConfig(db, settings, alice, team.component_id, { config: {}, links: [{ ...pinDraft[0], child_version: true }] }))).toEqual({
        status: 400,
        detail: "Link child_version True is not an integer version number",
      });
      expect(await refusal(createConfig(db, settings, alice, team.component_id, { config: {}, links: [{ ...pinDraft[0], child_version: 0 }] }))).toEqual({
        status: 400,
        detail: "Link child_version 0 is out of range",
      });
      expect(await refusal(createConfig(db, settings, alice, team.component_id, { config: {}, links: [{ ...pinDraft[0], child_version: null }] }))).toEqual({
        status: 400,
        detail: `child_version is required for link to ${helper}`,
      });
      expect(await refusal(createConfig(db, settings, alice, team.component_id, { config: {}, links: [{ ...pinDraft[0], child_component_id: "coded" }] }))).toEqual({
        status: 400,
        detail: `Cannot link ${team.component_id} to 'coded': it is not a stored component`,
      });

      // Cycles: a component cannot reach itself through its links.
      expect(await refusal(createConfig(db, settings, alice, helper, { config: agentConfig("x"), links: [{ ...pinDraft[0], child_component_id: helper, child_version: 1 }] }))).toEqual({
        status: 409,
        detail: `Component ${helper} cannot reference itself`,
      });
      const backLink = [{ link_kind: "member", link_key: "member_0", child_component_id: team.component_id, child_version: 1, position: 0 }];
      expect(await refusal(createConfig(db, settings, alice, helper, { config: agentConfig("x"), links: backLink }))).toEqual({
        status: 409,
        detail: `Linking ${helper} -> ${team.component_id} would close a reference cycle`,
      });

      // A pinned child cannot be archived while a live parent pins it; nor a pinned draft deleted.
      expect(await refusal(archiveComponent(db, settings, alice, helper))).toEqual({
        status: 409,
        detail: `Cannot delete ${helper}: referenced by ${[flow.component_id, team.component_id].sort().join(", ")}`,
      });
      await archiveComponent(db, settings, alice, flow.component_id);
      await archiveComponent(db, settings, alice, team.component_id);
      await archiveComponent(db, settings, alice, helper);
      expect(await refusal(restoreComponent(db, settings, alice, team.component_id))).toEqual({
        status: 409,
        detail: `Cannot restore ${team.component_id}: pinned child(ren) ${helper} are archived. Restore them first.`,
      });
      await restoreComponent(db, settings, alice, helper);
      expect((await restoreComponent(db, settings, alice, team.component_id)).deleted_at).toBeNull();
      expect(await refusal(restoreComponent(db, settings, alice, team.component_id))).toEqual({ status: 409, detail: "Component is not archived" });
    });

    const schedule = (owner: string | null, name: string, extra: { endpoint: string; target_type?: string; target_id?: string; managed_by?: string }) =>
      createSchedule(db, {
        scope: adminScope(),
        owner,
        schedule: { name, method: "POST", cron_expr: "0 6 * * *", timezone: "UTC", timeout_seconds: 60, max_retries: 0, retry_delay_seconds: 60, next_run_at: null, ...extra },
      });

    it("archiving disables the component's schedules in the same transaction, with disabled_reason target_archived:<type>:<id>", async () => {
      const alice = member(uid("alice"));
      const { component_id: id } = await create(alice, { name: uid("Scheduled"), config: agentConfig("s"), stage: "published" });
      const { component_id: otherId } = await create(alice, { name: uid("Unscheduled"), config: agentConfig("u"), stage: "published" });
      const byTarget = await schedule(alice.userId, uid("by-target"), { endpoint: `/agents/${id}/runs`, managed_by: "studio", target_type: "agent", target_id: id });
      const byEndpoint = await schedule(alice.userId, uid("by-endpoint"), { endpoint: `/agents/${id}/runs/` });
      const other = await schedule(alice.userId, uid("other"), { endpoint: `/agents/${otherId}/runs` });
      const sameIdOtherType = await schedule(alice.userId, uid("team"), { endpoint: `/teams/${id}/runs`, target_type: "team", target_id: id });

      // The cascade rides the archive's transaction: when its write fails, the archive is rolled back too.
      const trigger =
        db.dialect === "postgres"
          ? [
              "CREATE FUNCTION refuse_schedule_update() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'schedules are read-only'; END $$ LANGUAGE plpgsql",
              "CREATE TRIGGER refuse_schedule_update BEFORE UPDATE ON agno_schedules FOR EACH ROW EXECUTE FUNCTION refuse_schedule_update()",
            ]
          : ["CREATE TRIGGER refuse_schedule_update BEFORE UPDATE ON agno_schedules BEGIN SELECT RAISE(ABORT, 'schedules are read-only'); END"];
      for (const text of trigger) await db.sql.exec(text);
      await expect(archiveComponent(db, settings, alice, id)).rejects.toThrow(/schedules are read-only/);
      expect((await getComponent(db, settings, alice, id, { includeDeleted: false })).deleted_at).toBeNull();
      await db.sql.exec(db.dialect === "postgres" ? "DROP TRIGGER refuse_schedule_update ON agno_schedules" : "DROP TRIGGER refuse_schedule_update");

      // A refused archive (a guard that does not hold under the lock) leaves the schedules alone.
      await expect(archiveComponentRow(db, { componentId: id, componentType: "agent", expectedCurrent: 7 })).rejects.toBeInstanceOf(ComponentWriteConflict);
      expect((await getSchedule(db, { scope: adminScope(), id: byTarget.id }))?.enabled).toBe(true);

      await archiveComponent(db, settings, alice, id);
      const archived = await getComponent(db, settings, alice, id, { includeDeleted: true });
      expect(archived.deleted_at).toBeGreaterThan(0);
      for (const s of [byTarget, byEndpoint]) {
        const stored = await getSchedule(db, { scope: adminScope(), id: s.id });
        expect([stored?.enabled, stored?.disabled_reason, stored?.updated_at]).toEqual([false, `target_archived:agent:${id}`, archived.deleted_at]);
      }
      for (const s of [other, sameIdOtherType]) expect((await getSchedule(db, { scope: adminScope(), id: s.id }))?.enabled).toBe(true);

      // Restoring leaves them disabled; an archived component answers 404 to everything but reads with include_deleted and restore.
      expect(await refusal(getComponent(db, settings, alice, id, { includeDeleted: false }))).toEqual({ status: 404, detail: `Component ${id} not found` });
      expect(await refusal(createConfig(db, settings, alice, id, { config: agentConfig("x") }))).toEqual({ status: 404, detail: `Component ${id} not found` });
      expect(await refusal(archiveComponent(db, settings, alice, id))).toEqual({ status: 404, detail: `Component ${id} not found` });
      expect((await restoreComponent(db, settings, alice, id)).current_version).toBe(1);
      expect((await getSchedule(db, { scope: adminScope(), id: byTarget.id }))?.enabled).toBe(false);
    });

    it("shows a scoped caller its own, shared and published components; writes stay the owner's; drafts and db settings stay private", async () => {
      const [aliceId, bobId] = [uid("alice"), uid("bob")];
      const [alice, bob] = [member(aliceId), member(bobId)];
      const draft = await create(alice, { name: uid("Alice draft"), config: agentConfig("secret draft") });
      const published = await create(alice, { name: uid("Alice published"), config: agentConfig("v1"), stage: "published" });
      await createConfig(db, settings, alice, published.component_id, { config: agentConfig("v2 draft") });
      const db_ = { id: "components-db", type: "postgres", db_url: "postgresql://app:hunter2@db/prod", session_table: "s1" };
      const shared = await create(ADMIN, { name: uid("Shared"), config: agentConfig("shared", { db: db_, tools: [{ name: "open_vault", toolkit: "Vault" }] }) });

      // Reads.
      expect(await refusal(getComponent(db, settings, bob, draft.component_id, { includeDeleted: true }))).toEqual({ status: 404, detail: `Component ${draft.component_id} not found` });
      expect((await getComponent(db, settings, bob, published.component_id, { includeDeleted: false })).user_id).toBe(aliceId);
      const bobsList = (await listComponents(db, settings, bob, { page: 1, limit: 100, includeDeleted: true })).data.map((c) => c.component_id);
      expect(bobsList).toContain(published.component_id);
      expect(bobsList).toContain(shared.component_id);
      expect(bobsList).not.toContain(draft.component_id);
      expect((await listComponents(db, settings, ADMIN, { page: 1, limit: 100, includeDeleted: false })).data.map((c) => c.component_id)).toContain(draft.component_id);
      expect((await listConfigs(db, settings, bob, published.component_id, { includeConfig: true })).map((c) => c.version)).toEqual([1]);
      expect((await listConfigs(db, settings, alice, published.component_id, { includeConfig: true })).map((c) => c.version)).toEqual([2, 1]);
      expect(await refusal(getConfig(db, settings, bob, published.component_id, 2))).toEqual({ status: 404, detail: `Config ${published.component_id} v2 not found` });
      expect((await getConfig(db, settings, ADMIN, published.component_id, 2)).stage).toBe("draft");
      // An owner-less component's drafts are anyone's to read; its db block is cut for a scoped reader.
      const sharedForBob = await getConfig(db, settings, bob, shared.component_id, 1);
      expect(sharedForBob.config?.db).toEqual({ id: "components-db", type: "postgres", session_table: "s1" });
      expect((await getConfig(db, settings, ADMIN, shared.component_id, 1)).config?.db).toEqual(db_);
      expect((await getCurrentConfig(db, settings, bob, shared.component_id)).config?.db).toEqual({ id: "components-db", type: "postgres", session_table: "s1" });

      // Writes.
      const other = "Cannot modify component owned by another user";
      expect(await refusal(updateComponent(db, settings, bob, published.component_id, { name: "mine now" }))).toEqual({ status: 403, detail: other });
      expect(await refusal(createConfig(db, settings, bob, published.component_id, { config: agentConfig("x") }))).toEqual({ status: 403, detail: other });
      expect(await refusal(updateConfig(db, settings, bob, published.component_id, 2, { notes: "x" }))).toEqual({ status: 403, detail: other });
      expect(await refusal(setCurrentConfig(db, settings, bob, published.component_id, 1))).toEqual({ status: 403, detail: other });
      expect(await refusal(deleteConfig(db, settings, bob, published.component_id, 2))).toEqual({ status: 403, detail: "Cannot delete component owned by another user" });
      expect(await refusal(archiveComponent(db, settings, bob, published.component_id))).toEqual({ status: 403, detail: "Cannot delete component owned by another user" });
      expect(await refusal(updateComponent(db, settings, alice, shared.component_id, { name: "x" }))).toEqual({ status: 403, detail: "Cannot modify shared component" });
      expect(await refusal(archiveComponent(db, settings, alice, shared.component_id))).toEqual({ status: 403, detail: "Cannot delete shared component" });
      await archiveComponent(db, settings, ADMIN, shared.component_id);
      expect(await refusal(restoreComponent(db, settings, alice, shared.component_id))).toEqual({ status: 403, detail: "Cannot modify shared component" });
      expect(await refusal(restoreComponent(db, settings, bob, published.component_id))).toEqual({ status: 409, detail: "Component is not archived" });
      // Another owner's archived component is gone for bob, even with include_deleted.
      await archiveComponent(db, settings, alice, published.component_id);
      expect(await refusal(getComponent(db, settings, bob, published.component_id, { includeDeleted: true }))).toEqual({ status: 404, detail: `Component ${published.component_id} not found` });
      expect(await refusal(restoreComponent(db, settings, bob, published.component_id))).toEqual({ status: 404, detail: `Component ${published.component_id} not found` });
      // An admin changes anyone's.
      expect((await restoreComponent(db, settings, ADMIN, published.component_id)).user_id).toBe(aliceId);
      expect((await updateComponent(db, settings, ADMIN, draft.component_id, { description: "by admin" })).description).toBe("by admin");

      // References: bob's team may not name alice's draft, nor pin a version of hers it cannot read.
      expect(await refusal(create(bob, { name: uid("Bob team"), component_type: "team", config: { members: [{ type: "agent", agent_id: draft.component_id }] } }))).toEqual({
        status: 404,
        detail: `Component ${draft.component_id} not found`,
      });
      const bobsTeam = await create(bob, { name: uid("Bob team"), component_type: "team", config: { members: [{ type: "agent", agent_id: published.component_id }] } });
      const link = { link_kind: "member", link_key: "member_0", child_component_id: published.component_id, position: 0 };
      expect(await refusal(createConfig(db, settings, bob, bobsTeam.component_id, { config: {}, links: [{ ...link, child_version: 2 }] }))).toEqual({
        status: 404,
        detail: `Config ${published.component_id} v2 not found`,
      });
      expect((await createConfig(db, settings, bob, bobsTeam.component_id, { config: {}, links: [{ ...link, child_version: 1 }] })).version).toBe(2);
      // Alice cannot archive what bob pins... unless bob's parent is not one she can act on: his does not veto hers.
      await archiveComponent(db, settings, alice, published.component_id);
      // An admin sees every parent: bob's pin blocks the restore-then-archive by an admin, its id shown.
      await restoreComponent(db, settings, alice, published.component_id);
      expect(await refusal(archiveComponent(db, settings, ADMIN, published.component_id))).toEqual({
        status: 409,
        detail: `Cannot delete ${published.component_id}: referenced by ${bobsTeam.component_id}`,
      });
      // A scoped caller is told of a parent it cannot see as "another component": here an admin's own draft team pins alice's draft.
      const v3 = (await createConfig(db, settings, alice, published.component_id, { config: agentConfig("v3") })).version;
      const root: StoreCaller = { userId: uid("root"), isAdmin: true, scoped: false };
      const rootsTeam = await create(root, { name: uid("Root team"), component_type: "team", config: {} });
      await createConfig(db, settings, root, rootsTeam.component_id, { config: {}, links: [{ ...link, child_version: v3 }] });
      expect(await refusal(deleteConfig(db, settings, alice, published.component_id, v3))).toEqual({
        status: 409,
        detail: `Cannot delete ${published.component_id} v${v3}: pinned by another component`,
      });
      expect(await refusal(deleteConfig(db, settings, ADMIN, published.component_id, v3))).toEqual({
        status: 409,
        detail: `Cannot delete ${published.component_id} v${v3}: pinned by ${rootsTeam.component_id}`,
      });
    });

    it("enforces studio.limits: components per member (admins unlimited), config bytes, instruction characters; and what the registry lets the caller use", async () => {
      const small = settingsWith({ maxComponentsPerUser: 2, maxConfigBytes: 2048, maxInstructionsChars: 50 });
      const alice = member(uid("alice"));
      const made = [await createComponent(db, small, alice, { name: uid("one"), component_type: "agent" }), await createComponent(db, small, alice, { name: uid("two"), component_type: "agent" })];
      const over = await refusal(createComponent(db, small, alice, { name: uid("three"), component_type: "agent" }));
      expect(over).toEqual({ status: 422, detail: "Component limit reached: you have 2 components and the limit is 2 per member (studio.limits.maxComponentsPerUser); archive one first" });
      for (let i = 0; i < 3; i++) await createComponent(db, small, ADMIN, { name: uid("admin"), component_type: "agent" });
      await archiveComponent(db, small, alice, made[0]!.component_id);
      const third = await createComponent(db, small, alice, { name: uid("three"), component_type: "agent" });
      expect(await refusal(restoreComponent(db, small, alice, made[0]!.component_id))).toEqual(over);
      await archiveComponent(db, small, alice, third.component_id);
      await restoreComponent(db, small, alice, made[0]!.component_id);

      const big = { instructions: "x".repeat(10), padding: "y".repeat(3000) };
      expect(await refusal(createComponent(db, small, ADMIN, { name: uid("big"), component_type: "agent", config: big }))).toMatchObject({ status: 413 });
      expect((await refusal(createConfig(db, small, alice, made[0]!.component_id, { config: big }))).detail).toMatch(
        /^The config is \d+ bytes; the limit is 2048 bytes \(studio\.limits\.maxConfigBytes\)$/,
      );
      expect(await refusal(createConfig(db, small, alice, made[0]!.component_id, { config: { instructions: ["a".repeat(30), "b".repeat(30)] } }))).toEqual({
        status: 422,
        detail: "The instructions are 61 characters; the limit is 50 characters (studio.limits.maxInstructionsChars)",
      });
      expect(await refusal(createConfig(db, small, alice, made[0]!.component_id, { config: { tools: [{ name: "open_vault", toolkit: "Vault" }] } }))).toEqual({
        status: 403,
        detail: "Cannot use in a agent: tools.0: toolkit 'Vault' is offered to admins only",
      });
      expect(await refusal(createConfig(db, small, alice, made[0]!.component_id, { config: { tools: [{ name: "teleport" }] } }))).toEqual({
        status: 422,
        detail: "Cannot save this agent: tools.0: tool 'teleport' is not a function of any toolkit in the registry",
      });
      expect(await refusal(createConfig(db, small, alice, made[0]!.component_id, { config: { db: { id: "components-db", db_url: "postgresql://x" } } }))).toMatchObject({ status: 403 });
      expect(await refusal(createConfig(db, small, alice, made[0]!.component_id, { config: { num_history_runs: -1 } }))).toEqual({
        status: 422,
        detail: "Invalid agent config: config.num_history_runs: Too small: expected number to be >=0",
      });
      const tool = await createConfig(db, small, alice, made[0]!.component_id, { config: { tools: [{ name: "add", toolkit: "Calculator", requires_confirmation: true }], db: null } });
      expect(tool.config).toEqual({ tools: [{ name: "add", toolkit: "Calculator", requires_confirmation: true }] });
    });

    it("lists newest first (ties by id), pages, filters by type, and leaves out ids defined in code", async () => {
      const fresh = await dialect.open();
      try {
        const { MigrationManager } = await import("@/lib/migrations/migration-manager.ts");
        await new MigrationManager(fresh).up({ tables: ["schedules", "components", "component_configs", "component_links"] });
        const rows: [string, string, number][] = [
          ["b-agent", "agent", 100],
          ["a-agent", "agent", 100],
          ["coded", "agent", 300],
          ["t-team", "team", 200],
          ["coded-team", "workflow", 400],
        ];
        for (const [id, type, at] of rows) await fresh.sql.exec("INSERT INTO agno_components (component_id, component_type, name, created_at) VALUES (?, ?, ?, ?)", [id, type, id, at]);
        const list = (q: Parameters<typeof listComponents>[3]) => listComponents(fresh, settings, ADMIN, q);
        const all = await list({ page: 1, limit: 10, includeDeleted: false });
        // "coded" is a code agent and "coded-team" a code team: with no type filter every code id is left out.
        expect([all.data.map((c) => c.component_id), all.total]).toEqual([["t-team", "a-agent", "b-agent"], 3]);
        expect((await list({ componentType: "workflow", page: 1, limit: 10, includeDeleted: false })).data.map((c) => c.component_id)).toEqual(["coded-team"]);
        const page2 = await list({ componentType: "agent", page: 2, limit: 1, includeDeleted: false });
        expect([page2.data.map((c) => c.component_id), page2.total]).toEqual([["b-agent"], 2]);
      } finally {
        await fresh.destroy();
      }
    });

    it("gives the runtime a version's config and links, and the row's head", async () => {
      const alice = member(uid("alice"));
      const { component_id: helper } = await create(alice, { name: uid("Child"), config: agentConfig("c"), stage: "published" });
      const team = await create(alice, { name: uid("Parent"), component_type: "team", config: { members: [{ type: "agent", agent_id: helper }] }, stage: "published" });
      await createConfig(db, settings, alice, team.component_id, { config: { members: [] } });
      const loaded = await unsafeLoadComponentVersion(db, team.component_id);
      expect(loaded?.config).toMatchObject({ version: 1, stage: "published", config: { members: [{ type: "agent", agent_id: helper }] } });
      expect(loaded?.links).toEqual([{ link_kind: "member", link_key: "member_0", child_component_id: helper, child_version: 1, position: 0, meta: { type: "agent" } }]);
      expect((await unsafeLoadComponentVersion(db, team.component_id, 2))?.config).toMatchObject({ version: 2, stage: "draft" });
      expect(await unsafeLoadComponentVersion(db, team.component_id, 9)).toBeUndefined();
      expect(await unsafeLoadComponentVersion(db, "no-such-component")).toBeUndefined();
      expect(await unsafeComponentHead(db, team.component_id)).toEqual({ component_type: "team", user_id: alice.userId, current_version: 1, deleted_at: null, updated_at: null });
      expect(await unsafeComponentHead(db, "no-such-component")).toBeUndefined();
    });
  });
});
