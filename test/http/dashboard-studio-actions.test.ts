import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { principalForUser } from "@/lib/auth/dashboard/user-principal.ts";
import type { Principal } from "@/lib/auth/principal.ts";
import { getComponent, listConfigs, storeCaller } from "@/lib/components/store.ts";
import type { DashboardAction } from "@/lib/http/dashboard/action.ts";
import {
  archiveStudioComponentAction,
  checkStudioOutputSchemaAction,
  deleteStudioDraftAction,
  publishStudioDraftAction,
  restoreStudioComponentAction,
  saveStudioDraftAction,
  setStudioCurrentAction,
} from "@/lib/http/dashboard/studio-actions.ts";
import { canonicalJson, configDiff, lineDiff } from "@/lib/http/dashboard/studio-diff.ts";
import { loadStudioChoices, loadStudioComponent, loadStudioList } from "@/lib/http/dashboard/studio-view.ts";
import { calculatorToolkit } from "@/lib/runtime/tools/calculator/calculator.ts";
import { hostToolkit } from "@/lib/runtime/tools/host/host.ts";
import { agentConfig as editedAgentConfig, agentFormState, teamConfig, teamFormState, workflowConfig, workflowFormState } from "@/components/dashboard/studio/config-model.ts";
import { parseComponentConfig } from "@/lib/config/component-config.ts";
import { createUser } from "../auth/dashboard-support.ts";
import { AGNO_AGENT_CONFIG, AGNO_TEAM_CONFIG } from "../components/studio-configs.ts";
import { DIALECTS, openMigrated, type TestDb } from "../support/databases.ts";
import { ACTION_ORIGIN, formOf } from "../support/dashboard-actions.ts";
import { testSettings } from "../support/settings.ts";

/**
 * Studio's dashboard actions (lib/http/dashboard/studio-actions.ts) and page reads
 * (studio-view.ts) on both dialects: a member makes an agent with a registry tool as a draft,
 * edits it in place, publishes it, makes a second version, sees its diff and rolls back; another
 * member sees the published agent but cannot change it (the store's 403); an admin-only toolkit is
 * not offered to a member, and a forged save attaching it is the store's refusal, shown as it is;
 * archive, restore and discard; bad input is a 422 naming the problem, nothing stored.
 */

const settings = testSettings({
  env: { OPENAI_COMPATIBLE_BASE_URL: "http://127.0.0.1:9/v1", OPENAI_COMPATIBLE_MODEL: "scripted" },
  file: {
    agents: [{ id: "writer", name: "Writer", model: null }],
    registry: {
      toolkits: [calculatorToolkit, hostToolkit],
      schemas: [{ name: "Answer", schema: { type: "object", properties: { answer: { type: "string" } } } }],
    },
  },
});

const MODEL = { provider: "openai-compatible", id: "scripted" };
let seq = 0;
const uniqueName = (prefix: string) => `${prefix} ${Date.now().toString(36)} ${++seq}`;

/** An agent's config as the editor sends it. */
const agentConfig = (name: string, over: Record<string, unknown> = {}) => ({
  name,
  model: MODEL,
  instructions: "Motto: ahoy.",
  tools: [{ name: "add", toolkit: "Calculator" }],
  ...over,
});

