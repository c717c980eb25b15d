import { dataScopeFor, type Principal } from "../../auth/principal.ts";
import type { Settings } from "../../config/settings.ts";
import { listLearnings, type LearningRow } from "../../db/learnings/learnings.ts";
import { listMemories } from "../../db/memories/memories.ts";
import type { Db } from "../../db/open-database.ts";
import type { DataScope } from "../../db/scope.ts";

/**
 * The "What agents know" page's reads (pure of Next.js, so tests call it with a scope): the
 * agno_learnings rows one person's agents keep about them (or, for an admin without a user
 * filter, everyone's), or the shared ones no user owns, grouped by the agent or team that last
 * wrote each row.
 */

/** The learning types the page knows how to show (anything else is shown as its JSON). */
export const LEARNING_KINDS = ["user_profile", "user_memory", "entity_memory", "decision_log", "session_context"] as const;
export type LearningKind = (typeof LEARNING_KINDS)[number];

export const LEARNING_KIND_LABELS: Record<LearningKind, string> = {
  user_profile: "Profile",
  user_memory: "Memories",
  entity_memory: "Entities",
  decision_log: "Decisions",
  session_context: "Session contexts",
};

/** The page's two tabs: what is known about a person, and what no user owns. */
export type LearningsTab = "about" | "shared";

/** At most this many rows are read for one view, most recently changed first (the page says when there are more). */
export const LEARNINGS_SHOWN = 200;

/** One learning as the page shows it (plain data: it crosses to the client). */
export interface LearningItem {
  learningId: string;
  learningType: string;
  namespace: string | null;
  userId: string | null;
  /** The owner as the page names them (an email when known); null for a shared row. */
  owner: string | null;
  sessionId: string | null;
  entityId: string | null;
  entityType: string | null;
  content: Record<string, unknown>;
  createdAt: number;
  updatedAt: number | null;
  /** The row's version as its edit forms send it back: a change in between is refused (409). */
  version: string;
  /** Whether the viewer may change or delete it (shared rows: admins only). */
  editable: boolean;
}

/** The learnings one agent or team last wrote. */
export interface LearningGroup {
  key: string;
  kind: "agent" | "team" | "none";
  /** The agent's or team's id (null: no agent recorded). */
  id: string | null;
  label: string;
  /** Whether the agent or team is still configured. */
  configured: boolean;
  items: LearningItem[];
}

export interface LearningsView {
  groups: LearningGroup[];
  /** How many rows the view shows. */
  shown: number;
  /** Whether more rows matched than LEARNINGS_SHOWN. */
  truncated: boolean;
}

/** The scope the Shared tab reads with: an admin's owner-less rows; a member's own scope (its own rows and the shared ones, narrowed after). */
export function sharedListScope(principal: Principal): DataScope {
  return principal.isAdmin ? dataScopeFor(principal, null) : dataScopeFor(principal);
}

/** A row's version: its last change in epoch seconds (what an edit form carries back). */
export const learningVersion = (row: Pick<LearningRow, "created_at" | "updated_at">): string => String(row.updated_at ?? row.created_at);

const KIND_ORDER: readonly string[] = LEARNING_KINDS;
const kindRank = (type: string) => (KIND_ORDER.includes(type) ? KIND_ORDER.indexOf(type) : KIND_ORDER.length);

/**
 * The rows of one view. `about`: the owned rows the scope reads (a member's own, an admin's
 * `?user=`'s or everyone's); `shared`: the rows without an owner. `kind` narrows to one type.
 */
export async function readLearnings(db: Db, { scope, tab, kind }: { scope: DataScope; tab: LearningsTab; kind?: string }): Promise<{ rows: LearningRow[]; truncated: boolean }> {
  // A member's scope reads its own rows and the shared ones: the userId filter keeps its own.
  const owner = tab === "about" && scope.userId ? { userId: scope.userId } : {};
  const { rows, total } = await listLearnings(db, {
    scope,
    learningType: kind,
    ...owner,
    owned: tab !== "shared",
    limit: LEARNINGS_SHOWN,
    page: 1,
    sortBy: "updated_at",
    sortOrder: "desc",
  });
  return { rows, truncated: total > rows.length };
}

/** Groups rows by the agent (or team) that wrote them, most recently changed group first; within one, by kind, then newest first. */
export function groupLearnings(
  rows: readonly LearningRow[],
  { settings, principal, ownerLabel }: { settings: Pick<Settings, "agents" | "teams">; principal: Pick<Principal, "isAdmin">; ownerLabel: (userId: string | null) => string | null },
): LearningGroup[] {
  const groups = new Map<string, LearningGroup & { latest: number }>();
  for (const row of rows) {
    const [kind, id] = row.team_id && !row.agent_id ? (["team", row.team_id] as const) : row.agent_id ? (["agent", row.agent_id] as const) : (["none", null] as const);
    const key = `${kind}:${id ?? ""}`;
    let group = groups.get(key);
    if (!group) {
      const configured = kind === "agent" ? settings.agents.find((a) => a.id === id) : kind === "team" ? settings.teams.find((t) => t.id === id) : undefined;
      const label = kind === "none" ? "No agent recorded" : (configured?.name ?? id!);
      group = { key, kind, id, label, configured: kind === "none" || configured !== undefined, items: [], latest: 0 };
      groups.set(key, group);
    }
    const changed = row.updated_at ?? row.created_at;
    group.latest = Math.max(group.latest, changed);
    group.items.push(itemOf(row, { principal, ownerLabel }));
  }
  return [...groups.values()]
    .sort((a, b) => b.latest - a.latest || a.label.localeCompare(b.label))
    .map(({ latest: _, ...group }) => ({
      ...group,
      items: group.items.sort((a, b) => kindRank(a.learningType) - kindRank(b.learningType) || (b.updatedAt ?? b.createdAt) - (a.updatedAt ?? a.createdAt)),
    }));
}

function itemOf(row: LearningRow, { principal, ownerLabel }: { principal: Pick<Principal, "isAdmin">; ownerLabel: (userId: string | null) => string | null }): LearningItem {
  return {
    learningId: row.learning_id,
    learningType: row.learning_type,
    namespace: row.namespace,
    userId: row.user_id,
    owner: ownerLabel(row.user_id),
    sessionId: row.session_id,
    entityId: row.entity_id,
    entityType: row.entity_type,
    content: row.content,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    version: learningVersion(row),
    editable: row.user_id !== null || principal.isAdmin,
  };
}

/** One view of the page, read and grouped. */
export async function loadLearningsView(
  db: Db,
  options: {
    scope: DataScope;
    tab: LearningsTab;
    kind?: string;
    settings: Pick<Settings, "agents" | "teams">;
    principal: Pick<Principal, "isAdmin">;
    ownerLabel: (userId: string | null) => string | null;
  },
): Promise<LearningsView> {
  const { rows, truncated } = await readLearnings(db, options);
  return { groups: groupLearnings(rows, options), shown: rows.length, truncated };
}

/** How many agno_memories rows (the Memories page's) the scope reads: the page links there rather than repeating them. */
export async function memoryCount(db: Db, scope: DataScope): Promise<number> {
  return (await listMemories(db, { scope, limit: 1, page: 1 })).totalCount;
}
