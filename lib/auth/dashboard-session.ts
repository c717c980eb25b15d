import type { Settings } from "../config/settings.ts";
import type { Principal } from "./principal.ts";

/**
 * The principal of a signed-in dashboard user, for same-origin API requests that carry the
 * dashboard's session cookie and no bearer token. Null when there is no such session.
 */
export async function dashboardPrincipal(_request: Request, _settings: Settings): Promise<Principal | null> {
  return null;
}
