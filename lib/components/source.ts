import type { AgentDefinition, TeamDefinition } from "../config/define.ts";
import type { Settings } from "../config/settings.ts";
import type { Db } from "../db/open-database.ts";
import { ComponentRehydrationError } from "../errors/http-error.ts";
import { toRuntimeAgent, type RuntimeAgent, type StoredComponentVersion } from "../runtime/agents.ts";
import type { ComponentCaller, ComponentRef, ComponentSource, ResolvedComponent } from "../runtime/component-source.ts";
import { toRuntimeTeam } from "../runtime/team/team-runtime.ts";
import { toRuntimeWorkflow } from "../runtime/workflow/workflow-runtime.ts";
import { codeAgent, codeTeam } from "./registry.ts";
import { rehydrateAgent, rehydrateTeam, rehydrateWorkflow, type ChildResolver } from "./rehydrate.ts";
import { unsafeComponentHead, unsafeLoadComponentVersion } from "./store.ts";

/** Built components kept per process (each a few KiB); the oldest built is dropped first. */
const MAX_BUILT = 256;
/** How deep team members and workflow steps may nest stored components (a cycle stops here). */
const MAX_DEPTH = 8;

interface Built {
  agent: RuntimeAgent;
  /** A draft is mutable: its build is kept only while its config and links are the ones it was built from (null: published). */
  draftConfig: string | null;
  /** The stored components it runs (members, step agents and teams): a kept build is used only while none is archived. */
  storedChildren: string[];
}

const builds = new WeakMap<Settings, Map<string, Built>>();

function cacheOf(settings: Settings): Map<string, Built> {
  let cache = builds.get(settings);
  if (!cache) builds.set(settings, (cache = new Map()));
  return cache;
}

function remember(cache: Map<string, Built>, key: string, built: Built): void {
  cache.delete(key);
  cache.set(key, built);
  if (cache.size > MAX_BUILT) cache.delete(cache.keys().next().value as string);
}

/** Whether any of these stored components is archived now (one primary-key read each; none for a component without stored children). */
async function anyArchived(db: Db, ids: readonly string[]): Promise<boolean> {
  for (const id of ids) if ((await unsafeComponentHead(db, id))?.deleted_at != null) return true;
  return false;
}

/** Whether the caller may use a draft version: its owner or an admin. */
function mayUseDraft(caller: ComponentCaller, ownerId: string | null): boolean {
  return caller.isAdmin || (caller.userId !== null && caller.userId === ownerId);
}

/**
 * The definition of a stored component's version, built against the registry: its children (team
 * members, workflow step agents and teams) resolve to code-defined components first, else to
 * stored ones at the version their link pins (else their current published version).
 */
async function definitionOf(settings: Settings, db: Db, loaded: Loaded, depth: number, build: { volatile: boolean; storedChildren: string[] }) {
  const { component, config, links } = loaded;
  const ownerId = component.user_id;
  const child: ChildResolver = async (ref) => {
    // Defined in code (a team's member or a step's agent included) always wins, as the store's links assume.
    const inCode = ref.type === "team" ? codeTeam(settings, ref.id) : codeAgent(settings, ref.id);
    if (inCode) return inCode;
    if (depth >= MAX_DEPTH) throw new ComponentRehydrationError(`Component '${component.component_id}' nests stored components more than ${MAX_DEPTH} deep (a cycle?) at '${ref.id}'`);
    const head = await unsafeComponentHead(db, ref.id);
    if (!head || head.component_type !== ref.type) return undefined;
    if (head.deleted_at !== null) throw new ComponentRehydrationError(`Component '${component.component_id}' uses ${ref.type} '${ref.id}', which is archived: restore it or remove it`);
    build.storedChildren.push(ref.id);
    // An unpinned child runs its current version, which can change: the build is not kept.
    if (ref.version === undefined) build.volatile = true;
    const version = ref.version ?? head.current_version;
    if (version === null || version === undefined) return undefined;
    const childLoaded = await unsafeLoadComponentVersion(db, ref.id, version);
    if (!childLoaded || childLoaded.config.stage === ("_deleted" as string)) return undefined;
    return (await definitionOf(settings, db, childLoaded, depth + 1, build)) as AgentDefinition | TeamDefinition;
  };
  const input = { id: component.component_id, config: { name: component.name ?? undefined, ...config.config }, ownerId };
  if (component.component_type === "team") return rehydrateTeam(settings, { ...input, links, child });
  if (component.component_type === "workflow") return rehydrateWorkflow(settings, { ...input, links, child });
  return rehydrateAgent(settings, input);
}

