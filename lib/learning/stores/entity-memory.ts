import { z } from "zod";
import type { EntityMemoryConfig, ResolvedStore } from "../../config/learning-config.ts";
import { deleteLearning, entityIdSlugOrNull, userKeyDigest, entityLearningId, entityTypeSlug, getLearning, searchLearnings, upsertLearning, type LearningRow } from "../../db/index.ts";
import type { Db } from "../../db/open-database.ts";
import { defineTool, type ToolDefinition } from "../../runtime/tools/types.ts";
import { isoNow, itemId, namespaceOwner, unsafeSharedLearningScope, userLearningScope, type LearningRun } from "../learning-run.ts";

/** Agno's EntityMemory content: what is known about one company, person, project… */
export interface EntityMemory {
  entity_id: string;
  entity_type: string;
  name: string | null;
  description: string | null;
  properties: Record<string, string>;
  aliases: string[];
  facts: { id: string; content: string; created_at: string }[];
  events: { id: string; content: string; date: string | null; created_at: string }[];
  relationships: { entity_id: string; relation: string; direction: "outgoing" | "incoming" }[];
  namespace: string;
  user_id: string | null;
  agent_id: string | null;
  team_id: string | null;
  created_at: string | null;
  updated_at: string | null;
  archived_at: string | null;
}

const DEFAULTS = { maxEntitiesInContext: 5, maxFactsPerEntity: 10, maxEventsPerEntity: 5 };
/** An entity read or delete in namespace `user` without the user whose entity it is. */
export class EntityUserRequiredError extends Error {
  override readonly name = "EntityUserRequiredError";
  constructor() {
    super("Entity memory in namespace 'user' is kept per user: pass the user_id whose entity this is");
  }
}

const NO_USER = "Entity memory in the user namespace is kept per user, and this run has none: nothing was recorded.";

/**
 * The entity memory store (Agno's EntityMemoryStore, `agentic` only): the agent records facts,
 * events and relationships about third parties with `remember_about`, `link_entities`,
 * `search_entities` and `forget`. In namespace `user` an entity belongs to the run's user — its
 * row key carries the user's digest, so two users' "Acme" are two rows, and a user reads only
 * theirs; every other namespace is shared by all users of the agent.
 */
export class EntityMemoryStore {
  readonly learningType = "entity_memory";
  constructor(
    readonly store: ResolvedStore<EntityMemoryConfig>,
    readonly machineNamespace: string,
  ) {}

  get namespace(): string {
    return this.store.config.namespace ?? this.machineNamespace;
  }

  private limits() {
    return { ...DEFAULTS, ...Object.fromEntries(Object.entries(this.store.config).filter(([k, v]) => k in DEFAULTS && v !== undefined)) } as typeof DEFAULTS;
  }

  private where(run: LearningRun) {
    return namespaceOwner(this.namespace, run);
  }

  /** The entities of this namespace the run may see, matching `query` (all when none), most recently changed first. */
  async search(run: LearningRun, { query, entityType, limit }: { query?: string; entityType?: string; limit: number }): Promise<EntityMemory[]> {
    const where = this.where(run);
    if (!where) return [];
    const rows = await searchLearnings(run.db, {
      scope: where.scope,
      learningType: this.learningType,
      namespace: this.namespace,
      ...(where.userId ? { userId: where.userId } : {}),
      ...(entityType ? { entityType: entityTypeSlug(entityType) } : {}),
      query,
      limit,
    });
    return rows.filter((row) => this.mine(row, where.userId)).map((row) => row.content as unknown as EntityMemory);
  }

  /** A row of this namespace the run may use: in namespace `user`, only its own user's. */
  private mine(row: LearningRow, userId: string | null): boolean {
    // In namespace `user`, only rows on the v3 key carrying this user's digest: a pre-v3 row the
    // migration has not re-keyed yet may hold several users' facts.
    return row.namespace === this.namespace && (this.namespace !== "user" || (row.user_id === userId && !!userId && row.learning_id.startsWith(`entity_user_${userKeyDigest(userId)}_`)));
  }

  private async find(run: LearningRun, name: string, entityType?: string): Promise<EntityMemory | undefined> {
    const where = this.where(run);
    const entityId = entityIdSlugOrNull(name);
    if (!where || !entityId) return undefined;
    if (entityType) {
      const row = await getLearning(run.db, {
        scope: where.scope,
        learningId: entityLearningId({ namespace: this.namespace, entityType: entityTypeSlug(entityType), entityId, userId: where.userId }),
      });
      return row && this.mine(row, where.userId) ? (row.content as unknown as EntityMemory) : undefined;
    }
    const candidates = await this.search(run, { query: entityId, limit: 50 });
    return candidates.find((e) => e.entity_id === entityId || e.aliases?.some((a) => entityIdSlugOrNull(a) === entityId));
  }

