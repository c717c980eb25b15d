import { randomUUID } from "node:crypto";
import type { Principal } from "@/lib/auth/principal.ts";
import { acceptInvite } from "@/lib/auth/dashboard/account-setup.ts";
import { authSecret } from "@/lib/auth/dashboard/auth-secret.ts";
import { SESSION_COOKIE, encodeSessionToken } from "@/lib/auth/dashboard/session-token.ts";
import { inviteUser } from "@/lib/auth/dashboard/user-admin.ts";
import type { Settings } from "@/lib/config/settings.ts";
import type { Db } from "@/lib/db/open-database.ts";
import type { DashboardUser, UserRole } from "@/lib/db/users/users.ts";

/** An admin caller with no dashboard identity (auth mode `none`), to set up users through the real flows. */
export const SYSTEM_ADMIN: Principal = { kind: "admin", userId: null, scopes: ["agent_os:admin"], authenticatedBy: "none", isAdmin: true };

export const PASSWORD = "correct horse battery";

let counter = 0;
export const uniqueEmail = (label: string) => `${label}-${process.pid}-${Date.now().toString(36)}-${++counter}@example.test`;

/** Creates a user the way the dashboard does: an admin's invite link, redeemed with a password. */
export async function createUser(db: Db, { email = uniqueEmail("user"), role = "member" as UserRole, password = PASSWORD } = {}): Promise<DashboardUser> {
  const { link } = await inviteUser(db, { principal: SYSTEM_ADMIN, email, role, origin: "http://127.0.0.1:7777" });
  const result = await acceptInvite(db, { token: link.split("/").pop()!, name: "Test", password });
  if (!result.ok) throw new Error(result.error);
  return result.user;
}

/** A Cookie header carrying a new session for the user (its own `sid`), as Auth.js would have issued it at sign-in. */
export async function sessionCookie(settings: Settings, db: Db, user: DashboardUser, sid: string = randomUUID()): Promise<string> {
  const token = await encodeSessionToken({ sub: user.id, sv: user.sessionVersion, sid }, await authSecret(settings, db));
  return `${SESSION_COOKIE}=${token}`;
}

/** The token at the end of a one-time link. */
export const tokenOf = (link: string) => link.split("/").pop()!;
