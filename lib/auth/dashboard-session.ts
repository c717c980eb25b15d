import type { Settings } from "../config/settings.ts";
import type { Db } from "../db/open-database.ts";
import { isSameOriginRequest } from "./dashboard/same-origin.ts";
import { sessionUserFromCookies } from "./dashboard/session.ts";
import { sessionCookieValue } from "./dashboard/session-token.ts";
import { principalForUser } from "./dashboard/user-principal.ts";
import type { Principal } from "./principal.ts";

/**
 * The principal of a signed-in dashboard user, for same-origin API requests that carry the
 * dashboard's session cookie and no bearer token. Null when there is no such session — and for a
 * cross-site request even with a valid cookie, so no other site can run, cancel or continue runs
 * through a signed-in browser (the auth mode then decides, which is 401 unless it is `none`).
 */
export async function dashboardPrincipal(request: Request, settings: Settings, database: () => Promise<Db>): Promise<Principal | null> {
  const cookieHeader = request.headers.get("cookie");
  if (!sessionCookieValue(cookieHeader)) return null; // the common case for API clients: no database read
  if (!isSameOriginRequest(request, settings)) return null;
  const user = await sessionUserFromCookies({ cookieHeader, settings, db: await database() });
  return user ? principalForUser(user, settings) : null;
}
