import { createHash } from "node:crypto";
import { MISSING_IDENTITY, type Principal } from "../auth/principal.ts";
import { instructionsText, parseComponentConfig, type ComponentType } from "../config/component-config.ts";
import { DEFAULT_STUDIO_LIMITS, type Settings } from "../config/settings.ts";
import { PIN_LINK_KINDS, type ComponentConfigRow, type ComponentLinkInput, type ComponentLinkRow, type ComponentRow } from "../db/components/component-rows.ts";
import {
  activeDependents,
  appendConfig,
  archiveComponentRow,
  childEdges,
  ComponentWriteConflict,
  componentRowsByIds,
  countLiveOwned,
  getComponentRow,
  getConfigRow,
  insertComponentWithConfig,
  latestConfigRow,
  linksOf,
  listComponentRows,
  listConfigRows,
  restoreComponentRow,
  tombstoneDraftConfig,
  updateComponentRow,
  updateDraftConfig,
  versionState,
  versionWithLabel,
  type ComponentRowFields,
} from "../db/components/components.ts";
import type { Db } from "../db/open-database.ts";
import { pythonRepr } from "../db/traces/trace-filter.ts";
import { HttpError } from "../errors/http-error.ts";
import { componentsChanged } from "./changes.ts";
import { codeAgent, codeAgents, codeTeam, codeTeams, configUseIssues } from "./registry.ts";
import type { ComponentLinkLike } from "./rehydrate.ts";

/**
 * Studio's stored components: the service behind `/components` (lib/http/routes/components.ts) and
 * the dashboard's Studio actions, with Agno's semantics and error texts. Every function takes the
 * caller (`storeCaller`) and throws HttpError with the status and `detail` to answer.
 *
 * - Visibility: a scoped caller (a non-admin under user isolation, or any non-admin service
 *   account) sees its own rows, owner-less (shared) rows and other owners' live published rows;
 *   anyone else sees every row. Writes are the owner's: a scoped caller changing a shared row gets
 *   403 "Cannot <verb> shared component", another owner's 403 "Cannot <verb> component owned by
 *   another user" (`delete` for component and config deletes, `modify` otherwise).
 * - Drafts: readable by the owner, by anyone on an owner-less row, by admins and with auth off;
 *   anyone else reads published versions only (a draft is a 404). A config a scoped caller does
 *   not own is read with its `db` blocks cut to `id`, `type` and `*_table`.
 * - Versions: appended as max + 1 over every version ever given (a deleted draft stays as a
 *   tombstone, so a number never comes back); drafts change in place, published versions never.
 *   Publishing moves `current_version` and projects the version's name, description and metadata
 *   onto the row in one transaction; a published version pins only live published children.
 * - Links: team members (`member`) and workflow step children (`step_*`), derived from the config
 *   when the request sends no `links`, each pinning the child's current version.
 * - Config checks (Agentry's): the config schema (lib/config/component-config.ts), what the caller
 *   may use (lib/components/registry.ts) and `settings.studio.limits`.
 * Publishes, rollbacks, archives and restores are announced (changes.ts) once committed.
 */

export interface StoreCaller {
  userId: string | null;
  isAdmin: boolean;
  /** A non-admin under user isolation or any non-admin service account: sees own + shared published rows. */
  scoped: boolean;
}

/** A component as the API answers it (Agno's ComponentResponse): its row as stored (lib/db/components/component-rows.ts). */
export type ComponentView = ComponentRow;

export interface ComponentConfigView {
  component_id: string;
  version: number;
  label: string | null;
  stage: "draft" | "published";
  /** Null when listed without configs. */
  config: Record<string, unknown> | null;
  notes: string | null;
  created_at: number;
  updated_at: number | null;
}

/** A compare-and-set guard: each field given must match the stored state (409 otherwise). */
export interface ComponentGuard {
  latest_version?: number | null;
  current_version?: number | null;
}

/** Agno's ComponentCreate. */
export interface ComponentCreateBody {
  name: string;
  component_id?: string | null;
  component_type: ComponentType;
  description?: string | null;
  metadata?: Record<string, unknown> | null;
  config?: Record<string, unknown> | null;
  label?: string | null;
  stage?: string | null;
  notes?: string | null;
  /** Accepted and ignored, as in Agno: the stage decides. */
  set_current?: boolean | null;
}

/** Agno's ComponentUpdate. */
export interface ComponentUpdateBody {
  name?: string | null;
  description?: string | null;
  component_type?: string | null;
  metadata?: Record<string, unknown> | null;
  current_version?: number | null;
  guard?: ComponentGuard | null;
}

/** Agno's ConfigCreate (`version` and `set_current` are accepted and ignored). */
export interface ConfigCreateBody {
  config: Record<string, unknown>;
  version?: number | null;
  label?: string | null;
  stage?: string | null;
  notes?: string | null;
  links?: unknown[] | null;
  set_current?: boolean | null;
  guard?: ComponentGuard | null;
}

/** Agno's ConfigUpdate. */
export interface ConfigUpdateBody {
  config?: Record<string, unknown> | null;
  label?: string | null;
  stage?: string | null;
  notes?: string | null;
  links?: unknown[] | null;
  guard?: ComponentGuard | null;
}

// ── the caller ───────────────────────────────────────────────────────────────────────────────

/** The caller a principal is: scoped unless an admin, or a member where the install turned isolation off (service accounts always are). */
export function storeCaller(principal: Principal, _settings: Settings): StoreCaller {
  const scoped = !principal.isAdmin && (principal.kind === "service_account" || principal.isolated !== false);
  return { userId: principal.userId, isAdmin: principal.isAdmin, scoped };
}

/** Agno's scoped user id: the caller's own id when scoped, null otherwise. A scoped caller without one owns nothing (403). */
function scopedUser(caller: StoreCaller): string | null {
  if (!caller.scoped) return null;
  if (caller.userId === null) throw new HttpError(403, MISSING_IDENTITY);
  return caller.userId;
}

/** Whether the caller may read this component's drafts: its owner, anyone on an owner-less row, admins (and auth off). */
function mayReadDrafts(row: ComponentRow, caller: StoreCaller): boolean {
  return caller.isAdmin || caller.userId === null || row.user_id === null || row.user_id === caller.userId;
}

/** Whether a scoped caller sees this row (its own, owner-less, or live and published). */
function visibleTo(row: ComponentRow, caller: StoreCaller): boolean {
  const own = scopedUser(caller);
  return own === null || row.user_id === own || row.user_id === null || (row.current_version !== null && row.deleted_at === null);
}

/** Writes are the owner's: a scoped caller changing a shared or another owner's row is refused. */
function requireWrite(row: ComponentRow, caller: StoreCaller, verb: "modify" | "delete" = "modify"): void {
  const own = scopedUser(caller);
  if (own === null) return;
  if (row.user_id === null) throw new HttpError(403, `Cannot ${verb} shared component`);
  if (row.user_id !== own) throw new HttpError(403, `Cannot ${verb} component owned by another user`);
}