  private async save(run: LearningRun, entity: EntityMemory): Promise<void> {
    const where = this.where(run)!;
    const now = isoNow();
    const content: EntityMemory = { ...entity, namespace: this.namespace, user_id: where.userId, updated_at: now, created_at: entity.created_at ?? now };
    await upsertLearning(run.db, {
      scope: where.scope,
      learning: {
        learningId: entityLearningId({ namespace: this.namespace, entityType: entity.entity_type, entityId: entity.entity_id, userId: where.userId }),
        learningType: this.learningType,
        namespace: this.namespace,
        userId: where.userId,
        agentId: run.agentId,
        teamId: run.teamId,
        entityId: entity.entity_id,
        entityType: entity.entity_type,
        content: content as unknown as Record<string, unknown>,
      },
    });
  }

  /**
   * One entity by name and type, outside a run (the API and the dashboard use the rows directly).
   * In namespace `user` the user is part of the key: without `userId` this throws instead of
   * answering with any user's row (test/learning/learning-machine.test.ts: "seed: EntityMemoryStore get and delete…").
   */
  async get(db: Db, { entity, entityType, userId }: { entity: string; entityType: string; userId?: string | null }): Promise<EntityMemory | undefined> {
    const key = this.keyOf({ entity, entityType, userId });
    if (!key) return undefined;
    const row = await getLearning(db, { scope: key.scope, learningId: key.learningId });
    return row && this.mine(row, key.userId) ? (row.content as unknown as EntityMemory) : undefined;
  }

  /** Deletes one entity; in namespace `user` only with its user (EntityUserRequiredError otherwise). Whether it went. */
  async delete(db: Db, { entity, entityType, userId }: { entity: string; entityType: string; userId?: string | null }): Promise<boolean> {
    const key = this.keyOf({ entity, entityType, userId });
    return key ? deleteLearning(db, { scope: key.scope, learningId: key.learningId }) : false;
  }

  private keyOf({ entity, entityType, userId }: { entity: string; entityType: string; userId?: string | null }) {
    if (this.namespace === "user" && !userId) throw new EntityUserRequiredError();
    const entityId = entityIdSlugOrNull(entity);
    if (!entityId) return undefined;
    const owner = this.namespace === "user" ? { scope: userLearningScope(userId!), userId: userId! } : { scope: unsafeSharedLearningScope(), userId: null };
    return { ...owner, learningId: entityLearningId({ namespace: this.namespace, entityType: entityTypeSlug(entityType), entityId, userId: owner.userId }) };
  }

  /** Records what is said about an entity: created when new, else its facts and events added to. */
  async remember(run: LearningRun, args: { entity: string; entity_type: string; description?: string; facts?: string[]; events?: string[]; note?: string }): Promise<string> {
    if (!this.where(run)) return NO_USER;
    const entityId = entityIdSlugOrNull(args.entity);
    if (!entityId) return `'${args.entity}' is not a name an entity can be kept under.`;
    const entityType = entityTypeSlug(args.entity_type || "other");
    const now = isoNow();
    const existing = await this.find(run, args.entity, entityType);
    const limits = this.limits();
    const entity: EntityMemory = existing ?? {
      entity_id: entityId,
      entity_type: entityType,
      name: args.entity.trim(),
      description: null,
      properties: {},
      aliases: [],
      facts: [],
      events: [],
      relationships: [],
      namespace: this.namespace,
      user_id: null,
      agent_id: run.agentId,
      team_id: run.teamId,
      created_at: now,
      updated_at: now,
      archived_at: null,
    };
    if (args.description) entity.description = args.description;
    // Remembered again: no longer forgotten.
    entity.archived_at = null;
    const known = new Set(entity.facts.map((f) => f.content.toLowerCase()));
    for (const fact of [...(args.facts ?? []), ...(args.note ? [args.note] : [])].map((f) => f.trim()).filter(Boolean)) {
      if (!known.has(fact.toLowerCase())) entity.facts.push({ id: itemId(), content: fact, created_at: now }), known.add(fact.toLowerCase());
    }
    for (const event of (args.events ?? []).map((e) => e.trim()).filter(Boolean)) entity.events.push({ id: itemId(), content: event, date: now.slice(0, 10), created_at: now });
    entity.facts = entity.facts.slice(-limits.maxFactsPerEntity);
    entity.events = entity.events.slice(-limits.maxEventsPerEntity);
    await this.save(run, entity);
    return `${existing ? "Updated" : "Remembered"} ${entity.name ?? entity.entity_id} (${entity.entity_type}): ${entity.facts.length} facts, ${entity.events.length} events.`;
  }

