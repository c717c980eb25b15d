import type { Principal } from "../../auth/principal.ts";
import { COMPONENT_TEAM_MODES, type ComponentType } from "../../config/component-config.ts";
import type { Settings } from "../../config/settings.ts";
import type { Db } from "../../db/open-database.ts";
import { HttpError } from "../../errors/http-error.ts";
import { codeAgents, codeTeams, registryEntries, type RegistryEntry } from "../../components/registry.ts";
import { getComponent, listComponents, listConfigs, storeCaller, type ComponentConfigView, type ComponentView, type StoreCaller } from "../../components/store.ts";
import { configDiff, type DiffHunkLine } from "./studio-diff.ts";

/**
 * What Studio's pages show (pure of Next.js, so tests call it with a principal): the list of the
 * caller's own components and the shared ones, one component with its versions, the draft's diff
 * against the published version, and what the editor may offer the caller from the registry. Every
 * read goes through lib/components/store.ts as the caller, so a page shows exactly what the
 * /components API would answer them.
 */

/** One row of the Studio list. */
export interface StudioListRow {
  id: string;
  type: ComponentType;
  name: string;
  description: string | null;
  /** Whose it is: "you", "shared" (no owner), or for admins the owner's email (members see "another user"). */
  owner: string;
  mine: boolean;
  /** The published version runs use; null: never published. */
  currentVersion: number | null;
  /** The newest version, draft or published (null when the caller sees none). */
  latestVersion: number | null;
  /** The newest version when it is a draft newer than the current one (an unpublished edit). */
  draftVersion: number | null;
  stage: "published" | "draft" | "archived";
  /** Last edit of the component or any of its versions (epoch seconds). */
  updatedAt: number;
  /** The caller may change it (its owner, or an admin), and it is not archived. */
  editable: boolean;
}

/** A component defined in agentry.config.ts: listed beside Studio's, never editable there. */
export interface CodeComponentRow {
  id: string;
  type: ComponentType;
  name: string;
  description: string | null;
  href: string;
}

export interface StudioList {
  rows: StudioListRow[];
  total: number;
  page: number;
  pages: number;
  code: CodeComponentRow[];
}

export const STUDIO_PAGE_SIZE = 20;

/** Whether the caller may write the component (the store's rule: its owner, or an admin; a shared one only an admin). */
export function mayEdit(caller: StoreCaller, component: Pick<ComponentView, "user_id">): boolean {
  return caller.isAdmin || (caller.userId !== null && component.user_id === caller.userId);
}

function ownerLabel(caller: StoreCaller, userId: string | null, labels: Map<string, string>): string {
  if (userId === null) return "shared";
  if (userId === caller.userId) return "you";
  return caller.isAdmin ? (labels.get(userId) ?? userId) : "another user";
}

/** The newest visible version, and the newest draft after the current version. */
function versionsSummary(component: ComponentView, configs: ComponentConfigView[]): { latest: number | null; draft: number | null; updated: number } {
  const visible = configs.filter((c) => c.stage === "draft" || c.stage === "published");
  const latest = visible.reduce<number | null>((max, c) => (max === null || c.version > max ? c.version : max), null);
  const newest = visible.find((c) => c.version === latest);
  const draft = newest?.stage === "draft" && (component.current_version === null || newest.version > component.current_version) ? newest.version : null;
  const updated = Math.max(component.updated_at ?? component.created_at, ...visible.map((c) => c.updated_at ?? c.created_at));
  return { latest, draft, updated };
}

function codeHref(type: ComponentType, id: string): string {
  return `/dashboard/${type}s/${encodeURIComponent(id)}`;
}

/** The code-defined agents, teams and workflows the caller sees in the configuration (Studio lists them, read-only). */
export function codeComponents(settings: Settings, type?: ComponentType): CodeComponentRow[] {
  const rows: CodeComponentRow[] = [
    ...settings.agents.map((a) => ({ id: a.id, type: "agent" as const, name: a.name, description: a.description ?? null, href: codeHref("agent", a.id) })),
    ...settings.teams.map((t) => ({ id: t.id, type: "team" as const, name: t.name, description: t.description ?? null, href: codeHref("team", t.id) })),
    ...settings.workflows.map((w) => ({ id: w.id, type: "workflow" as const, name: w.name, description: w.description ?? null, href: codeHref("workflow", w.id) })),
  ];
  return type ? rows.filter((r) => r.type === type) : rows;
}

/** How many components (archived or not) the Archived tab looks through: the store lists archived ones only among all. */
const ARCHIVED_SCAN = 2_000;

/** One page of the archived components the caller sees, newest first (among the newest ARCHIVED_SCAN it sees). */
async function archivedPage(db: Db, settings: Settings, caller: StoreCaller, type: ComponentType | undefined, page: number): Promise<{ data: ComponentView[]; total: number }> {
  const archived: ComponentView[] = [];
  for (let scan = 1; scan <= ARCHIVED_SCAN / 100; scan++) {
    const listed = await listComponents(db, settings, caller, { componentType: type, page: scan, limit: 100, includeDeleted: true });
    archived.push(...listed.data.filter((c) => c.deleted_at !== null));
    if (scan * 100 >= listed.total) break;
  }
  return { data: archived.slice((page - 1) * STUDIO_PAGE_SIZE, page * STUDIO_PAGE_SIZE), total: archived.length };
}

