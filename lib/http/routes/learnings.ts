import { randomUUID } from "node:crypto";
import type { z } from "zod";
import { dataScopeFor, type Principal } from "../../auth/principal.ts";
import { DEFAULT_LEARNING_NAMESPACE, identityLearningId, isReservedEntityNamespace, LearningIdentityError } from "../../db/learnings/learning-ids.ts";
import {
  deleteLearning,
  deleteUserLearnings,
  getLearning,
  insertLearning,
  LearningExistsError,
  listLearnings,
  listLearningUsers,
  updateLearning,
  type LearningRow,
} from "../../db/learnings/learnings.ts";
import type { DataScope } from "../../db/scope.ts";
import type { Db } from "../../db/open-database.ts";
import { getSessionRow } from "../../db/sessions/sessions.ts";
import { HttpError } from "../../errors/http-error.ts";
import { defineRoute, type DataLoaderContext } from "../route.ts";
import { pageOf } from "../schemas/list-query.ts";
import {
  CreateLearningBody,
  DeleteLearningUserQuery,
  LearningDbQuery,
  LearningListSchema,
  LearningParams,
  LearningResponseSchema,
  LearningUserListSchema,
  LearningUserParams,
  ListLearningsQuery,
  ListLearningUsersQuery,
  UpdateLearningBody,
} from "../schemas/learnings.ts";

/**
 * Agno's Learnings API over lib/db/learnings: learnings:read /
 * learnings:write / learnings:delete. A scoped caller (a member, under isolation) reads its own
 * rows and the shared (owner-less) ones, and changes only its own: naming another user is a 403
 * on the list, the users list, a create and a user's deletion; another user's row is its 404, a
 * shared row's change its 403. Unlike Agno, a member's create is always its own row (Agno would
 * store it shared when the body names no user): members never write shared rows here.
 * Responses keep their nulls (no exclude_none).
 */

const TAGS = ["Learnings"];
export const LEARNING_TABLES = ["agno_learnings"] as const;

/** Learnings are read where Agno's `db_id`/`table` query picks; an admin acts for the query's `user_id`. */
const LEARNING_LIST_DATA = { db: { selectFrom: "query", tables: LEARNING_TABLES }, userFrom: "query" } as const;
/** A create: an admin writes the body's `user_id` (null: a shared row); a member always itself. */
const LEARNING_CREATE_DATA = { db: { selectFrom: "query", tables: LEARNING_TABLES }, userFrom: "body" } as const;
/** One row, and a user's deletion: the caller's own scope (an admin's: every row). */
const LEARNING_DATA = { db: { selectFrom: "query", tables: LEARNING_TABLES } } as const;

const LEARNING_NOT_FOUND = "Learning not found";
const SHARED_ROW_IS_ADMINS = "Only admins can modify learnings that have no owner (user_id is null)";

