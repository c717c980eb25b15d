import type { Principal } from "../../auth/principal.ts";
import {
  archiveComponent,
  createComponent,
  createConfig,
  deleteConfig,
  getComponent,
  getConfig,
  getCurrentConfig,
  listComponents,
  listConfigs,
  restoreComponent,
  setCurrentConfig,
  storeCaller,
  updateComponent,
  updateConfig,
  type ComponentGuard,
} from "../../components/store.ts";
import type { Settings } from "../../config/settings.ts";
import { HttpError } from "../../errors/http-error.ts";
import { defineRoute } from "../route.ts";
import {
  ComponentConfigListSchema,
  ComponentConfigResponseSchema,
  ComponentListSchema,
  ComponentParams,
  ComponentResponseSchema,
  ComponentVersionParams,
  CreateComponentBody,
  CreateConfigBody,
  DeleteComponentQuery,
  GuardBody,
  IncludeConfigQuery,
  IncludeDeletedQuery,
  ListComponentsQuery,
  UpdateComponentBody,
  UpdateConfigBody,
} from "../schemas/components.ts";
import { pageOf } from "../schemas/list-query.ts";

/**
 * Agno's Components API over lib/components/store.ts (which holds the semantics and the error
 * texts): `components:read` / `components:write` / `components:delete` (restoring is a
 * `components:delete`). Components live in the OS's database. A scoped caller (a member under
 * isolation, a service account) sees its own components, owner-less ones and other owners'
 * published ones, and changes only its own. Responses leave null fields out (exclude_none).
 */

const TAGS = ["Components"];
/** The OS's database; every caller acts as itself (the store decides what it sees). */
const COMPONENT_DATA = { db: "default" } as const;

const callerOf = (principal: Principal, settings: Settings) => storeCaller(principal, settings);

export const listComponentsRoute = defineRoute({
  method: "GET",
  path: "/components",
  summary: "List components (agents, teams and workflows made in Studio), newest first",
  tags: TAGS,
  access: { permission: "components:read" },
  query: ListComponentsQuery,
  response: ComponentListSchema,
  excludeNone: true,
  data: COMPONENT_DATA,
  handler: async ({ input: { query }, principal, settings, db }) => {
    const started = performance.now();
    const { data, total } = await listComponents(db, settings, callerOf(principal, settings), {
      componentType: query.component_type,
      page: query.page,
      limit: query.limit,
      includeDeleted: query.include_deleted,
    });
    return pageOf(data, { page: query.page, limit: query.limit, totalCount: total, startedMs: started });
  },
});

export const createComponentRoute = defineRoute({
  method: "POST",
  path: "/components",
  summary: "Create a component with its version 1 (a draft unless stage is published)",
  tags: TAGS,
  access: { permission: "components:write" },
  body: CreateComponentBody,
  response: ComponentResponseSchema,
  excludeNone: true,
  status: 201,
  data: COMPONENT_DATA,
  handler: ({ input: { body }, principal, settings, db }) => createComponent(db, settings, callerOf(principal, settings), body),
});

export const getComponentRoute = defineRoute({
  method: "GET",
  path: "/components/{component_id}",
  summary: "One component (an archived one with include_deleted)",
  tags: TAGS,
  access: { permission: "components:read" },
  params: ComponentParams,
  query: IncludeDeletedQuery,
  response: ComponentResponseSchema,
  excludeNone: true,
  data: COMPONENT_DATA,
  handler: ({ input: { params, query }, principal, settings, db }) => getComponent(db, settings, callerOf(principal, settings), params.component_id, { includeDeleted: query.include_deleted }),
});

export const updateComponentRoute = defineRoute({
  method: "PATCH",
  path: "/components/{component_id}",
  summary: "Change a component's name, description or metadata, or roll it to a published version (current_version)",
  tags: TAGS,
  access: { permission: "components:write" },
  params: ComponentParams,
  body: UpdateComponentBody,
  response: ComponentResponseSchema,
  excludeNone: true,
  data: COMPONENT_DATA,
  handler: ({ input: { params, body }, principal, settings, db }) => updateComponent(db, settings, callerOf(principal, settings), params.component_id, body),
});

/** The delete's guard: the query's `expected_current_version` or the body's `guard`, which must agree. */
function deleteGuard(query: { expected_current_version?: number }, body: { guard?: ComponentGuard | null } | null | undefined): ComponentGuard | undefined {
  const guard = body?.guard ?? undefined;
  if (guard?.latest_version !== undefined && guard.latest_version !== null) {
    throw new HttpError(400, "This route checks guard.current_version only; guard.latest_version is not honoured here. Remove it, or use the route that enforces it.");
  }
  const fromBody = guard?.current_version ?? undefined;
  if (fromBody !== undefined && query.expected_current_version !== undefined && query.expected_current_version !== fromBody) {
    throw new HttpError(400, "Conflicting guards: expected_current_version query param and guard.current_version disagree. Send one.");
  }
  const expected = fromBody ?? query.expected_current_version;
  return expected === undefined ? undefined : { current_version: expected };
}