const notFound = (id: string) => new HttpError(404, `Component ${id} not found`);

/** The component as the caller may see it (archived ones only with `includeDeleted`), else 404. */
async function visibleRow(db: Db, caller: StoreCaller, id: string, includeDeleted = false): Promise<ComponentRow> {
  const row = await getComponentRow(db, id, { viewer: scopedUser(caller), includeDeleted });
  if (!row) throw notFound(id);
  return row;
}

function limitsOf(settings: Settings): Settings["studio"]["limits"] {
  return { ...DEFAULT_STUDIO_LIMITS, ...settings.studio?.limits };
}

/** The per-member component limit the caller is under; none for admins (and auth off). */
function memberLimit(settings: Settings, caller: StoreCaller): { userId: string; max: number } | undefined {
  return !caller.isAdmin && caller.userId !== null ? { userId: caller.userId, max: limitsOf(settings).maxComponentsPerUser } : undefined;
}

async function refuseOverLimit(db: Db, limit: { userId: string; max: number } | undefined): Promise<void> {
  if (!limit) return;
  const owned = await countLiveOwned(db, limit.userId);
  if (owned >= limit.max) {
    throw new HttpError(422, `Component limit reached: you have ${owned} components and the limit is ${limit.max} per member (studio.limits.maxComponentsPerUser); archive one first`);
  }
}

// ── small texts as Agno prints them ────────────────────────────────────────────────────────────

/** Python's str() of an optional int: `None` for null. */
const py = (value: number | null | undefined): string => pythonRepr(value ?? null);

/** What a 409 names: ids a scoped caller cannot see read "another component". */
async function shownIds(db: Db, caller: StoreCaller, ids: readonly string[]): Promise<Map<string, string>> {
  const shown = new Map(ids.map((id) => [id, id]));
  if (scopedUser(caller) === null || ids.length === 0) return shown;
  const rows = new Map((await componentRowsByIds(db, ids)).map((r) => [r.component_id, r]));
  for (const id of ids) {
    const row = rows.get(id);
    if (!row || !visibleTo(row, caller)) shown.set(id, "another component");
  }
  return shown;
}

// ── ids ──────────────────────────────────────────────────────────────────────────────────────

/** The id minted from a display name: lowercase, each run of other than letters and digits one `-`, edges trimmed. */
export function componentIdFromName(name: string): string {
  const slug = Array.from(name.trim(), (c) => (/[\p{L}\p{N}]/u.test(c) ? c.toLowerCase() : "-"))
    .join("")
    .replace(/-{2,}/g, "-")
    .replace(/^-+|-+$/g, "");
  return slug || "component";
}

/** The 8 hex digits a scoped caller's minted ids end with, so two users' same name give two ids. */
export function ownerDigest(userId: string): string {
  return createHash("sha256").update(userId, "utf8").digest("hex").slice(0, 8);
}

/** Python's `str.isspace()`: what `\s` matches, and the separators U+001C–U+001F and U+0085. */
const isSpace = (c: string) => /\s/u.test(c) || (c >= "\u001c" && c <= "\u001f") || c === "\u0085";

/** Why an explicit component id cannot be used (it is a URL path segment), or null. */
export function componentIdProblem(id: string): string | null {
  if (!id) return "component_id must not be empty";
  if (Array.from(id).some(isSpace)) return "component_id must not contain whitespace";
  const hit = Array.from(id).find((c) => "/\\?#%".includes(c) || c.charCodeAt(0) < 32);
  if (hit !== undefined) return `component_id must not contain ${pythonRepr(hit)}`;
  if (id === "." || id === "..") return "component_id must not be a path segment";
  return null;
}

// ── views ────────────────────────────────────────────────────────────────────────────────────

function componentView(row: ComponentRow): ComponentView {
  return { ...row };
}

/** Every `db` block of a config, at any depth, cut to what a reader needs: `id`, `type` and the `*_table` names. */
function redactDb(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactDb);
  if (!value || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = redactDb(item);
  const db = out.db;
  if (db && typeof db === "object" && !Array.isArray(db)) {
    out.db = Object.fromEntries(Object.entries(db).filter(([k]) => k === "id" || k === "type" || k.endsWith("_table")));
  }
  return out;
}