export function toLearningResponse(row: LearningRow): z.infer<typeof LearningResponseSchema> {
  return {
    learning_id: row.learning_id,
    learning_type: row.learning_type,
    namespace: row.namespace,
    user_id: row.user_id,
    agent_id: row.agent_id,
    team_id: row.team_id,
    session_id: row.session_id,
    entity_id: row.entity_id,
    entity_type: row.entity_type,
    content: row.content,
    metadata: row.metadata,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/**
 * A member's create never takes a key the runtime or another user writes: an entity outside
 * namespace `user` is shared (the agents of every user read and write it), and a session's
 * context belongs to whoever owns the session. Agno lets any caller create them; here only
 * admins create shared entities, and a member only the context of a session of their own (the
 * same 403 whether the session is someone else's or does not exist).
 */
async function refuseSharedKeys(db: Db, scope: DataScope, body: z.infer<typeof CreateLearningBody>): Promise<void> {
  if (body.learning_type === "entity_memory" && (body.namespace || DEFAULT_LEARNING_NAMESPACE) !== "user") {
    throw new HttpError(403, `Only admins can create entity learnings in a shared namespace ('${body.namespace || DEFAULT_LEARNING_NAMESPACE}'); use namespace 'user' for your own`);
  }
  if (body.learning_type === "session_context" && body.session_id && !(await getSessionRow(db, { scope, sessionId: body.session_id }))) {
    throw new HttpError(403, "Cannot create learnings for another user's session");
  }
}

/** The user a scoped caller is confined to (Agno's `get_scoped_user_id`); null for an admin or an unisolated caller. */
function scopedUserOf(principal: Principal): string | null {
  const scope = dataScopeFor(principal);
  return scope.kind === "user" ? scope.userId : null;
}

/**
 * A scoped caller naming a user other than itself gets Agno's 403 `detail` — before the database
 * is chosen, as Agno checks it. `named` is the user the request names (undefined: none).
 */
function refuseOtherUser(principal: Principal, named: string | null | undefined, detail: string): void {
  const own = scopedUserOf(principal);
  if (own !== null && named !== undefined && named !== null && named !== own) throw new HttpError(403, detail);
}

/** The learning the path names, in the caller's scope (its own and the shared ones); 404 otherwise. */
async function pathLearning({ params }: { params: { learning_id: string } }, { data }: DataLoaderContext): Promise<LearningRow> {
  const { db, scope } = await data();
  const row = await getLearning(db, { scope, learningId: params.learning_id });
  if (!row) throw new HttpError(404, LEARNING_NOT_FOUND);
  return row;
}

/** A change to a shared row is an admin's (Agno's 403 for a scoped caller). */
function refuseSharedChange(scope: DataScope, row: LearningRow): void {
  if (scope.kind === "user" && row.user_id === null) throw new HttpError(403, SHARED_ROW_IS_ADMINS);
}

export const listLearningsRoute = defineRoute({
  method: "GET",
  path: "/learnings",
  summary: "List learnings (filter by type, user, agent, team, session, namespace and entity; paginated and sorted)",
  tags: TAGS,
  access: { permission: "learnings:read" },
  query: ListLearningsQuery,
  response: LearningListSchema,
  data: LEARNING_LIST_DATA,
  resource: ({ query }, { principal }) => refuseOtherUser(principal, query.user_id, "Cannot list learnings for another user"),
  handler: async ({ input: { query }, scope, db }) => {
    const started = performance.now();
    const { rows, total } = await listLearnings(db, {
      scope,
      learningType: query.learning_type,
      agentId: query.agent_id,
      teamId: query.team_id,
      sessionId: query.session_id,
      namespace: query.namespace,
      entityId: query.entity_id,
      entityType: query.entity_type,
      limit: query.limit,
      page: query.page,
      sortBy: query.sort_by,
      sortOrder: query.sort_order,
    });
    return pageOf(rows.map(toLearningResponse), { page: query.page, limit: query.limit, totalCount: total, startedMs: started });
  },
});

/** Agno's 422 for an identity-keyed learning missing the fields of its key. */
function identityRefusal(learningType: string, namespace: string | null | undefined): HttpError {
  if (learningType === "entity_memory" && namespace === "user") {
    return new HttpError(
      422,
      'entity_memory under namespace="user" is keyed by the owning user as well as the entity; provide user_id together with entity_id + entity_type so the record reconciles with the agent\'s store.',
    );
  }
  return new HttpError(
    422,
    `learning_type '${learningType}' is keyed by its identity fields; provide the required field(s) (user_id, session_id, or entity_id + entity_type) so the record reconciles with the agent's store.`,
  );
}

export const createLearningRoute = defineRoute({
  method: "POST",
  path: "/learnings",
  summary: "Create a learning (identity-keyed types at their deterministic id; 409 when it exists)",
  tags: TAGS,
  access: { permission: "learnings:write" },
  query: LearningDbQuery,
  body: CreateLearningBody,
  response: LearningResponseSchema,
  status: 201,
  data: LEARNING_CREATE_DATA,
  resource: ({ body }, { principal }) => refuseOtherUser(principal, body.user_id, "Cannot create learnings for another user"),
  handler: async ({ input: { body }, scope, db }) => {
    if (body.learning_type === "entity_memory" && body.namespace != null && isReservedEntityNamespace(body.namespace)) {
      throw new HttpError(
        422,
        `namespace '${body.namespace}' is reserved: it has the key shape entity_memory uses for namespace="user" records, so a record stored under it would occupy another user's key. Choose a different namespace.`,
      );
    }
    if (scope.kind === "user") await refuseSharedKeys(db, scope, body);
    let deterministicId: string | undefined;
    try {
      deterministicId = identityLearningId(body.learning_type, {
        userId: body.user_id,
        sessionId: body.session_id,
        entityId: body.entity_id,
        entityType: body.entity_type,
        namespace: body.namespace,
      });
    } catch (error) {
      if (error instanceof LearningIdentityError) throw identityRefusal(body.learning_type, body.namespace);
      throw error;
    }
    const learningId = deterministicId ?? randomUUID();
    // The entity store reads by the namespace column: store the default the key was built with.
    const namespace = body.learning_type === "entity_memory" && !body.namespace ? DEFAULT_LEARNING_NAMESPACE : (body.namespace ?? null);
    try {
      const row = await insertLearning(db, {
        scope,
        learning: {
          learningId,
          learningType: body.learning_type,
          namespace,
          userId: body.user_id ?? null,
          agentId: body.agent_id,
          teamId: body.team_id,
          sessionId: body.session_id,
          entityId: body.entity_id,
          entityType: body.entity_type,
          content: body.content,
          metadata: body.metadata ?? null,
        },
      });
      return toLearningResponse(row);
    } catch (error) {
      if (error instanceof LearningExistsError) {
        throw new HttpError(409, `A '${body.learning_type}' learning already exists for this identity (id '${learningId}'). Use PATCH /learnings/${learningId} to update it.`);
      }
      throw error;
    }
  },
});

export const listLearningUsersRoute = defineRoute({
  method: "GET",
  path: "/learnings/users",
  summary: "The users owning learnings, with their last change (owner-less learnings are nobody's)",
  tags: TAGS,
  access: { permission: "learnings:read" },
  query: ListLearningUsersQuery,
  response: LearningUserListSchema,
  data: LEARNING_LIST_DATA,
  resource: ({ query }, { principal }) => refuseOtherUser(principal, query.user_id, "Cannot list learning users for another user"),
  handler: async ({ input: { query }, scope, db }) => {
    const started = performance.now();
    const { rows, total } = await listLearningUsers(db, {
      scope,
      learningType: query.learning_type,
      limit: query.limit,
      page: query.page,
      sortBy: query.sort_by,
      sortOrder: query.sort_order,
    });
    return pageOf(rows, { page: query.page, limit: query.limit, totalCount: total, startedMs: started });
  },
});

export const deleteLearningUserRoute = defineRoute({
  method: "DELETE",
  path: "/learnings/users/{user_id}",
  summary: "Delete the learnings a user owns (of one type, if given); 204 even when there were none",
  tags: TAGS,
  access: { permission: "learnings:delete" },
  params: LearningUserParams,
  query: DeleteLearningUserQuery,
  status: 204,
  data: LEARNING_DATA,
  resource: ({ params }, { principal }) => refuseOtherUser(principal, params.user_id, "Cannot delete learnings for another user"),
  handler: async ({ input: { params, query }, scope, db }) => {
    await deleteUserLearnings(db, { scope, userId: params.user_id, learningType: query.learning_type });
  },
});

export const getLearningRoute = defineRoute({
  method: "GET",
  path: "/learnings/{learning_id}",
  summary: "One learning",
  tags: TAGS,
  access: { permission: "learnings:read" },
  params: LearningParams,
  query: LearningDbQuery,
  response: LearningResponseSchema,
  data: LEARNING_DATA,
  resource: pathLearning,
  handler: ({ resource }) => toLearningResponse(resource),
});

export const updateLearningRoute = defineRoute({
  method: "PATCH",
  path: "/learnings/{learning_id}",
  summary: "Replace a learning's content and/or metadata (identity fields never change)",
  tags: TAGS,
  access: { permission: "learnings:write" },
  params: LearningParams,
  query: LearningDbQuery,
  body: UpdateLearningBody,
  response: LearningResponseSchema,
  data: LEARNING_DATA,
  resource: pathLearning,
  handler: async ({ input: { body }, resource: existing, scope, db }) => {
    refuseSharedChange(scope, existing);
    if (body.content === undefined && body.metadata === undefined) return toLearningResponse(existing);
    if (body.content === null) throw new HttpError(422, "content cannot be null; omit the field to leave it unchanged");
    const updated = await updateLearning(db, { scope, learningId: existing.learning_id, content: body.content, metadata: body.metadata });
    if (!updated) throw new HttpError(404, LEARNING_NOT_FOUND);
    return toLearningResponse(updated);
  },
});

export const deleteLearningRoute = defineRoute({
  method: "DELETE",
  path: "/learnings/{learning_id}",
  summary: "Delete a learning",
  tags: TAGS,
  access: { permission: "learnings:delete" },
  params: LearningParams,
  query: LearningDbQuery,
  status: 204,
  data: LEARNING_DATA,
  resource: pathLearning,
  handler: async ({ resource: existing, scope, db }) => {
    refuseSharedChange(scope, existing);
    if (!(await deleteLearning(db, { scope, learningId: existing.learning_id }))) throw new HttpError(500, "Failed to delete learning");
  },
});

export const LEARNING_ROUTES = [listLearningsRoute, createLearningRoute, listLearningUsersRoute, deleteLearningUserRoute, getLearningRoute, updateLearningRoute, deleteLearningRoute];