describe.each(DIALECTS)("the Studio page's actions on $name", (dialect) => {
  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    let db: TestDb;
    let admin: Principal;
    const call = (action: DashboardAction, principal: Principal | null, fields: Record<string, string>) => action.run({ principal, formData: formOf(fields), db, settings, origin: ACTION_ORIGIN });
    const member = async () => principalForUser(await createUser(db), settings);
    const save = (who: Principal, fields: Record<string, unknown> & { config: Record<string, unknown> | string }) =>
      call(saveStudioDraftAction, who, {
        componentType: "agent",
        ...Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)])),
      });
    /** A new agent draft of `who`'s: its id. */
    const created = async (who: Principal, config = agentConfig(uniqueName("Helper"))) => {
      const result = await save(who, { config });
      expect(result, JSON.stringify(result)).toMatchObject({ ok: true });
      return decodeURIComponent(result.href!.split("/").pop()!);
    };
    const stored = (id: string) => getComponent(db, settings, storeCaller(admin, settings), id, { includeDeleted: true });
    const versions = async (id: string) => (await listConfigs(db, settings, storeCaller(admin, settings), id, { includeConfig: true })).map((c) => [c.version, c.stage, c.config?.instructions]);

    beforeAll(async () => {
      db = await openMigrated(dialect);
      admin = principalForUser(await createUser(db, { role: "admin" }), settings);
    });
    afterAll(async () => db?.destroy());

    it("a member makes an agent with a registry tool as a draft, edits it in place, publishes it, then a v2, sees the diff and rolls back", async () => {
      const ada = await member();
      const name = uniqueName("Bee keeper");
      const first = await save(ada, { config: agentConfig(name), notes: "first try" });
      expect(first).toMatchObject({ ok: true, message: expect.stringMatching(/^Draft saved: .+ v1\.$/), href: expect.stringMatching(/^\/dashboard\/studio\//) });
      const id = decodeURIComponent(first.href!.split("/").pop()!);
      // Minted from the name, with the owner's digest: a member's ids never collide with another's.
      expect(id).toMatch(/^bee-keeper-[a-z0-9-]+-[0-9a-f]{8}$/);
      expect(await stored(id)).toMatchObject({ component_type: "agent", user_id: ada.userId, current_version: null, name });

      // The draft is edited in place: still v1.
      expect(await save(ada, { componentId: id, version: "1", config: agentConfig(name, { instructions: "Motto: ahoy!" }) })).toMatchObject({ ok: true, message: "Draft v1 saved." });
      expect(await versions(id)).toEqual([[1, "draft", "Motto: ahoy!"]]);

      // The list: hers, a draft, never published.
      const list = await loadStudioList(db, settings, ada, { archived: false, page: 1 });
      expect(list.rows.find((r) => r.id === id)).toMatchObject({ type: "agent", stage: "draft", currentVersion: null, latestVersion: 1, draftVersion: 1, owner: "you", mine: true, editable: true });
      expect(list.code.map((c) => `${c.type}:${c.id}`)).toContain("agent:writer");

      expect(await call(publishStudioDraftAction, ada, { componentId: id, version: "1" })).toMatchObject({ ok: true, message: "v1 published: it is the current version now." });
      expect(await stored(id)).toMatchObject({ current_version: 1 });

      // A second version: a new draft after v1 (the page showed v1 as the newest).
      expect(await save(ada, { componentId: id, latestVersion: "1", config: agentConfig(name, { instructions: "Motto: bonjour." }), notes: "French" })).toMatchObject({
        ok: true,
        message: "Draft v2 saved.",
      });
      // A page still showing v1 as the newest makes no third version: a 409, nothing stored.
      expect(await save(ada, { componentId: id, latestVersion: "1", config: agentConfig(name, { instructions: "Motto: hola." }) })).toMatchObject({ ok: false, status: 409 });

      const page = (await loadStudioComponent(db, settings, ada, id))!;
      expect(page).toMatchObject({ editable: true, mayTry: true, draft: { version: 2 }, published: { version: 1 }, shown: { version: 2 }, latestVersion: 2 });
      expect(page.versions.map((v) => [v.version, v.stage, v.current, v.notes])).toEqual([
        [2, "draft", false, "French"],
        [1, "published", true, "first try"],
      ]);
      expect(page.diff).toMatchObject({ added: 1, removed: 1 });
      const changed = page.diff!.lines.filter((l) => l.kind === "added" || l.kind === "removed");
      expect(changed).toEqual([
        { kind: "removed", text: '  "instructions": "Motto: ahoy!",' },
        { kind: "added", text: '  "instructions": "Motto: bonjour.",' },
      ]);

      expect(await call(publishStudioDraftAction, ada, { componentId: id, version: "2" })).toMatchObject({ ok: true });
      expect(await stored(id)).toMatchObject({ current_version: 2 });
      // Rollback to v1, if v2 is still current.
      expect(await call(setStudioCurrentAction, ada, { componentId: id, version: "1", currentVersion: "2" })).toEqual({ ok: true, message: "v1 is the current version now." });
      expect(await stored(id)).toMatchObject({ current_version: 1 });
      // A page that still showed v2 as current: 409, nothing changes.
      expect(await call(setStudioCurrentAction, ada, { componentId: id, version: "2", currentVersion: "2" })).toMatchObject({ ok: false, status: 409 });
      expect(await stored(id)).toMatchObject({ current_version: 1 });
      // A published version is never edited in place.
      expect(await save(ada, { componentId: id, version: "1", config: agentConfig(name) })).toEqual({ ok: false, status: 400, error: `Cannot update published config ${id} v1` });
    });

    it("another member sees the published agent, read-only, and every change it tries is the store's 403; a draft-only one is not found", async () => {
      const [ada, bea] = [await member(), await member()];
      const id = await created(ada);
      // Not published: Bea does not see it at all.
      expect(await loadStudioComponent(db, settings, bea, id)).toBeNull();
      expect((await loadStudioList(db, settings, bea, { archived: false, page: 1 })).rows.map((r) => r.id)).not.toContain(id);
      expect(await call(publishStudioDraftAction, bea, { componentId: id, version: "1" })).toEqual({ ok: false, status: 404, error: `Component ${id} not found` });

      expect(await call(publishStudioDraftAction, ada, { componentId: id, version: "1" })).toMatchObject({ ok: true });
      const row = (await loadStudioList(db, settings, bea, { archived: false, page: 1 })).rows.find((r) => r.id === id);
      expect(row).toMatchObject({ stage: "published", currentVersion: 1, owner: "another user", mine: false, editable: false });
      const page = (await loadStudioComponent(db, settings, bea, id))!;
      expect(page).toMatchObject({ editable: false, owned: false, mayTry: false, shown: { version: 1 } });

      const refused = { ok: false, status: 403, error: "Cannot modify component owned by another user" };
      expect(await save(bea, { componentId: id, latestVersion: "1", config: agentConfig("Hijacked") })).toEqual(refused);
      expect(await call(setStudioCurrentAction, bea, { componentId: id, version: "1" })).toEqual(refused);
      expect(await call(archiveStudioComponentAction, bea, { componentId: id })).toMatchObject({ ok: false, status: 403 });
      expect(await versions(id)).toHaveLength(1);
      expect(await stored(id)).toMatchObject({ current_version: 1, deleted_at: null, user_id: ada.userId });

      // An admin sees Ada's drafts and may change them.
      const adminView = (await loadStudioComponent(db, settings, admin, id))!;
      expect(adminView).toMatchObject({ editable: true, mayTry: true });
    });

    it("an admin-only toolkit is not offered to a member, and a forged save attaching it is refused, nothing stored; an admin may attach it", async () => {
      const ada = await member();
      const offered = await loadStudioChoices(db, settings, ada, { type: "agent" });
      expect(offered.toolkits.map((k) => k.name)).toEqual(["Calculator"]);
      expect(offered.toolkits[0]!.functions.map((f) => f.name)).toEqual(["add", "subtract", "multiply", "divide"]);
      expect(offered.models).toEqual([{ provider: "openai-compatible", id: "scripted", label: "openai-compatible/scripted" }]);
      expect(offered.schemas.map((s) => s.name)).toEqual(["Answer"]);
      const forAdmin = await loadStudioChoices(db, settings, admin, { type: "agent" });
      expect(forAdmin.toolkits.map((k) => [k.name, k.adminOnly])).toEqual([
        ["Calculator", false],
        ["Host", true],
      ]);
      expect(forAdmin.toolkits[1]!.functions.find((f) => f.name === "server_details")).toMatchObject({ requiresConfirmation: true });

      // Forged: a new agent with the Host toolkit's server_details.
      const name = uniqueName("Forged");
      const forged = await save(ada, { config: agentConfig(name, { tools: [{ name: "server_details", toolkit: "Host" }] }) });
      expect(forged).toMatchObject({ ok: false, status: 403, error: expect.stringContaining("toolkit 'Host' is offered to admins only") });
      expect((await loadStudioList(db, settings, ada, { archived: false, page: 1 })).rows.map((r) => r.name)).not.toContain(name);
      // Forged onto an agent of hers: refused, its draft unchanged.
      const id = await created(ada);
      expect(await save(ada, { componentId: id, version: "1", config: agentConfig("Mine", { tools: [{ name: "server_details", toolkit: "Host" }] }) })).toMatchObject({
        ok: false,
        status: 403,
        error: expect.stringContaining("offered to admins only"),
      });
      expect((await versions(id))[0]![2]).toBe("Motto: ahoy.");
      expect(((await listConfigs(db, settings, storeCaller(admin, settings), id, { includeConfig: true }))[0]!.config!.tools as unknown[]).length).toBe(1);

      // An admin may.
      expect(await save(admin, { config: agentConfig(uniqueName("Operator"), { tools: [{ name: "server_details", toolkit: "Host", requires_confirmation: true }] }) })).toMatchObject({ ok: true });
    });

    it("teams and workflows: members and steps name code-defined agents and published Studio ones", async () => {
      const ada = await member();
      const agentId = await created(ada);
      expect(await call(publishStudioDraftAction, ada, { componentId: agentId, version: "1" })).toMatchObject({ ok: true });
      const choices = await loadStudioChoices(db, settings, ada, { type: "team" });
      expect(choices.members).toEqual(
        expect.arrayContaining([
          { type: "agent", id: "writer", name: "Writer", source: "code" },
          { type: "agent", id: agentId, name: expect.any(String), source: "studio" },
        ]),
      );
      const team = await save(ada, {
        componentType: "team",
        config: {
          name: uniqueName("Desk"),
          model: MODEL,
          mode: "coordinate",
          instructions: "Ask the helper.",
          members: [
            { type: "agent", agent_id: agentId },
            { type: "agent", agent_id: "writer" },
          ],
        },
      });
      expect(team).toMatchObject({ ok: true });
      const workflow = await save(ada, {
        componentType: "workflow",
        config: {
          name: uniqueName("Brief"),
          steps: [
            { type: "Step", name: "facts", agent_id: agentId },
            { type: "Step", name: "draft", agent_id: "writer", human_review: { requires_confirmation: true, confirmation_message: "Draft it?" } },
          ],
        },
      });
      expect(workflow).toMatchObject({ ok: true });
      const workflowId = decodeURIComponent(workflow.href!.split("/").pop()!);
      expect((await loadStudioComponent(db, settings, ada, workflowId))!.shown!.config).toMatchObject({ steps: [{ agent_id: agentId }, { human_review: { requires_confirmation: true } }] });
      // A step needs something to run.
      expect(await save(ada, { componentType: "workflow", config: { name: "Empty step", steps: [{ type: "Step", name: "nothing" }] } })).toMatchObject({
        ok: false,
        status: 422,
        error: expect.stringContaining("a Step needs agent_id, team_id, workflow_id or executor_ref"),
      });
    });

    it("archive hides it from the list and from runs until restored; a draft is discarded, its number not reused", async () => {
      const ada = await member();
      const id = await created(ada);
      expect(await call(publishStudioDraftAction, ada, { componentId: id, version: "1" })).toMatchObject({ ok: true });
      expect(await save(ada, { componentId: id, latestVersion: "1", config: agentConfig("Second") })).toMatchObject({ ok: true, message: "Draft v2 saved." });
      expect(await call(deleteStudioDraftAction, ada, { componentId: id, version: "2" })).toMatchObject({ ok: true, message: "Draft v2 discarded." });
      expect(await save(ada, { componentId: id, latestVersion: "1", config: agentConfig("Third") })).toMatchObject({ ok: true, message: "Draft v3 saved." });
      // The published version is not a draft to discard.
      expect(await call(deleteStudioDraftAction, ada, { componentId: id, version: "1" })).toMatchObject({ ok: false, status: 400 });

      expect(await call(archiveStudioComponentAction, ada, { componentId: id, currentVersion: "1" })).toEqual({ ok: true, message: "Archived: it cannot be run until it is restored." });
      expect((await loadStudioList(db, settings, ada, { archived: false, page: 1 })).rows.map((r) => r.id)).not.toContain(id);
      expect((await loadStudioList(db, settings, ada, { archived: true, page: 1 })).rows.find((r) => r.id === id)).toMatchObject({ stage: "archived", editable: false });
      expect(await loadStudioComponent(db, settings, ada, id)).toMatchObject({ archived: true, editable: false, owned: true, mayTry: false });
      expect(await call(archiveStudioComponentAction, ada, { componentId: id })).toMatchObject({ ok: false, status: 404 });
      expect(await call(restoreStudioComponentAction, ada, { componentId: id })).toEqual({ ok: true, message: "Restored." });
      expect(await call(restoreStudioComponentAction, ada, { componentId: id })).toMatchObject({ ok: false, status: 409, error: "Component is not archived" });
      expect(await stored(id)).toMatchObject({ deleted_at: null, current_version: 1 });
    });

    it("bad input is a 422 naming the problem, and nothing is stored; not signed in is a 401", async () => {
      const ada = await member();
      const before = (await loadStudioList(db, settings, ada, { archived: false, page: 1 })).total;
      expect(await save(ada, { config: "{not json" })).toMatchObject({ ok: false, status: 422, error: expect.stringMatching(/^config: invalid JSON/) });
      expect(await save(ada, { config: "[1]" })).toEqual({ ok: false, status: 422, error: "config: must be a JSON object ({ … })" });
      expect(await save(ada, { config: { model: MODEL } })).toEqual({ ok: false, status: 422, error: "name: give the component a name" });
      expect(await save(ada, { config: agentConfig("Tools", { tools: "add" }) })).toMatchObject({ ok: false, status: 422, error: expect.stringContaining("config.tools") });
      expect(await save(ada, { config: agentConfig("Schema", { output_schema: { type: "object", properties: { a: { type: "strnig" } } } }) })).toMatchObject({
        ok: false,
        status: 422,
        error: expect.stringMatching(/^config\.output_schema: is not a valid JSON Schema/),
      });
      expect(await save(ada, { config: agentConfig("Nul", { instructions: "a\u0000b" }) })).toMatchObject({ ok: false, status: 422, error: expect.stringContaining("NUL") });
      expect(await save(ada, { config: agentConfig("Unknown model", { model: { provider: "openai", id: "gpt-nope" } }) })).toMatchObject({ ok: false, error: expect.stringContaining("gpt-nope") });
      expect(await call(saveStudioDraftAction, ada, { componentType: "robot", config: "{}" })).toMatchObject({ ok: false, status: 422, error: expect.stringMatching(/^componentType/) });
      expect(await call(publishStudioDraftAction, ada, { componentId: "x", version: "one" })).toEqual({ ok: false, status: 422, error: "version: version must be a version number" });
      expect(await call(publishStudioDraftAction, ada, { version: "1" })).toEqual({ ok: false, status: 422, error: "componentId: say which component" });
      expect((await loadStudioList(db, settings, ada, { archived: false, page: 1 })).total).toBe(before);
      expect(await call(saveStudioDraftAction, null, { componentType: "agent", config: "{}" })).toEqual({ ok: false, status: 401, error: "Sign in first." });

      // The editor's live output schema check.
      const check = (schema: string) => call(checkStudioOutputSchemaAction, ada, { schema });
      expect(await check('{"type": "object", "properties": {"answer": {"type": "string"}}}')).toMatchObject({ ok: true });
      expect(await check('{"type": "object", "properties": {"answer": {"type": "strnig"}}}')).toMatchObject({
        ok: false,
        status: 422,
        error: expect.stringMatching(/^output schema: is not a valid JSON Schema/),
      });
      expect(await check('{"type": "array"}')).toMatchObject({ ok: false, error: 'output schema: must describe a JSON object (type "object" at the root)' });
      expect(await check("{")).toMatchObject({ ok: false, error: expect.stringMatching(/^output schema: invalid JSON/) });
      expect(await check("")).toMatchObject({ ok: true });
    });
  });
});

