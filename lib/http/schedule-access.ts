import { hasScope, ADMIN_SCOPE, type Principal } from "../auth/principal.ts";
import type { Settings } from "../config/settings.ts";
import { HttpError } from "../errors/http-error.ts";
import { parseScheduleEndpoint } from "../scheduler/endpoint.ts";
import { invalidEndpoint } from "../scheduler/manage.ts";

const isAdmin = (principal: Principal) => principal.isAdmin || hasScope(principal, ADMIN_SCOPE);

/**
 * Who may point a schedule at an endpoint (at create, at a patch that changes the target, at
 * enable and at trigger): a fire runs the endpoint with the scheduler's own scopes, so
 * `schedules:write` alone must not reach what the caller could not call itself. The endpoint is
 * read as a fire reads it (lib/scheduler/endpoint.ts): one a fire would not call as written is a
 * 422 for everyone, admins included. A run endpoint (`POST /agents|teams|workflows/{id}/runs`)
 * needs the caller's `<type>:run` for that target (403 naming the scope); any other endpoint is
 * for admins only.
 */
export function requireEndpointPermission(principal: Principal, endpoint: string, method: string): void {
  const parsed = parseScheduleEndpoint(endpoint, method);
  if (!parsed.ok) throw invalidEndpoint(parsed.problem);
  const target = parsed.run;
  if (!target) {
    if (!isAdmin(principal)) throw new HttpError(403, "Only admins can schedule an endpoint that is not a run endpoint");
    return;
  }
  const required = `${target.type}:run`;
  if (hasScope(principal, required) || hasScope(principal, `${target.type}:${target.id}:run`)) return;
  throw new HttpError(403, `Insufficient permissions. Required scope(s): ${required}`);
}

/**
 * How many schedules the owner of one this caller creates may already have: a member is capped at
 * `scheduler.maxSchedulesPerUser`; an admin (for no user, itself or a named user) is not (null).
 * The API's create route and the dashboard's create action both pass it to createScheduleFor.
 */
export function scheduleLimitFor(principal: Principal, settings: Settings): number | null {
  return isAdmin(principal) ? null : settings.scheduler.maxSchedulesPerUser;
}
