import { registryEntries } from "../../components/registry.ts";
import { defineRoute } from "../route.ts";
import { pageOf } from "../schemas/list-query.ts";
import { ListRegistryQuery, RegistryListSchema } from "../schemas/registry.ts";

/**
 * Agno's `GET /registry` (`registry:read`): what Studio's components may use, from
 * lib/components/registry.ts — toolkits with their functions' JSON schemas and confirmation
 * flags, models, output schemas, the code-defined agents, teams and workflows, knowledge bases and
 * named learning machines — filtered by `resource_type` and a case-insensitive part of `name`,
 * sorted by (type, name) and paginated in memory. A type Agentry has nothing for (db, vector_db,
 * function, memory_manager, session_summary_manager) answers an empty page. A member sees what it
 * may use: no admin-only toolkit or knowledge base.
 */
export const listRegistryRoute = defineRoute({
  method: "GET",
  path: "/registry",
  summary: "List the registry's resources (filter by type and name; paginated)",
  tags: ["Registry"],
  access: { permission: "registry:read" },
  query: ListRegistryQuery,
  response: RegistryListSchema,
  excludeNone: true,
  handler: ({ input: { query }, principal, settings }) => {
    const started = performance.now();
    let entries = registryEntries(settings, { isAdmin: principal.isAdmin });
    if (query.resource_type) entries = entries.filter((e) => e.type === query.resource_type);
    const needle = query.name?.trim().toLowerCase();
    if (needle) entries = entries.filter((e) => e.name.toLowerCase().includes(needle));
    const start = (query.page - 1) * query.limit;
    return pageOf(entries.slice(start, start + query.limit), { page: query.page, limit: query.limit, totalCount: entries.length, startedMs: started });
  },
});

export const REGISTRY_ROUTES = [listRegistryRoute];
