import type { Settings } from "../../config/settings.ts";
import type { DashboardUser } from "../../db/users/users.ts";
import { ADMIN_SCOPE, type Principal } from "../principal.ts";
import { MEMBER_SCOPES } from "./member-scopes.ts";

/**
 * The principal of a signed-in dashboard user: the same kind an API caller gets. An admin holds
 * `agent_os:admin`; a member is a non-admin user (its own id, the member scopes, isolated unless
 * the install turned user isolation off).
 */
export function principalForUser(user: DashboardUser, settings: Settings): Principal {
  if (user.role === "admin") {
    return { kind: "admin", userId: user.id, scopes: [ADMIN_SCOPE], authenticatedBy: "dashboard", isAdmin: true };
  }
  return {
    kind: "user",
    userId: user.id,
    scopes: MEMBER_SCOPES,
    authenticatedBy: "dashboard",
    isAdmin: false,
    isolated: settings.auth.userIsolation,
  };
}