/** A config as the caller may read it: whole for whoever may write it back, else with its `db` blocks redacted. */
function configView(row: ComponentConfigRow, component: ComponentRow, caller: StoreCaller): ComponentConfigView {
  const redact = scopedUser(caller) !== null && component.user_id !== caller.userId;
  const config = row.config && redact ? (redactDb(row.config) as Record<string, unknown>) : row.config;
  return {
    component_id: row.component_id,
    version: row.version,
    label: row.label,
    stage: row.stage as "draft" | "published",
    config,
    notes: row.notes,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

// ── configs ──────────────────────────────────────────────────────────────────────────────────

/**
 * A config the caller may save for a component of `type`: at most `maxConfigBytes` (413), valid
 * (422 naming each problem), instructions of at most `maxInstructionsChars` (422), and only what
 * the registry offers the caller (403 for what is admin-only, 422 for what it lacks). A `db: null`
 * is dropped, as Agno drops it.
 */
function checkedConfig(settings: Settings, caller: StoreCaller, type: ComponentType, config: Record<string, unknown>): Record<string, unknown> {
  const limits = limitsOf(settings);
  const bytes = Buffer.byteLength(JSON.stringify(config), "utf8");
  if (bytes > limits.maxConfigBytes) throw new HttpError(413, `The config is ${bytes} bytes; the limit is ${limits.maxConfigBytes} bytes (studio.limits.maxConfigBytes)`);
  const parsed = parseComponentConfig(type, config);
  if (!parsed.ok) throw new HttpError(422, `Invalid ${type} config: ${parsed.problems.join("; ")}`);
  const chars = Array.from(instructionsText(parsed.config)).length;
  if (chars > limits.maxInstructionsChars) {
    throw new HttpError(422, `The instructions are ${chars} characters; the limit is ${limits.maxInstructionsChars} characters (studio.limits.maxInstructionsChars)`);
  }
  refuseUnusable(settings, caller, type, parsed.config, "save");
  const saved = { ...config };
  if ("db" in saved && saved.db === null) delete saved.db;
  return saved;
}

/**
 * What a config uses, against the registry and the caller: 403 for what is admin-only, 422 for what
 * the registry lacks. Checked at save, and again when a version goes live (publish, set-current,
 * restore): the registry may have changed since it was saved (a toolkit now admin-only, a model
 * gone), and what a member could not save now, it cannot share either.
 */
function refuseUnusable(settings: Settings, caller: StoreCaller, type: ComponentType, config: Record<string, unknown>, verb: "save" | "publish"): void {
  const issues = configUseIssues(settings, type, config, { isAdmin: caller.isAdmin });
  const forbidden = issues.filter((i) => i.kind === "forbidden");
  if (forbidden.length > 0) throw new HttpError(403, `Cannot use in a ${type}: ${forbidden.map((i) => i.message).join("; ")}`);
  if (issues.length > 0) throw new HttpError(422, `Cannot ${verb} this ${type}: ${issues.map((i) => i.message).join("; ")}`);
}

function checkedStage(stage: string): "draft" | "published" {
  if (stage !== "draft" && stage !== "published") throw new HttpError(400, `Invalid stage: ${stage}`);
  return stage;
}

/** The row fields a config version owns once it is live: name (when set), description (when present), metadata (when more than Studio's stamp). */
export function projectConfigIdentity(config: Record<string, unknown>): ComponentRowFields {
  const projection: ComponentRowFields = {};
  if (config.name !== undefined && config.name !== null) projection.name = String(config.name);
  if ("description" in config) projection.description = config.description ? String(config.description) : "";
  const metadata = config.metadata;
  if (metadata && typeof metadata === "object" && !Array.isArray(metadata)) {
    const keys = Object.keys(metadata);
    const stampOnly = keys.length > 0 && keys.every((k) => k === "studio");
    if (config.metadata_authored || !stampOnly) projection.metadata = metadata as Record<string, unknown>;
  }
  return projection;
}

// ── links ────────────────────────────────────────────────────────────────────────────────────

const isPin = (kind: string) => (PIN_LINK_KINDS as readonly string[]).includes(kind);
const MAX_LINK_VERSION = 2 ** 31 - 1;
/** How often an append without a guard that lost its version number to another is tried again. */
const APPEND_RETRIES = 8;

/** Every component id a config names as `agent_id`, `team_id` or `workflow_id`, at any depth. */
function referencedIds(config: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(config)) for (const item of config) referencedIds(item, into);
  else if (config && typeof config === "object") {
    const node = config as Record<string, unknown>;
    for (const key of ["agent_id", "team_id", "workflow_id"]) if (typeof node[key] === "string") into.add(node[key] as string);
    for (const value of Object.values(node)) referencedIds(value, into);
  }
  return into;
}

/** Live stored components by id (archived ones are absent). */
async function liveRows(db: Db, ids: Iterable<string>): Promise<Map<string, ComponentRow>> {
  const rows = await componentRowsByIds(db, [...new Set(ids)]);
  return new Map(rows.filter((r) => r.deleted_at === null).map((r) => [r.component_id, r]));
}

/** A link's `child_version` as an integer version (or null), refusing what names none (400). */
function linkVersion(raw: unknown): number | null {
  const bad = () => new HttpError(400, `Link child_version ${pythonRepr(raw)} is not an integer version number`);
  const inRange = (v: number) => {
    if (v < 1 || v > MAX_LINK_VERSION) throw new HttpError(400, `Link child_version ${v} is out of range`);
    return v;
  };
  if (raw === null || raw === undefined) return null;
  if (typeof raw === "boolean") throw bad();
  if (typeof raw === "number") {
    if (!Number.isInteger(raw)) throw bad();
    return inRange(raw);
  }
  if (typeof raw === "string") {
    const text = raw.trim().replace(/_/g, "");
    if (!/^[+-]?\d+$/.test(text)) throw bad();
    return inRange(Number(text));
  }
  throw bad();
}

/** The links a request sends, checked for shape (400 naming the field); `child_version` normalized. */
function explicitLinks(raw: readonly unknown[]): (ComponentLinkInput & { child_version: number | null })[] {
  return raw.map((item, i) => {
    if (!item || typeof item !== "object" || Array.isArray(item)) throw new HttpError(400, `links.${i}: a link is an object`);
    const link = item as Record<string, unknown>;
    for (const key of ["link_kind", "link_key", "child_component_id"] as const) {
      if (typeof link[key] !== "string" || !link[key]) throw new HttpError(400, `links.${i}.${key}: a non-empty string is required`);
    }
    const position = link.position ?? i;
    if (typeof position !== "number" || !Number.isInteger(position) || Math.abs(position) > MAX_LINK_VERSION) throw new HttpError(400, `links.${i}.position: an integer is required`);
    const meta = link.meta ?? null;
    if (meta !== null && (typeof meta !== "object" || Array.isArray(meta))) throw new HttpError(400, `links.${i}.meta: an object is required`);
    return {
      link_kind: link.link_kind as string,
      link_key: link.link_key as string,
      child_component_id: link.child_component_id as string,
      child_version: linkVersion(link.child_version),
      position,
      meta: meta as Record<string, unknown> | null,
    };
  });
}

/** A team's members as links (stored members with a current version), and the members nothing resolves. */
async function memberLinks(db: Db, settings: Settings, config: Record<string, unknown>): Promise<{ links: ComponentLinkInput[]; unresolved: string[] }> {
  const members = Array.isArray(config.members) ? (config.members as unknown[]) : [];
  const refs = members.map((m) => {
    if (!m || typeof m !== "object") return null;
    const member = m as Record<string, unknown>;
    const type = member.type;
    const id = type === "agent" ? member.agent_id : type === "team" ? member.team_id : undefined;
    return typeof id === "string" && id ? { type: type as "agent" | "team", id } : null;
  });
  const stored = await liveRows(
    db,
    refs.flatMap((r) => (r ? [r.id] : [])),
  );
  const links: ComponentLinkInput[] = [];
  const unresolved: string[] = [];
  refs.forEach((ref, position) => {
    if (!ref) return;
    // Defined in code (nested ones included): it wins over any stored row, as at run time.
    if (ref.type === "agent" ? codeAgent(settings, ref.id) : codeTeam(settings, ref.id)) return;
    const row = stored.get(ref.id);
    if (row) {
      // A draft-only member exists: it is resolved when the team is built, with no pin.
      if (row.current_version !== null)
        links.push({ link_kind: "member", link_key: `member_${position}`, child_component_id: ref.id, child_version: row.current_version, position, meta: { type: ref.type } });
      return;
    }
    unresolved.push(ref.id);
  });
  return { links, unresolved };
}

/**
 * A workflow's steps as links: each leaf Step's agent, team or workflow (`step_agent`, `step_team`,
 * `step_workflow`) keyed by the step's id or name (`#else` appended inside a Condition's else
 * branch), pinning a stored child's current version; children that are not stored (defined in
 * code) or have no published version get none. Two different pins under one key: 400.
 */
async function stepLinks(db: Db, settings: Settings, config: Record<string, unknown>): Promise<ComponentLinkInput[]> {
  const specs: ComponentLinkInput[] = [];
  const walk = (step: unknown, position: number, suffix: string) => {
    if (!step || typeof step !== "object") return;
    const s = step as Record<string, unknown>;
    const type = String(s.type ?? "Step")
      .trim()
      .toLowerCase();
    if (type === "router") {
      for (const [i, child] of (Array.isArray(s.choices) ? s.choices : []).entries()) walk(child, i, suffix);
      return;
    }
    if (["parallel", "loop", "steps", "condition"].includes(type)) {
      for (const [i, child] of (Array.isArray(s.steps) ? s.steps : []).entries()) walk(child, i, suffix);
      for (const [i, child] of (Array.isArray(s.else_steps) ? s.else_steps : []).entries()) walk(child, i, `${suffix}#else`);
      return;
    }
    const key = (typeof s.step_id === "string" && s.step_id) || (typeof s.name === "string" && s.name) || `step_${position}`;
    for (const [field, kind] of [
      ["agent_id", "step_agent"],
      ["team_id", "step_team"],
      ["workflow_id", "step_workflow"],
    ] as const) {
      const child = s[field];
      if (typeof child === "string" && child) specs.push({ link_kind: kind, link_key: `${key}${suffix}`, child_component_id: child, child_version: null, position });
    }
  };
  for (const [i, step] of (Array.isArray(config.steps) ? config.steps : []).entries()) walk(step, i, "");
  const stored = await liveRows(
    db,
    specs.map((l) => l.child_component_id),
  );
  const seen = new Map<string, ComponentLinkInput>();
  const links: ComponentLinkInput[] = [];
  for (const spec of specs) {
    // A step agent or team defined in code wins over any stored row, as at run time.
    if (spec.link_kind === "step_agent" ? codeAgent(settings, spec.child_component_id) : spec.link_kind === "step_team" ? codeTeam(settings, spec.child_component_id) : undefined) continue;
    const row = stored.get(spec.child_component_id);
    if (!row || row.current_version === null) continue;
    const link = { ...spec, child_version: row.current_version };
    const key = `${link.link_kind}\u0000${link.link_key}`;
    const existing = seen.get(key);
    if (existing) {
      if (existing.child_component_id === link.child_component_id && existing.child_version === link.child_version) continue;
      throw new HttpError(
        400,
        `Workflow '${typeof config.id === "string" ? config.id : "None"}' produces two different links for key '${link.link_key}' ('${existing.child_component_id}' v${py(existing.child_version)} and '${link.child_component_id}' v${py(link.child_version)}); give steps distinct names so every pin is kept.`,
      );
    }
    seen.set(key, link);
    links.push(link);
  }
  return links;
}

/**
 * The links of a config saved through the config routes: the request's own when it sends some;
 * else, from the config, a team's members (unresolved ones left to the build) or a workflow's
 * steps; undefined when there is nothing to derive from (a version's existing links stay).
 */
async function derivedLinks(
  db: Db,
  settings: Settings,
  component: ComponentRow,
  config: Record<string, unknown> | undefined,
  sent: ComponentLinkInput[] | undefined,
): Promise<ComponentLinkInput[] | undefined> {
  if (sent !== undefined) return sent;
  if (!config) return undefined;
  if (component.component_type === "team") return (await memberLinks(db, settings, config)).links;
  if (component.component_type === "workflow") return stepLinks(db, settings, config);
  return undefined;
}

/**
 * A scoped caller may reference only components it may see: an id that is stored and live but
 * not visible to it is a 404 naming it (as if absent). Ids that are not stored may be code-defined.
 */
async function refuseForeignReferences(db: Db, caller: StoreCaller, ownId: string, config: Record<string, unknown> | undefined, links: readonly ComponentLinkInput[] | undefined): Promise<void> {
  if (scopedUser(caller) === null) return;
  const ids = referencedIds(config ?? {});
  for (const link of links ?? []) ids.add(link.child_component_id);
  ids.delete(ownId);
  const rows = await liveRows(db, ids);
  for (const id of [...ids].sort()) {
    const row = rows.get(id);
    if (row && !visibleTo(row, caller)) throw notFound(id);
  }
}

/** A pin the caller sends must name a version it may read: another owner's draft (or an absent version) is the 404 a direct read would give. */
async function refuseUnreadablePins(db: Db, caller: StoreCaller, links: readonly ComponentLinkInput[] | undefined): Promise<void> {
  if (!links || caller.isAdmin || caller.userId === null) return;
  const rows = await liveRows(
    db,
    links.map((l) => l.child_component_id),
  );
  for (const link of links) {
    const child = rows.get(link.child_component_id);
    if (!child || link.child_version === null) continue;
    const config = await getConfigRow(db, child.component_id, link.child_version);
    if (config?.stage === "published" || mayReadDrafts(child, caller)) continue;
    throw new HttpError(404, `Config ${child.component_id} v${link.child_version} not found`);
  }
}

/**
 * The links a version may write under `parentId`: not to itself, to stored children only (a
 * component defined in code is resolved by id when the parent is built, without a link), none of
 * them archived, and closing no cycle through the stored links. 409 / 400 otherwise.
 */
async function checkLinkTargets(db: Db, parentId: string, links: readonly ComponentLinkInput[]): Promise<void> {
  const childIds = [...new Set(links.map((l) => l.child_component_id))];
  if (childIds.includes(parentId)) throw new HttpError(409, `Component ${parentId} cannot reference itself`);
  const rows = new Map((await componentRowsByIds(db, childIds)).map((r) => [r.component_id, r]));
  for (const child of [...childIds].sort()) {
    const row = rows.get(child);
    if (!row) throw new HttpError(400, `Cannot link ${parentId} to '${child}': it is not a stored component`);
    if (row.deleted_at !== null) throw new HttpError(409, `Cannot link ${parentId} to archived component ${child}`);
  }
  const visited = new Set<string>();
  let frontier = childIds;
  while (frontier.length > 0) {
    for (const id of frontier) visited.add(id);
    const edges = await childEdges(db, frontier);
    const next: string[] = [];
    for (const edge of edges) {
      if (edge.child === parentId) throw new HttpError(409, `Linking ${parentId} -> ${edge.parent} would close a reference cycle`);
      if (!visited.has(edge.child) && !next.includes(edge.child)) next.push(edge.child);
    }
    frontier = next;
  }
}

/**
 * The links a config route's request sends (undefined: none), after the checks on what it names:
 * their shape, components the caller may see, versions it may read; and the guard half the
 * config routes do not check (400).
 */
async function sentLinks(
  db: Db,
  caller: StoreCaller,
  id: string,
  config: Record<string, unknown> | undefined,
  body: { links?: unknown[] | null; guard?: ComponentGuard | null },
): Promise<ComponentLinkInput[] | undefined> {
  const sent = body.links === undefined || body.links === null ? undefined : explicitLinks(body.links);
  await refuseForeignReferences(db, caller, id, config, sent);
  await refuseUnreadablePins(db, caller, sent);
  refuseGuardHalf(body.guard, "latest_version");
  return sent;
}

/** Every link names its child's version (a pin without one cannot be rebuilt). */
function requireLinkVersions(links: readonly ComponentLinkInput[]): void {
  for (const link of links) if (link.child_version === null) throw new HttpError(400, `child_version is required for link to ${link.child_component_id}`);
}

/** A version going live must pin live published children only (409 naming the first that is not). */
async function checkPinsPublishable(
  db: Db,
  caller: StoreCaller,
  links: readonly (ComponentLinkInput | ComponentLinkRow)[],
  refusal: (link: ComponentLinkInput | ComponentLinkRow, stage: string | null, archived: boolean, shown: string) => string,
): Promise<void> {
  const pins = links.filter((l) => isPin(l.link_kind));
  if (pins.length === 0) return;
  const rows = new Map(
    (
      await componentRowsByIds(
        db,
        pins.map((l) => l.child_component_id),
      )
    ).map((r) => [r.component_id, r]),
  );
  for (const link of pins) {
    const config = link.child_version === null ? undefined : await getConfigRow(db, link.child_component_id, link.child_version, { includeDeleted: true });
    const archived = rows.get(link.child_component_id)?.deleted_at != null;
    if (config?.stage === "published" && !archived) continue;
    const shown = (await shownIds(db, caller, [link.child_component_id])).get(link.child_component_id)!;
    throw new HttpError(409, refusal(link, config?.stage ?? null, config?.stage === "published" && archived, shown));
  }
}

const publishRefusal =
  (id: string, version: number) =>
  (link: ComponentLinkInput | ComponentLinkRow, stage: string | null, archived: boolean, shown: string): string =>
    archived
      ? `Cannot publish ${id} v${version}: pinned ${link.link_kind} '${shown}' is archived; restore it first.`
      : `Cannot publish ${id} v${version}: pinned ${link.link_kind} '${shown}' v${py(link.child_version)} is ${stage ?? "missing"}; publish the child first.`;

/** The children a version pins (their rows are locked while it goes live). */
const pinnedChildren = (links: readonly (ComponentLinkInput | ComponentLinkRow)[]) => [...new Set(links.filter((l) => isPin(l.link_kind)).map((l) => l.child_component_id))].sort();

/**
 * A version going live again (a rollback, a restore) must not pin an archived child: 409 naming
 * them, with `what` saying what was refused ("make <id> v<n> current", "restore <id>").
 */
async function refuseArchivedPins(db: Db, caller: StoreCaller, links: readonly ComponentLinkRow[], what: string): Promise<void> {
  const rows = await componentRowsByIds(db, pinnedChildren(links));
  const archived = rows.filter((r) => r.deleted_at !== null).map((r) => r.component_id);
  if (archived.length === 0) return;
  const shown = await shownIds(db, caller, archived);
  throw new HttpError(409, `Cannot ${what}: pinned child(ren) ${archived.map((a) => shown.get(a)).join(", ")} are archived. Restore them first.`);
}

function refuseGuardHalf(guard: ComponentGuard | null | undefined, supported: "latest_version" | "current_version"): void {
  const unsupported = supported === "latest_version" ? "current_version" : "latest_version";
  if (guard && guard[unsupported] !== undefined && guard[unsupported] !== null) {
    throw new HttpError(400, `This route checks guard.${supported} only; guard.${unsupported} is not honoured here. Remove it, or use the route that enforces it.`);
  }
}

const guardValue = (guard: ComponentGuard | null | undefined, half: keyof ComponentGuard): number | undefined => {
  const value = guard?.[half];
  return value === null || value === undefined ? undefined : value;
};

/**
 * Runs a write after its plan: the plan reads and refuses (the 4xx the state calls for) and hands
 * the write what it needs; a write that loses a race under its lock runs the plan again, so the
 * refusal the new state calls for is what the caller hears (else a 409 saying what changed).
 * With `retries`, a lost race is planned and written again first (a write that asked for no
 * compare-and-set: an unguarded append takes the next number free then).
 */
async function planned<P, T>(plan: () => Promise<P>, write: (p: P) => Promise<T>, { retries = 0 } = {}): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const p = await plan();
    try {
      return await write(p);
    } catch (error) {
      if (!(error instanceof ComponentWriteConflict)) throw error;
      if (attempt < retries) continue;
      await plan();
      throw new HttpError(409, error.message);
    }
  }
}

