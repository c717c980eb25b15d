import type { Principal } from "../auth/principal.ts";
import type { Settings } from "../config/settings.ts";
import type { ComponentType } from "./component-runs.ts";
import { callRoute, RouteRefusal } from "./route-call.ts";

type Json = Record<string, unknown>;

const LIST_PATH = { agent: "/agents", team: "/teams", workflow: "/workflows" } as const;

/**
 * The stored (Studio) components of a type the caller may see and run, as GET /agents (/teams,
 * /workflows) lists them after the code-defined ones (`is_component: true`): published, current
 * version, within the caller's visibility and per-resource scopes — the route decides all of it.
 * A caller the list route refuses (no `agents:read`) has none.
 */
export async function storedComponentsOf(settings: Settings, principal: Principal, type: ComponentType, signal?: AbortSignal): Promise<Json[]> {
  try {
    const listed = await callRoute<Json[]>(settings, principal, { method: "GET", path: LIST_PATH[type], signal });
    return (Array.isArray(listed) ? listed : []).filter((c) => c.is_component === true && typeof c.id === "string");
  } catch (error) {
    if (error instanceof RouteRefusal && (error.status === 401 || error.status === 403)) return [];
    throw error;
  }
}