/**
 * The Studio list: the caller's own components and the shared ones (a member's view: its own, the
 * owner-less ones, and everyone's published ones; an admin's: everyone's), newest first, numbered
 * pages; archived ones only when asked for. Each row says its stage, current version and last edit.
 */
export async function loadStudioList(
  db: Db,
  settings: Settings,
  principal: Principal,
  query: { type?: ComponentType; archived: boolean; page: number; labels?: Map<string, string> },
): Promise<StudioList> {
  const caller = storeCaller(principal, settings);
  const page = Math.max(1, query.page);
  const listed = query.archived
    ? await archivedPage(db, settings, caller, query.type, page)
    : await listComponents(db, settings, caller, { componentType: query.type, page, limit: STUDIO_PAGE_SIZE, includeDeleted: false });
  const components = listed.data;
  const rows = await Promise.all(
    components.map(async (component): Promise<StudioListRow> => {
      const configs = component.deleted_at === null ? await listConfigs(db, settings, caller, component.component_id, { includeConfig: false }).catch(() => []) : [];
      const { latest, draft, updated } = versionsSummary(component, configs);
      const archived = component.deleted_at !== null;
      return {
        id: component.component_id,
        type: component.component_type,
        name: component.name ?? component.component_id,
        description: component.description,
        owner: ownerLabel(caller, component.user_id, query.labels ?? new Map()),
        mine: component.user_id !== null && component.user_id === caller.userId,
        currentVersion: component.current_version,
        latestVersion: latest ?? component.current_version,
        draftVersion: draft,
        stage: archived ? "archived" : component.current_version === null ? "draft" : "published",
        updatedAt: archived ? (component.deleted_at ?? updated) : updated,
        editable: !archived && mayEdit(caller, component),
      };
    }),
  );
  return { rows, total: listed.total, page, pages: Math.max(1, Math.ceil(listed.total / STUDIO_PAGE_SIZE)), code: query.archived ? [] : codeComponents(settings, query.type) };
}

/** One version as the history shows it. */
export interface StudioVersion {
  version: number;
  stage: "draft" | "published";
  label: string | null;
  notes: string | null;
  createdAt: number;
  updatedAt: number | null;
  current: boolean;
}

/** One component's page: the row, its versions, the config the editor starts from, and the draft's diff against the published version. */
export interface StudioComponent {
  component: ComponentView;
  owner: string;
  /** The caller may change it: its owner or an admin, and it is not archived. */
  editable: boolean;
  /** The caller may archive or restore it (its owner or an admin). */
  owned: boolean;
  archived: boolean;
  /** The caller may run its drafts ("Try it"): its owner or an admin. */
  mayTry: boolean;
  versions: StudioVersion[];
  /** The newest version when it is a draft (what "Save draft" changes in place); null: saving makes a new draft. */
  draft: ComponentConfigView | null;
  /** The current published version's config. */
  published: ComponentConfigView | null;
  /** The version shown (`?version=`, else the draft, else the published one). */
  shown: ComponentConfigView | null;
  latestVersion: number | null;
  /** The draft against the published version (null without both). */
  diff: { lines: DiffHunkLine[]; added: number; removed: number } | null;
}

/**
 * One component as the caller may see it (the store's 404 for another member's draft-only one, as
 * for one that does not exist: null), with `version` the one to show (one the caller cannot see:
 * the newest instead, said so by `shown.version`).
 */
export async function loadStudioComponent(
  db: Db,
  settings: Settings,
  principal: Principal,
  id: string,
  options: { version?: number; labels?: Map<string, string> } = {},
): Promise<StudioComponent | null> {
  const caller = storeCaller(principal, settings);
  let component: ComponentView;
  try {
    component = await getComponent(db, settings, caller, id, { includeDeleted: true });
  } catch (error) {
    if (error instanceof HttpError && (error.status === 404 || error.status === 403)) return null;
    throw error;
  }
  // An archived component's versions are read-only until it is restored (the store answers them 404 meanwhile).
  const listed = component.deleted_at === null ? await listConfigs(db, settings, caller, id, { includeConfig: true }) : [];
  const configs = listed.filter((c) => c.stage === "draft" || c.stage === "published");
  configs.sort((a, b) => b.version - a.version);
  const newest = configs[0] ?? null;
  const draft = newest?.stage === "draft" ? newest : null;
  const published = configs.find((c) => c.version === component.current_version) ?? null;
  const asked = options.version !== undefined ? configs.find((c) => c.version === options.version) : undefined;
  const shown = asked ?? draft ?? published ?? newest;
  const editable = mayEdit(caller, component);
  const archived = component.deleted_at !== null;
  return {
    component,
    owner: ownerLabel(caller, component.user_id, options.labels ?? new Map()),
    editable: editable && !archived,
    owned: editable,
    archived,
    mayTry: !archived && (caller.isAdmin || (caller.userId !== null && component.user_id === caller.userId)),
    versions: configs.map((c) => ({
      version: c.version,
      stage: c.stage as "draft" | "published",
      label: c.label,
      notes: c.notes,
      createdAt: c.created_at,
      updatedAt: c.updated_at,
      current: c.version === component.current_version,
    })),
    draft,
    published,
    shown,
    latestVersion: newest?.version ?? null,
    diff: draft && published ? configDiff(published.config, draft.config) : null,
  };
}