function announce(settings: Settings, type: ComponentType, id: string, action: "published" | "current" | "archived" | "restored"): void {
  componentsChanged(settings, { type, id, action });
}

// ── components ───────────────────────────────────────────────────────────────────────────────

/** The ids of components defined in code (of a type, or of any), which stored rows never shadow in a list. */
function codeIds(settings: Settings, type?: ComponentType): string[] {
  // External agents (defineExternalAgent) are served on the agents' routes too, so their ids are taken.
  const agents = () => [...codeAgents(settings).map((a) => a.id), ...settings.externalAgents.map((a) => a.id)];
  const teams = () => codeTeams(settings).map((t) => t.id);
  const workflows = () => settings.workflows.map((w) => w.id);
  if (type === "agent") return agents();
  if (type === "team") return teams();
  if (type === "workflow") return workflows();
  return [...new Set([...agents(), ...teams(), ...workflows()])];
}

/** A page of the components the caller may see, newest first (ties by id), without ids defined in code. */
export async function listComponents(
  db: Db,
  settings: Settings,
  caller: StoreCaller,
  q: { componentType?: ComponentType; page: number; limit: number; includeDeleted: boolean },
): Promise<{ data: ComponentView[]; total: number }> {
  const { rows, total } = await listComponentRows(db, {
    componentType: q.componentType,
    viewer: scopedUser(caller),
    includeDeleted: q.includeDeleted,
    excludeIds: codeIds(settings, q.componentType),
    limit: q.limit,
    offset: (q.page - 1) * q.limit,
  });
  return { data: rows.map(componentView), total };
}