export const deleteComponentRoute = defineRoute({
  method: "DELETE",
  path: "/components/{component_id}",
  summary: "Archive a component (its versions kept, its id reserved, its schedules disabled)",
  tags: TAGS,
  access: { permission: "components:delete" },
  params: ComponentParams,
  query: DeleteComponentQuery,
  body: GuardBody,
  status: 204,
  data: COMPONENT_DATA,
  handler: async ({ input: { params, query, body }, principal, settings, db }) => {
    await archiveComponent(db, settings, callerOf(principal, settings), params.component_id, deleteGuard(query, body));
  },
});

export const restoreComponentRoute = defineRoute({
  method: "POST",
  path: "/components/{component_id}/restore",
  summary: "Restore an archived component",
  tags: TAGS,
  access: { permission: "components:delete" },
  params: ComponentParams,
  response: ComponentResponseSchema,
  excludeNone: true,
  data: COMPONENT_DATA,
  handler: ({ input: { params }, principal, settings, db }) => restoreComponent(db, settings, callerOf(principal, settings), params.component_id),
});

export const listConfigsRoute = defineRoute({
  method: "GET",
  path: "/components/{component_id}/configs",
  summary: "A component's config versions, newest first (drafts only for whoever may read them)",
  tags: TAGS,
  access: { permission: "components:read" },
  params: ComponentParams,
  query: IncludeConfigQuery,
  response: ComponentConfigListSchema,
  excludeNone: true,
  data: COMPONENT_DATA,
  handler: ({ input: { params, query }, principal, settings, db }) => listConfigs(db, settings, callerOf(principal, settings), params.component_id, { includeConfig: query.include_config }),
});

export const createConfigRoute = defineRoute({
  method: "POST",
  path: "/components/{component_id}/configs",
  summary: "Append a config version (a draft unless stage is published)",
  tags: TAGS,
  access: { permission: "components:write" },
  params: ComponentParams,
  body: CreateConfigBody,
  response: ComponentConfigResponseSchema,
  excludeNone: true,
  status: 201,
  data: COMPONENT_DATA,
  handler: ({ input: { params, body }, principal, settings, db }) => createConfig(db, settings, callerOf(principal, settings), params.component_id, body),
});

export const getCurrentConfigRoute = defineRoute({
  method: "GET",
  path: "/components/{component_id}/configs/current",
  summary: "The current config version",
  tags: TAGS,
  access: { permission: "components:read" },
  params: ComponentParams,
  response: ComponentConfigResponseSchema,
  excludeNone: true,
  data: COMPONENT_DATA,
  handler: ({ input: { params }, principal, settings, db }) => getCurrentConfig(db, settings, callerOf(principal, settings), params.component_id),
});

export const getConfigRoute = defineRoute({
  method: "GET",
  path: "/components/{component_id}/configs/{version}",
  summary: "One config version",
  tags: TAGS,
  access: { permission: "components:read" },
  params: ComponentVersionParams,
  response: ComponentConfigResponseSchema,
  excludeNone: true,
  data: COMPONENT_DATA,
  handler: ({ input: { params }, principal, settings, db }) => getConfig(db, settings, callerOf(principal, settings), params.component_id, params.version),
});

export const updateConfigRoute = defineRoute({
  method: "PATCH",
  path: "/components/{component_id}/configs/{version}",
  summary: "Change a draft config version (stage published publishes it)",
  tags: TAGS,
  access: { permission: "components:write" },
  params: ComponentVersionParams,
  body: UpdateConfigBody,
  response: ComponentConfigResponseSchema,
  excludeNone: true,
  data: COMPONENT_DATA,
  handler: ({ input: { params, body }, principal, settings, db }) => updateConfig(db, settings, callerOf(principal, settings), params.component_id, params.version, body),
});

export const deleteConfigRoute = defineRoute({
  method: "DELETE",
  path: "/components/{component_id}/configs/{version}",
  summary: "Delete a draft config version (its number is never reused)",
  tags: TAGS,
  access: { permission: "components:delete" },
  params: ComponentVersionParams,
  status: 204,
  data: COMPONENT_DATA,
  handler: async ({ input: { params }, principal, settings, db }) => {
    await deleteConfig(db, settings, callerOf(principal, settings), params.component_id, params.version);
  },
});

export const setCurrentConfigRoute = defineRoute({
  method: "POST",
  path: "/components/{component_id}/configs/{version}/set-current",
  summary: "Make a published version current (rollback)",
  tags: TAGS,
  access: { permission: "components:write" },
  params: ComponentVersionParams,
  body: GuardBody,
  response: ComponentResponseSchema,
  excludeNone: true,
  data: COMPONENT_DATA,
  handler: ({ input: { params, body }, principal, settings, db }) => setCurrentConfig(db, settings, callerOf(principal, settings), params.component_id, params.version, body?.guard ?? undefined),
});

export const COMPONENT_ROUTES = [
  listComponentsRoute,
  createComponentRoute,
  getComponentRoute,
  updateComponentRoute,
  deleteComponentRoute,
  restoreComponentRoute,
  listConfigsRoute,
  createConfigRoute,
  getCurrentConfigRoute,
  getConfigRoute,
  updateConfigRoute,
  deleteConfigRoute,
  setCurrentConfigRoute,
];