describe("the config diff", () => {
  it("compares configs with their keys in any order, removals before additions, unchanged stretches folded", () => {
    expect(canonicalJson({ b: 1, a: { d: 2, c: [3, { f: 1, e: 2 }] } })).toBe(canonicalJson({ a: { c: [3, { e: 2, f: 1 }], d: 2 }, b: 1 }));
    expect(lineDiff("a\nb\nc", "a\nx\nc")).toEqual([
      { kind: "same", text: "a" },
      { kind: "removed", text: "b" },
      { kind: "added", text: "x" },
      { kind: "same", text: "c" },
    ]);
    expect(lineDiff("", "a")).toEqual([{ kind: "added", text: "a" }]);
    expect(lineDiff("a\nb", "")).toEqual([
      { kind: "removed", text: "a" },
      { kind: "removed", text: "b" },
    ]);
    expect(lineDiff("", "")).toEqual([]);
    const long = Array.from({ length: 40 }, (_, i) => `line ${i}`);
    const edited = [...long];
    edited[20] = "changed";
    const diff = configDiff({ lines: long }, { lines: edited });
    expect(diff).toMatchObject({ added: 1, removed: 1 });
    expect(diff.lines[0]).toEqual({ kind: "fold", count: expect.any(Number) });
    expect(diff.lines.filter((l) => l.kind !== "fold")).toHaveLength(8);
    expect(configDiff({ a: 1 }, { a: 1 })).toMatchObject({ added: 0, removed: 0 });
  });

  it("agrees with the texts it compares on random edits", () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let round = 0; round < 200; round++) {
      const a = Array.from({ length: Math.floor(random() * 12) }, () => "abcd"[Math.floor(random() * 4)]!);
      const b = Array.from({ length: Math.floor(random() * 12) }, () => "abcd"[Math.floor(random() * 4)]!);
      const lines = lineDiff(a.join("\n"), b.join("\n"));
      expect(lines.filter((l) => l.kind !== "added").map((l) => l.text)).toEqual(a);
      expect(lines.filter((l) => l.kind !== "removed").map((l) => l.text)).toEqual(b);
    }
  });
});