export async function getComponent(db: Db, _settings: Settings, caller: StoreCaller, id: string, q: { includeDeleted: boolean }): Promise<ComponentView> {
  return componentView(await visibleRow(db, caller, id, q.includeDeleted));
}

/**
 * Creates a component with its version 1 (a draft unless `stage` is "published"). The id is the
 * request's (checked as a path segment, 400) or minted from the name, with the owner's digest for
 * a scoped caller; a taken id — archived ones included — is 400 "Component ID <id> is not
 * available". A team's members and a workflow's steps become links; a member nothing resolves is
 * a 400 naming it. The owner is the caller (none with auth off).
 */
export async function createComponent(db: Db, settings: Settings, caller: StoreCaller, body: ComponentCreateBody): Promise<ComponentView> {
  const own = scopedUser(caller);
  let id: string;
  if (body.component_id === undefined || body.component_id === null) {
    id = componentIdFromName(body.name);
    if (own !== null) id = `${id}-${ownerDigest(own)}`;
  } else {
    const problem = componentIdProblem(body.component_id);
    if (problem) throw new HttpError(400, problem);
    id = body.component_id;
  }
  const config = checkedConfig(settings, caller, body.component_type, body.config ?? {});
  const limit = memberLimit(settings, caller);

  const plan = async () => {
    let links: ComponentLinkInput[] = [];
    if (body.component_type === "team") {
      const members = Array.isArray(config.members) ? config.members : [];
      if (members.length > 0) {
        const resolved = await memberLinks(db, settings, config);
        if (resolved.unresolved.length > 0) {
          throw new HttpError(
            400,
            `Cannot create team '${body.name}': the following members could not be resolved: ${resolved.unresolved.join(", ")}. Referenced agents/teams must exist as components or be registered with the AgentOS instance.`,
          );
        }
        links = resolved.links;
      }
    } else if (body.component_type === "workflow") {
      links = await stepLinks(db, settings, config);
    }
    await refuseForeignReferences(db, caller, id, config, links);
    const stage = checkedStage(body.stage || "draft");
    // An id defined in code (a team's member, a workflow step's agent included) always wins, so a stored one would never run.
    if (codeIds(settings).includes(id) || (await componentRowsByIds(db, [id])).length > 0) throw new HttpError(400, `Component ID ${id} is not available`);
    await refuseOverLimit(db, limit);
    if (links.length > 0) await checkLinkTargets(db, id, links);
    if (stage === "published") {
      await checkPinsPublishable(db, caller, links, (link, childStage, archived, shown) =>
        archived
          ? `Cannot publish ${id} v1: pinned ${link.link_kind} '${shown}' is archived; restore it first.`
          : `Cannot create ${id} as published: pinned ${link.link_kind} '${shown}' v${py(link.child_version)} is ${childStage ?? "missing"}; publish the child first.`,
      );
    }
    return { links, stage };
  };

  const created = await planned(plan, ({ links, stage }) =>
    insertComponentWithConfig(db, {
      component: { component_id: id, component_type: body.component_type, name: body.name, user_id: caller.userId, description: body.description ?? null, metadata: body.metadata ?? null },
      config: { config, label: body.label ?? null, stage, notes: body.notes ?? null },
      links,
      limit,
    }),
  );
  if (created.component.current_version !== null) announce(settings, body.component_type, id, "published");
  return componentView(created.component);
}