/** A built component, and whether it may be kept (not when a child it uses runs its current version, which can change). */
async function build(settings: Settings, db: Db, loaded: Loaded): Promise<{ agent: RuntimeAgent; volatile: boolean; storedChildren: string[] }> {
  const extras = { prices: settings.metrics.prices, embedder: settings.knowledge.embedder };
  const stored: StoredComponentVersion = { version: loaded.config.version, stage: loaded.config.stage, ownerId: loaded.component.user_id };
  const flags = { volatile: false, storedChildren: [] as string[] };
  const definition = await definitionOf(settings, db, loaded, 0, flags);
  const type = loaded.component.component_type;
  const agent: RuntimeAgent =
    type === "team"
      ? { ...toRuntimeTeam(definition as TeamDefinition, extras), stored }
      : type === "workflow"
        ? { ...toRuntimeWorkflow(definition as Parameters<typeof toRuntimeWorkflow>[0], extras), stored }
        : { ...toRuntimeAgent(definition as AgentDefinition), ...extras, maxSchedulesPerUser: settings.scheduler.maxSchedulesPerUser, stored };
  return { agent, volatile: flags.volatile, storedChildren: flags.storedChildren };
}

type Loaded = NonNullable<Awaited<ReturnType<typeof unsafeLoadComponentVersion>>>;

/**
 * Studio's stored components as the runtime's ComponentSource (lib/runtime/component-source.ts).
 * Every resolve reads the component's row (one primary-key read): a publish, rollback or archive on
 * any replica is what the next request here runs, with or without Redis. A published version never
 * changes, so its build is kept by (id, version), the most recently used kept longest; a draft's
 * only while its config and links are unchanged; none whose stored children are unpinned (they
 * run their current version, which can change). A kept build with stored children is used only
 * while none of them is archived (a read per child); an archived child is a 422.
 */
export const storedComponentSource: ComponentSource = {
  async resolve(settings: Settings, db: Db, ref: ComponentRef, caller: ComponentCaller): Promise<ResolvedComponent | undefined> {
    const head = await unsafeComponentHead(db, ref.id);
    if (!head || head.component_type !== ref.type || head.deleted_at !== null) return undefined;
    const version = ref.version ?? head.current_version;
    if (version === null || version === undefined) return undefined;
    const cache = cacheOf(settings);
    const key = `${ref.type}:${ref.id}@${version}`;
    let cached = cache.get(key);
    // A child archived since (by its owner, on any replica): rebuilt, which says so.
    if (cached && (await anyArchived(db, cached.storedChildren))) cached = undefined;
    if (cached && cached.draftConfig === null) {
      remember(cache, key, cached);
      return { agent: cached.agent, version, stage: "published" };
    }
    const loaded = await unsafeLoadComponentVersion(db, ref.id, version);
    if (!loaded) return undefined;
    const stage = loaded.config.stage;
    if (stage !== "published" && stage !== "draft") return undefined;
    if (stage === "draft" && !mayUseDraft(caller, head.user_id)) return undefined;
    const draftConfig = stage === "draft" ? JSON.stringify([loaded.config.config, loaded.links]) : null;
    if (cached && cached.draftConfig === draftConfig) {
      remember(cache, key, cached);
      return { agent: cached.agent, version, stage };
    }
    const { agent, volatile, storedChildren } = await build(settings, db, loaded);
    if (volatile) cache.delete(key);
    else remember(cache, key, { agent, draftConfig, storedChildren });
    return { agent, version, stage };
  },
};