describe("the Studio editors' configs (components/dashboard/studio/config-model.ts)", () => {
  it("an untouched edit of a config written the way Agno writes it gives it back unchanged, keys the editor does not manage included", () => {
    const agent = AGNO_AGENT_CONFIG as Record<string, unknown>;
    expect(editedAgentConfig(agent, agentFormState(agent))).toEqual({ config: agent, problems: [] });
    const team = AGNO_TEAM_CONFIG as Record<string, unknown>;
    expect(teamConfig(team, teamFormState(team))).toEqual({ config: team, problems: [] });
  });

  it("writes the fields it manages over the saved config, in the shapes the schema takes", () => {
    const saved = { ...(AGNO_AGENT_CONFIG as Record<string, unknown>) };
    const state = agentFormState(saved);
    const { config, problems } = editedAgentConfig(saved, {
      ...state,
      instructions: "Motto: bonjour.",
      model: "openai-compatible:scripted",
      tools: [...state.tools.filter((t) => t.name === "add").map((t) => ({ ...t, confirm: false })), { toolkit: "Calculator", name: "divide", confirm: true }],
      knowledge: "",
      learning: "on",
      addHistory: false,
      outputMode: "json",
      outputSchemaJson: '{"type": "object", "properties": {"answer": {"type": "string"}}}',
    });
    expect(problems).toEqual([]);
    expect(parseComponentConfig("agent", config).ok).toBe(true);
    expect(config).toMatchObject({
      instructions: "Motto: bonjour.",
      model: { provider: "openai-compatible", id: "scripted" },
      learning: true,
      output_schema: { type: "object", properties: { answer: { type: "string" } } },
      telemetry: true,
      markdown: true,
    });
    expect(config.tools).toEqual([
      { name: "add", description: "Add two numbers", parameters: expect.any(Object), toolkit: "Calculator" },
      { name: "divide", toolkit: "Calculator", requires_confirmation: true },
    ]);
    for (const key of ["knowledge", "add_history_to_context", "num_history_runs"]) expect(config).not.toHaveProperty(key);
    // An output schema that is not one stops the save.
    expect(editedAgentConfig(saved, { ...state, outputMode: "json", outputSchemaJson: '{"type": "array"}' }).problems).toEqual([
      'output schema: must describe a JSON object (type "object" at the root)',
    ]);
    expect(editedAgentConfig(saved, { ...state, outputMode: "json", outputSchemaJson: "{" }).problems[0]).toMatch(/^output schema: invalid JSON/);
  });

  it("teams need members, once each; workflow steps need a name and what they run, and carry their human review", () => {
    expect(teamConfig({}, { ...teamFormState({}), name: "Desk", members: [] }).problems).toEqual(["members: a team needs at least one member"]);
    expect(teamConfig({}, { ...teamFormState({}), name: "Desk", members: [{ key: "agent:writer" }, { key: "agent:writer" }] }).problems).toEqual(["members: agent writer is a member twice"]);
    const { config, problems } = workflowConfig(
      {},
      {
        name: "Brief",
        description: "",
        steps: [
          { kind: "step", name: "facts", executor: "agent:analyst", review: { confirm: false, confirmMessage: "", outputReview: false, outputMessage: "", onReject: "cancel" } },
          { kind: "step", name: "draft", executor: "team:desk", review: { confirm: true, confirmMessage: "Go?", outputReview: false, outputMessage: "", onReject: "skip" } },
          { kind: "other", label: "loop (Loop)", raw: { type: "Loop", name: "loop", steps: [] } },
        ],
      },
    );
    expect(problems).toEqual([]);
    expect(config).toEqual({
      name: "Brief",
      steps: [
        { type: "Step", name: "facts", agent_id: "analyst" },
        {
          type: "Step",
          name: "draft",
          team_id: "desk",
          human_review: { requires_confirmation: true, confirmation_message: "Go?", requires_output_review: false, output_review_message: null, on_reject: "skip" },
        },
        { type: "Loop", name: "loop", steps: [] },
      ],
    });
    expect(parseComponentConfig("workflow", config).ok).toBe(true);
    expect(workflowFormState(config).steps.map((s) => s.kind)).toEqual(["step", "step", "other"]);
    expect(
      workflowConfig(
        {},
        { name: "W", description: "", steps: [{ kind: "step", name: " ", executor: "", review: { confirm: false, confirmMessage: "", outputReview: false, outputMessage: "", onReject: "cancel" } }] },
      ).problems,
    ).toEqual(["steps.1: give the step a name", "steps.1: choose the agent or team it runs"]);
  });
});