/**
 * Changes a component's row: name, description and metadata as given, and with `current_version`
 * a rollback to that published version (its name, description and metadata projected onto the
 * row where the request does not set them). The type is fixed at creation (400).
 */
export async function updateComponent(db: Db, settings: Settings, caller: StoreCaller, id: string, body: ComponentUpdateBody): Promise<ComponentView> {
  const plan = async () => {
    const existing = await visibleRow(db, caller, id);
    requireWrite(existing, caller);
    refuseGuardHalf(body.guard, "current_version");
    const expectedCurrent = guardValue(body.guard, "current_version");
    if (expectedCurrent !== undefined && existing.current_version !== expectedCurrent) {
      throw new HttpError(409, `Component ${id} current version is ${py(existing.current_version)}, expected ${expectedCurrent}`);
    }
    if (body.component_type !== undefined && body.component_type !== null) {
      if (!["agent", "team", "workflow"].includes(body.component_type)) throw new HttpError(400, `${pythonRepr(body.component_type)} is not a valid ComponentType`);
      if (body.component_type !== existing.component_type) {
        throw new HttpError(400, `Cannot change component ${id} from ${existing.component_type} to ${body.component_type}; a component's type is fixed at creation.`);
      }
    }
    const fields: ComponentRowFields = {};
    let lockChildren: string[] = [];
    const version = body.current_version ?? undefined;
    if (version !== undefined) {
      const target = await getConfigRow(db, id, version, { includeDeleted: true });
      if (!target) throw new HttpError(404, `Config ${id} v${version} not found`);
      if (target.stage !== "published") throw new HttpError(400, `Cannot set draft config ${id} v${version} as current. Only published configs can be current.`);
      refuseUnusable(settings, caller, existing.component_type, target.config ?? {}, "publish");
      const links = await linksOf(db, id, version);
      await refuseArchivedPins(db, caller, links, `make ${id} v${version} current`);
      Object.assign(fields, projectConfigIdentity(target.config ?? {}));
      lockChildren = pinnedChildren(links);
    }
    if (body.name !== undefined && body.name !== null) fields.name = body.name;
    if (body.description !== undefined && body.description !== null) fields.description = body.description;
    if (body.metadata !== undefined && body.metadata !== null) fields.metadata = body.metadata;
    return { existing, fields, version, lockChildren, expectedCurrent };
  };
  const { row, existing, version } = await planned(plan, async (p) => ({
    row: await updateComponentRow(db, { componentId: id, owner: scopedUser(caller), expectedCurrent: p.expectedCurrent, version: p.version, lockChildren: p.lockChildren, fields: p.fields }),
    existing: p.existing,
    version: p.version,
  }));
  if (version !== undefined && existing.current_version !== version) announce(settings, row.component_type, id, "current");
  return componentView(row);
}

/**
 * Archives a component (DELETE): every version is kept and the id stays reserved until it is
 * restored; its schedules are disabled in the same transaction. 409 while another live component
 * pins it (for a scoped caller, among parents it owns or nobody owns) or when `guard.current_version`
 * does not match.
 */
export async function archiveComponent(db: Db, settings: Settings, caller: StoreCaller, id: string, guard?: ComponentGuard): Promise<void> {
  refuseGuardHalf(guard, "current_version");
  const expectedCurrent = guardValue(guard, "current_version");
  const plan = async () => {
    const existing = await visibleRow(db, caller, id);
    requireWrite(existing, caller, "delete");
    const dependents = await activeDependents(db, id, { parentOwner: scopedUser(caller) });
    if (dependents.length > 0) {
      const parents = [...new Set(dependents.map((d) => d.parent_component_id))].sort();
      const shown = await shownIds(db, caller, parents);
      throw new HttpError(409, `Cannot delete ${id}: referenced by ${parents.map((p) => shown.get(p)).join(", ")}`);
    }
    if (expectedCurrent !== undefined && existing.current_version !== expectedCurrent) {
      throw new HttpError(409, `Component ${id} current version is ${py(existing.current_version)}, expected ${expectedCurrent}`);
    }
    return existing;
  };
  const existing = await planned(plan, async (row) => {
    await archiveComponentRow(db, { componentId: id, componentType: row.component_type, owner: scopedUser(caller), expectedCurrent, parentOwner: scopedUser(caller) });
    return row;
  });
  announce(settings, existing.component_type, id, "archived");
}

