import { ADMIN_SCOPE, type Principal } from "../auth/principal.ts";
import type { Settings } from "../config/settings.ts";
import { unsafeSessionUser } from "../db/users/users.ts";
import { registerEndpointCaller, type EndpointCall, type EndpointCaller, type EndpointResult } from "../scheduler/endpoint-port.ts";
import { getDatabase } from "../server/app-context.ts";
import { dispatch } from "./dispatch.ts";
import { ROUTES, templateForPath } from "./route-table.ts";

/**
 * The scheduler's endpoint caller (lib/scheduler/endpoint-port.ts): a fire's request goes through
 * the route table and the dispatcher — validation, the scope check, the route's data scope —
 * inside this process, never over the network. Importing this module registers it (process-wide).
 *
 * Who the call is:
 * - a run endpoint: the internal scheduler principal acting for the schedule's owner, with the
 *   scopes Agno gives its internal service token (SCHEDULER_SCOPES), confined to the owner's rows
 *   like any member; an owner-less schedule runs as an admin with no identity (shared rows);
 * - any other endpoint (admin-only targets): an admin acting as the owner, once the owner's admin
 *   standing is confirmed at fire time — the owner is a dashboard admin (not disabled), or there
 *   is no owner (an identity-less admin made it), or auth is off (everyone is an admin). A JWT
 *   subject the dashboard does not know cannot be confirmed, and the call is refused (403).
 */

/** The scopes Agno gives its internal scheduler token. */
export const SCHEDULER_SCOPES: readonly string[] = Object.freeze(["agents:read", "agents:run", "teams:read", "teams:run", "workflows:read", "workflows:run", "schedules:read", "schedules:write"]);

export function schedulerPrincipal(owner: string | null): Principal {
  if (owner === null) return { kind: "admin", userId: null, scopes: [ADMIN_SCOPE], authenticatedBy: "scheduler", isAdmin: true };
  return { kind: "user", userId: owner, scopes: SCHEDULER_SCOPES, authenticatedBy: "scheduler", isAdmin: false, isolated: true };
}

/** An admin principal for the owner, or the reason the owner's admin standing cannot be confirmed now. */
async function ownerAsAdmin(owner: string | null, settings: Settings): Promise<Principal | string> {
  if (owner === null || settings.auth.mode === "none") return { kind: "admin", userId: owner, scopes: [ADMIN_SCOPE], authenticatedBy: "scheduler", isAdmin: true };
  const user = await unsafeSessionUser(await getDatabase(settings), owner);
  if (user && user.role === "admin" && user.disabledAt === null) return { kind: "admin", userId: owner, scopes: [ADMIN_SCOPE], authenticatedBy: "scheduler", isAdmin: true };
  return `The schedule's owner '${owner}' is not an admin now: only admins may schedule an endpoint that is not a run endpoint`;
}

function result(status: number, text: string): EndpointResult {
  let body: unknown = null;
  try {
    body = text.length > 0 ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  return { status, body, text };
}

export function internalCaller(settings: Settings): EndpointCaller {
  return async (call: EndpointCall) => {
    const url = new URL(call.path, "http://agentry.internal");
    const template = templateForPath(url.pathname);
    if (!template) return result(404, JSON.stringify({ detail: "Not Found" }));
    const principal = call.as === "scheduler" ? schedulerPrincipal(call.owner) : await ownerAsAdmin(call.owner, settings);
    if (typeof principal === "string") return result(403, JSON.stringify({ detail: principal }));
    const headers = new Headers(call.headers ?? {});
    let body: BodyInit | undefined;
    if (call.form) {
      body = new URLSearchParams(call.form);
      headers.set("content-type", "application/x-www-form-urlencoded");
    } else if (call.json !== undefined && call.method !== "GET") {
      body = JSON.stringify(call.json);
      headers.set("content-type", "application/json");
    }
    const request = new Request(url, { method: call.method, headers, body });
    const response = await dispatch(request, template, { settings, routes: ROUTES.filter((r) => r.path === template), principal });
    return result(response.status, await response.text());
  };
}

registerEndpointCaller(internalCaller);