  async link(run: LearningRun, args: { entity: string; relation: string; related_entity: string }): Promise<string> {
    if (!this.where(run)) return NO_USER;
    const from = await this.find(run, args.entity);
    const to = await this.find(run, args.related_entity);
    if (!from) return `Unknown entity '${args.entity}': remember_about it first.`;
    if (!to) return `Unknown entity '${args.related_entity}': remember_about it first.`;
    const relation = args.relation.trim();
    if (!from.relationships.some((r) => r.entity_id === to.entity_id && r.relation === relation && r.direction === "outgoing")) {
      from.relationships.push({ entity_id: to.entity_id, relation, direction: "outgoing" });
      await this.save(run, from);
    }
    if (!to.relationships.some((r) => r.entity_id === from.entity_id && r.relation === relation && r.direction === "incoming")) {
      to.relationships.push({ entity_id: from.entity_id, relation, direction: "incoming" });
      await this.save(run, to);
    }
    return `Linked: ${from.name ?? from.entity_id} ${relation} ${to.name ?? to.entity_id}.`;
  }

  async forget(run: LearningRun, args: { entity: string; fact?: string }): Promise<string> {
    if (!this.where(run)) return NO_USER;
    const entity = await this.find(run, args.entity);
    if (!entity) return `Nothing is known about '${args.entity}'.`;
    if (args.fact) {
      const needle = args.fact.trim().toLowerCase();
      const kept = entity.facts.filter((f) => !f.content.toLowerCase().includes(needle) && f.id !== args.fact);
      if (kept.length === entity.facts.length) return `No fact about ${entity.name ?? entity.entity_id} matches '${args.fact}'.`;
      const gone = entity.facts.length - kept.length;
      entity.facts = kept;
      await this.save(run, entity);
      return `Forgot ${gone === 1 ? "a fact" : `${gone} facts`} about ${entity.name ?? entity.entity_id}.`;
    }
    entity.archived_at = isoNow();
    await this.save(run, entity);
    return `Forgot ${entity.name ?? entity.entity_id}.`;
  }

  tools(run: LearningRun): ToolDefinition<unknown>[] {
    const tools = [
      defineTool({
        name: "remember_about",
        description:
          "Record facts or events about a third-party entity (a company, person, project, system, product): its description, " + "timeless facts, and dated events. Creates the entity when new.",
        parameters: z.object({
          entity: z.string().min(1),
          entity_type: z.string().min(1),
          description: z.string().optional(),
          facts: z.array(z.string()).default([]),
          events: z.array(z.string()).default([]),
          note: z.string().optional(),
        }),
        execute: (args) => this.remember(run, args),
      }),
      defineTool({
        name: "link_entities",
        description: "Record a relationship between two known entities, e.g. entity='Bob', relation='CEO of', related_entity='Acme'.",
        parameters: z.object({ entity: z.string().min(1), relation: z.string().min(1), related_entity: z.string().min(1) }),
        execute: (args) => this.link(run, args),
      }),
      defineTool({
        name: "search_entities",
        description: "Search the entities you know about, by name or content and optionally by type.",
        parameters: z.object({ query: z.string().optional(), entity_type: z.string().optional() }),
        execute: async ({ query, entity_type }) => {
          if (!this.where(run)) return NO_USER;
          const found = (await this.search(run, { query, entityType: entity_type, limit: this.limits().maxEntitiesInContext * 2 || 10 })).filter((e) => !e.archived_at);
          return found.length > 0 ? found.map(describeEntity).join("\n\n") : "No matching entities.";
        },
      }),
      defineTool({
        name: "forget",
        description: "Forget a fact about an entity (fact: its text or id), or the whole entity when no fact is given.",
        parameters: z.object({ entity: z.string().min(1), fact: z.string().optional() }),
        execute: (args) => this.forget(run, args),
      }),
    ];
    return tools as ToolDefinition<unknown>[];
  }

  /** The entities most relevant to the run's input (named in it first, then the most recent), up to `maxEntitiesInContext`. */
  async context(run: LearningRun): Promise<string> {
    const max = this.limits().maxEntitiesInContext;
    if (max === 0 || !this.where(run)) return "";
    const recent = (await this.search(run, { limit: 50 })).filter((e) => !e.archived_at);
    if (recent.length === 0) return "";
    const input = run.input.toLowerCase();
    const named = (e: EntityMemory) => [e.name, e.entity_id, ...(e.aliases ?? [])].some((n) => !!n && input.includes(n.toLowerCase()));
    const chosen = [...recent.filter(named), ...recent.filter((e) => !named(e))].slice(0, max);
    return `<entity_memory>\nWhat you know about entities relevant here:\n\n${chosen.map(describeEntity).join("\n\n")}\n</entity_memory>`;
  }
}

function describeEntity(e: EntityMemory): string {
  const lines = [`${e.name ?? e.entity_id} (${e.entity_type})${e.description ? `: ${e.description}` : ""}`];
  for (const f of e.facts ?? []) lines.push(`- ${f.content}`);
  for (const ev of e.events ?? []) lines.push(`- [${ev.date ?? ""}] ${ev.content}`);
  for (const r of e.relationships ?? []) lines.push(`- ${r.direction === "outgoing" ? `${r.relation} ${r.entity_id}` : `${r.entity_id} ${r.relation} this`}`);
  return lines.join("\n");
}