/** Restores an archived component (its current version and schedules as they were). 409 when it is not archived or a child its current version pins is. */
export async function restoreComponent(db: Db, settings: Settings, caller: StoreCaller, id: string): Promise<ComponentView> {
  const limit = memberLimit(settings, caller);
  const plan = async () => {
    const existing = await visibleRow(db, caller, id, true);
    if (existing.deleted_at === null) throw new HttpError(409, "Component is not archived");
    const own = scopedUser(caller);
    if (own !== null && existing.user_id !== own) throw new HttpError(403, "Cannot modify shared component");
    if (existing.current_version !== null) {
      await refuseArchivedPins(db, caller, await linksOf(db, id, existing.current_version), `restore ${id}`);
      refuseUnusable(settings, caller, existing.component_type, (await getConfigRow(db, id, existing.current_version))?.config ?? {}, "publish");
    }
    // The limit counts live components: a restored one counts again (its owner's, when an admin restores it).
    const owner = existing.user_id;
    const ownerLimit = limit && owner !== null ? { userId: owner, max: limit.max } : undefined;
    if (ownerLimit) await refuseOverLimit(db, ownerLimit);
    return ownerLimit;
  };
  const row = await planned(plan, (ownerLimit) => restoreComponentRow(db, { componentId: id, owner: scopedUser(caller), limit: ownerLimit }));
  announce(settings, row.component_type, id, "restored");
  return componentView(row);
}

// ── configs ──────────────────────────────────────────────────────────────────────────────────

/** A component's versions, newest first: every one for whoever may read its drafts, the published ones for anyone else. */
export async function listConfigs(db: Db, _settings: Settings, caller: StoreCaller, id: string, q: { includeConfig: boolean }): Promise<ComponentConfigView[]> {
  const component = await visibleRow(db, caller, id);
  let configs = await listConfigRows(db, id, { includeConfig: q.includeConfig });
  if (!mayReadDrafts(component, caller)) configs = configs.filter((c) => c.stage === "published");
  return configs.map((c) => configView(c, component, caller));
}

/**
 * Appends a version (max + 1; tombstoned numbers are never reused), a draft unless `stage` is
 * "published" (then it is the current version at once). Links: the request's, else derived from
 * the config. `guard.latest_version`: the newest visible version must be that one (409).
 */
export async function createConfig(db: Db, settings: Settings, caller: StoreCaller, id: string, body: ConfigCreateBody): Promise<ComponentConfigView> {
  const plan = async () => {
    const component = await visibleRow(db, caller, id);
    requireWrite(component, caller);
    const config = checkedConfig(settings, caller, component.component_type, body.config);
    const sent = await sentLinks(db, caller, id, config, body);
    const links = (await derivedLinks(db, settings, component, config, sent)) ?? [];
    const stage = checkedStage(body.stage ?? "draft");
    const state = await versionState(db, id);
    const expectedLatest = guardValue(body.guard, "latest_version");
    if (expectedLatest !== undefined && state.latestVisible !== expectedLatest) {
      throw new HttpError(409, `Component ${id} latest version is ${py(state.latestVisible)}, expected ${expectedLatest}`);
    }
    if (links.length > 0) await checkLinkTargets(db, id, links);
    const label = body.label ?? null;
    if (label !== null && (await versionWithLabel(db, id, label)) !== undefined) throw new HttpError(400, `Label '${label}' already exists for ${id}`);
    requireLinkVersions(links);
    const version = state.maxVersion + 1;
    if (stage === "published") await checkPinsPublishable(db, caller, links, publishRefusal(id, version));
    return { component, config, links, stage, version, expectedLatest, label };
  };
  const { row, component, stage } = await planned(
    plan,
    async (p) => ({
      row: await appendConfig(db, {
        componentId: id,
        version: p.version,
        owner: scopedUser(caller),
        expectedLatest: p.expectedLatest,
        config: { config: p.config, label: p.label, stage: p.stage, notes: body.notes ?? null },
        links: p.links,
        publish: p.stage === "published" ? { fields: projectConfigIdentity(p.config), lockChildren: pinnedChildren(p.links) } : undefined,
      }),
      component: p.component,
      stage: p.stage,
    }),
    { retries: guardValue(body.guard, "latest_version") === undefined ? APPEND_RETRIES : 0 },
  );
  if (stage === "published") announce(settings, component.component_type, id, "published");
  return configView(row, component, caller);
}

/** The current version's config, or (draft-only components) the newest version; 404 "No current config for <id>" without one the caller may read. */
export async function getCurrentConfig(db: Db, _settings: Settings, caller: StoreCaller, id: string): Promise<ComponentConfigView> {
  const component = await visibleRow(db, caller, id);
  const config = component.current_version !== null ? await getConfigRow(db, id, component.current_version) : await latestConfigRow(db, id);
  if (!config || (config.stage !== "published" && !mayReadDrafts(component, caller))) throw new HttpError(404, `No current config for ${id}`);
  return configView(config, component, caller);
}

/** One version; a draft the caller may not read is a 404, as if absent. */
export async function getConfig(db: Db, _settings: Settings, caller: StoreCaller, id: string, version: number): Promise<ComponentConfigView> {
  const component = await visibleRow(db, caller, id);
  const config = await getConfigRow(db, id, version);
  if (!config || (config.stage !== "published" && !mayReadDrafts(component, caller))) throw new HttpError(404, `Config ${id} v${version} not found`);
  return configView(config, component, caller);
}

/**
 * Changes a draft in place (config, label, notes, links); `stage: "published"` publishes it (it
 * becomes the current version). A published version is immutable (400).
 */
