import "server-only";
import { headers } from "next/headers";
import { notFound, redirect } from "next/navigation";
import { cache } from "react";
import { setupIsOpen } from "../../auth/dashboard/account-setup.ts";
import { sessionUserFromCookies } from "../../auth/dashboard/session.ts";
import { principalForUser } from "../../auth/dashboard/user-principal.ts";
import type { Principal } from "../../auth/principal.ts";
import type { Settings } from "../../config/settings.ts";
import type { Db } from "../../db/open-database.ts";
import type { DashboardUser } from "../../db/users/users.ts";
import { recentSystemStatus, type SystemStatus } from "../../status/system-status.ts";
import { getDatabase, getSettings } from "../../server/app-context.ts";

export interface DashboardSession {
  user: DashboardUser;
  principal: Principal;
  settings: Settings;
  db: Db;
}

/**
 * The signed-in, enabled user of this request (checked against the database), or null. Read once
 * per request however many layouts, pages and actions ask (React's per-request cache).
 */
export const currentDashboardSession = cache(async (): Promise<DashboardSession | null> => dashboardSessionFrom((await headers()).get("cookie")));

/**
 * The enabled user a Cookie header signs in, read from the database now — for code that outlives
 * its request's render (a live stream asking again who is watching).
 */
export async function dashboardSessionFrom(cookieHeader: string | null): Promise<DashboardSession | null> {
  const settings = getSettings();
  const db = await getDatabase(settings);
  const user = await sessionUserFromCookies({ cookieHeader, settings, db });
  return user ? { user, principal: principalForUser(user, settings), settings, db } : null;
}

/**
 * The installation's status (migrations, model providers) for the banners and the overview: once
 * per request, and at most every few seconds however often live pages re-render.
 */
export const dashboardSystemStatus = cache((): Promise<SystemStatus> => recentSystemStatus(getSettings(), 5_000, () => getDatabase(getSettings())));

/** For dashboard pages: the session, or a redirect to sign-in (to setup while no user exists). */
export async function requireDashboardSession(): Promise<DashboardSession> {
  const session = await currentDashboardSession();
  if (session) return session;
  const settings = getSettings();
  redirect((await setupIsOpen(await getDatabase(settings))) ? "/dashboard/setup" : "/dashboard/sign-in");
}

/** For admin pages: an admin's session; members get a 404, as if the page did not exist. */
export async function requireDashboardAdmin(): Promise<DashboardSession> {
  const session = await requireDashboardSession();
  if (!session.principal.isAdmin) notFound();
  return session;
}

/** The origin links are built on: AUTH_URL's when set, else the one the browser addressed. */
export async function dashboardOrigin(settings: Settings): Promise<string> {
  if (settings.dashboard.publicOrigin) return settings.dashboard.publicOrigin;
  const h = await headers();
  const proto = h.get("x-forwarded-proto") === "https" ? "https" : "http";
  return `${proto}://${h.get("host") ?? `${settings.server.host}:${settings.server.port}`}`;
}
