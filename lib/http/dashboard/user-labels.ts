import "server-only";
import type { Principal } from "../../auth/principal.ts";
import { listUsersFor } from "../../auth/dashboard/user-admin.ts";
import type { Db } from "../../db/open-database.ts";

/**
 * For admins' lists: every dashboard user's id → email (the user column and filter). Members get
 * an empty map: they only ever see their own rows.
 */
export async function userLabels(db: Db, principal: Principal): Promise<Map<string, string>> {
  if (!principal.isAdmin) return new Map();
  const { users } = await listUsersFor(db, principal);
  return new Map(users.map((u) => [u.id, u.email]));
}

/** What a list shows as a row's owner: the email when known, else the id; null for shared rows. */
export function labelOf(labels: Map<string, string>, userId: string | null): string | null {
  return userId === null ? null : (labels.get(userId) ?? userId);
}