export async function updateConfig(db: Db, settings: Settings, caller: StoreCaller, id: string, version: number, body: ConfigUpdateBody): Promise<ComponentConfigView> {
  const plan = async () => {
    const component = await visibleRow(db, caller, id);
    requireWrite(component, caller);
    const config = body.config === undefined || body.config === null ? undefined : checkedConfig(settings, caller, component.component_type, body.config);
    const sent = await sentLinks(db, caller, id, config, body);
    const links = await derivedLinks(db, settings, component, config, sent);
    const stage = body.stage === undefined || body.stage === null ? undefined : checkedStage(body.stage);
    const expectedLatest = guardValue(body.guard, "latest_version");
    if (expectedLatest !== undefined) {
      const { latestVisible } = await versionState(db, id);
      if (latestVisible !== expectedLatest) throw new HttpError(409, `Component ${id} latest version is ${py(latestVisible)}, expected ${expectedLatest}`);
    }
    if (links && links.length > 0) await checkLinkTargets(db, id, links);
    const label = body.label ?? undefined;
    if (label !== undefined && (await versionWithLabel(db, id, label, version)) !== undefined) throw new HttpError(400, `Label '${label}' already exists for ${id}`);
    if (links) requireLinkVersions(links);
    const existing = await getConfigRow(db, id, version);
    if (!existing) throw new HttpError(400, `Config ${id} v${version} not found`);
    if (existing.stage === "published") throw new HttpError(400, `Cannot update published config ${id} v${version}`);
    let publish: { fields: ComponentRowFields; lockChildren: string[] } | undefined;
    if (stage === "published") {
      refuseUnusable(settings, caller, component.component_type, config ?? existing.config ?? {}, "publish");
      const finalLinks = links ?? (await linksOf(db, id, version));
      await checkPinsPublishable(db, caller, finalLinks, publishRefusal(id, version));
      publish = { fields: projectConfigIdentity(config ?? existing.config ?? {}), lockChildren: pinnedChildren(finalLinks) };
    }
    return { component, config, links, publish, expectedLatest, label };
  };
  const { row, component, published } = await planned(plan, async (p) => ({
    row: await updateDraftConfig(db, {
      componentId: id,
      version,
      owner: scopedUser(caller),
      expectedLatest: p.expectedLatest,
      set: { config: p.config, label: p.label, notes: body.notes ?? undefined },
      links: p.links,
      publish: p.publish,
    }),
    component: p.component,
    published: p.publish !== undefined,
  }));
  if (published) announce(settings, component.component_type, id, "published");
  return configView(row, component, caller);
}

/**
 * Deletes a draft: it becomes a tombstone (its number never comes back, its label is freed).
 * Refused for a published version (400), the current one (400), the last visible one (409) and one
 * an active parent pins (409).
 */
export async function deleteConfig(db: Db, _settings: Settings, caller: StoreCaller, id: string, version: number): Promise<void> {
  const plan = async () => {
    const component = await visibleRow(db, caller, id);
    requireWrite(component, caller, "delete");
    const config = await getConfigRow(db, id, version);
    if (!config) throw new HttpError(404, `Config ${id} v${version} not found`);
    if (config.stage === "published") throw new HttpError(400, `Cannot delete published config ${id} v${version}; only drafts are deletable`);
    if (component.current_version === version) throw new HttpError(400, `Cannot delete current config ${id} v${version}`);
    if ((await versionState(db, id)).visible <= 1) throw new HttpError(409, `Cannot delete the last visible config of ${id}`);
    const pinnedBy = await activeDependents(db, id, { version });
    if (pinnedBy.length > 0) {
      const parents = [...new Set(pinnedBy.map((d) => d.parent_component_id))].sort();
      const shown = await shownIds(db, caller, parents);
      throw new HttpError(409, `Cannot delete ${id} v${version}: pinned by ${parents.map((p) => shown.get(p)).join(", ")}`);
    }
  };
  await planned(plan, () => tombstoneDraftConfig(db, { componentId: id, version, owner: scopedUser(caller) }));
}

/** Rolls back (or forward) among published versions: `version` becomes current and its name, description and metadata the row's. */
export async function setCurrentConfig(db: Db, settings: Settings, caller: StoreCaller, id: string, version: number, guard?: ComponentGuard): Promise<ComponentView> {
  const plan = async () => {
    const existing = await visibleRow(db, caller, id);
    requireWrite(existing, caller);
    refuseGuardHalf(guard, "current_version");
    const target = await getConfigRow(db, id, version, { includeDeleted: true });
    if (!target) throw new HttpError(404, `Component ${id} or config version ${version} not found`);
    if (target.stage !== "published") throw new HttpError(400, `Cannot set draft config ${id} v${version} as current. Only published configs can be current.`);
    const expectedCurrent = guardValue(guard, "current_version");
    if (expectedCurrent !== undefined && existing.current_version !== expectedCurrent) {
      throw new HttpError(409, `Component ${id} current version is ${py(existing.current_version)}, expected ${expectedCurrent}`);
    }
    const links = await linksOf(db, id, version);
    await refuseArchivedPins(db, caller, links, `make ${id} v${version} current`);
    return { existing, expectedCurrent, fields: projectConfigIdentity(target.config ?? {}), lockChildren: pinnedChildren(links) };
  };
  const { row, before } = await planned(plan, async (p) => ({
    row: await updateComponentRow(db, { componentId: id, owner: scopedUser(caller), expectedCurrent: p.expectedCurrent, version, lockChildren: p.lockChildren, fields: p.fields }),
    before: p.existing.current_version,
  }));
  if (before !== version) announce(settings, row.component_type, id, "current");
  return componentView(row);
}

// ── the runtime's reads ──────────────────────────────────────────────────────────────────────

function linkLike(link: ComponentLinkRow): ComponentLinkLike {
  return { link_kind: link.link_kind, link_key: link.link_key, child_component_id: link.child_component_id, child_version: link.child_version, position: link.position, meta: link.meta };
}

/**
 * For the runtime (unscoped, no access checks: it decides who may run what): the component's row,
 * a version's config (default: the current one; a tombstone comes back with stage `_deleted`) and
 * that version's links. Undefined when the component or the version does not exist.
 */
export async function unsafeLoadComponentVersion(
  db: Db,
  id: string,
  version?: number,
): Promise<{ component: ComponentView; config: ComponentConfigView & { config: Record<string, unknown> }; links: ComponentLinkLike[] } | undefined> {
  const component = await getComponentRow(db, id, { includeDeleted: true });
  if (!component) return undefined;
  const wanted = version ?? component.current_version;
  if (wanted === null) return undefined;
  const config = await getConfigRow(db, id, wanted, { includeDeleted: true });
  if (!config) return undefined;
  const links = await linksOf(db, id, wanted);
  return {
    component: componentView(component),
    config: { ...config, stage: config.stage as "draft" | "published", config: config.config ?? {} },
    links: links.map(linkLike),
  };
}

/** The row's type, owner, current version and archive and change times: one primary-key read, for the per-request version check. */
export async function unsafeComponentHead(
  db: Db,
  id: string,
): Promise<{ component_type: ComponentType; user_id: string | null; current_version: number | null; deleted_at: number | null; updated_at: number | null } | undefined> {
  const [row] = await db.sql.query("SELECT component_type, user_id, current_version, deleted_at, updated_at FROM agno_components WHERE component_id = ?", [id]);
  if (!row) return undefined;
  const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  return {
    component_type: String(row.component_type) as ComponentType,
    user_id: row.user_id === null || row.user_id === undefined ? null : String(row.user_id),
    current_version: num(row.current_version),
    deleted_at: num(row.deleted_at),
    updated_at: num(row.updated_at),
  };
}
