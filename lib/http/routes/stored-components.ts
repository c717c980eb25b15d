import type { Principal } from "../../auth/principal.ts";
import { hasScope } from "../../auth/principal.ts";
import { listComponents, storeCaller } from "../../components/store.ts";
import type { Settings } from "../../config/settings.ts";
import { log } from "../../log.ts";
import type { RuntimeAgent } from "../../runtime/agents.ts";
import { resolveComponent } from "../../runtime/component-source.ts";
import { getDatabase } from "../../server/app-context.ts";
import { componentCaller } from "./component-runs.ts";

/** How many stored components of a type GET /agents (/teams, /workflows) lists at most. */
const MAX_LISTED = 1000;
const PAGE = 100;
const PLURAL = { agent: "agents", team: "teams", workflow: "workflows" } as const;

/**
 * The stored (Studio) components of a type the caller may see and run, each at its current
 * published version, after the ones defined in code (whose ids always win): what GET /agents,
 * /teams and /workflows append with `is_component`. One that cannot be built against the registry
 * now is left out (and logged): its runs answer the 422 naming what is missing.
 */
export async function listedStoredComponents(settings: Settings, principal: Principal, type: "agent" | "team" | "workflow"): Promise<RuntimeAgent[]> {
  const inCode = new Set((type === "agent" ? settings.agents : type === "team" ? settings.teams : settings.workflows).map((c) => c.id));
  const db = await getDatabase(settings);
  const caller = storeCaller(principal, settings);
  // A scoped caller with no identity (a JWT without `sub`) sees only what is defined in code, as GET /agents always answered it.
  if (caller.scoped && caller.userId === null) return [];
  const listed: RuntimeAgent[] = [];
  for (let page = 1; (page - 1) * PAGE < MAX_LISTED; page++) {
    const { data } = await listComponents(db, settings, caller, { componentType: type, page, limit: PAGE, includeDeleted: false });
    for (const row of data) {
      if (row.current_version === null || inCode.has(row.component_id) || !hasScope(principal, `${PLURAL[type]}:${row.component_id}:read`)) continue;
      try {
        const resolved = await resolveComponent(settings, db, { type, id: row.component_id }, componentCaller(principal));
        if (resolved) listed.push(resolved.agent);
      } catch (error) {
        log.warn(`Stored ${type} '${row.component_id}' is left out of the list: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    if (data.length < PAGE) break;
  }
  return listed;
}

/** `is_component`, `current_version` and `stage` of a component's response: null for one defined in code. */
export function componentFields(agent: RuntimeAgent): { is_component: boolean; current_version: number | null; stage: string | null } {
  return agent.stored ? { is_component: true, current_version: agent.stored.version, stage: agent.stored.stage } : { is_component: false, current_version: null, stage: null };
}