/** A model the editor offers: its config value and label. */
export interface StudioModelChoice {
  provider: string;
  id: string;
  label: string;
}

/** A function of a toolkit the editor offers. */
export interface StudioFunctionChoice {
  name: string;
  description: string | null;
  /** It asks the user before each call whatever the component says (its toolkit's default). */
  requiresConfirmation: boolean;
  externalExecution: boolean;
}

export interface StudioToolkitChoice {
  name: string;
  id: string | null;
  functions: StudioFunctionChoice[];
  /** Only admins may attach it (shown to admins only: members are never offered it). */
  adminOnly: boolean;
}

/** An agent or team a team member or workflow step may name. */
export interface StudioMemberChoice {
  type: "agent" | "team";
  id: string;
  name: string;
  /** Defined in agentry.config.ts, or a published Studio component. */
  source: "code" | "studio";
}

/** What the editor may offer the caller: the registry's entries it may use, and the agents and teams a team or workflow may name. */
export interface StudioChoices {
  models: StudioModelChoice[];
  toolkits: StudioToolkitChoice[];
  knowledge: { name: string; description: string | null }[];
  schemas: { name: string; description: string | null }[];
  learning: { name: string }[];
  members: StudioMemberChoice[];
  teamModes: readonly string[];
}

const text = (value: unknown): string | null => (typeof value === "string" && value ? value : null);

function toolkitChoice(entry: RegistryEntry): StudioToolkitChoice {
  const functions = Array.isArray(entry.metadata.functions) ? (entry.metadata.functions as Record<string, unknown>[]) : [];
  return {
    name: entry.name,
    id: entry.id ?? null,
    adminOnly: entry.metadata.members_may_attach === false,
    functions: functions
      .filter((f) => typeof f.name === "string")
      .map((f) => ({ name: f.name as string, description: text(f.description), requiresConfirmation: f.requires_confirmation === true, externalExecution: f.external_execution === true })),
  };
}

/** Every stored component of a type the caller may name as a member or step: published, not archived (at most a few pages' worth). */
async function storedChoices(db: Db, settings: Settings, caller: StoreCaller, type: "agent" | "team", exclude?: string): Promise<StudioMemberChoice[]> {
  const choices: StudioMemberChoice[] = [];
  for (let page = 1; page <= 5; page++) {
    const listed = await listComponents(db, settings, caller, { componentType: type, page, limit: 100, includeDeleted: false });
    for (const c of listed.data) {
      if (c.current_version !== null && c.component_id !== exclude) choices.push({ type, id: c.component_id, name: c.name ?? c.component_id, source: "studio" });
    }
    if (page * 100 >= listed.total) break;
  }
  return choices;
}

/**
 * What the editor offers the caller: the registry as GET /registry lists it for them (a member is
 * never offered an admin-only toolkit or knowledge base), and for teams and workflows the
 * code-defined agents and teams and the published Studio ones (`exclude`: the component itself).
 */
export async function loadStudioChoices(db: Db, settings: Settings, principal: Principal, options: { type: ComponentType; exclude?: string }): Promise<StudioChoices> {
  const caller = storeCaller(principal, settings);
  const entries = registryEntries(settings, { isAdmin: principal.isAdmin });
  const of = (type: RegistryEntry["type"]) => entries.filter((e) => e.type === type);
  const members: StudioMemberChoice[] =
    options.type === "agent"
      ? []
      : [
          ...codeAgents(settings).map((a) => ({ type: "agent" as const, id: a.id, name: a.name, source: "code" as const })),
          ...codeTeams(settings).map((t) => ({ type: "team" as const, id: t.id, name: t.name, source: "code" as const })),
          ...(await storedChoices(db, settings, caller, "agent", options.exclude)),
          ...(await storedChoices(db, settings, caller, "team", options.exclude)),
        ];
  return {
    models: of("model").map((e) => {
      const provider = String(e.metadata.provider ?? "");
      const id = String(e.metadata.model_id ?? e.name);
      return { provider, id, label: `${provider}/${id}` };
    }),
    toolkits: of("tool").map(toolkitChoice),
    knowledge: of("knowledge").map((e) => ({ name: e.name, description: e.description ?? null })),
    schemas: of("schema").map((e) => ({ name: e.name, description: e.description ?? null })),
    learning: of("learning").map((e) => ({ name: e.name })),
    members,
    teamModes: COMPONENT_TEAM_MODES,
  };
}
