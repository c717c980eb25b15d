import { hasScope, ADMIN_SCOPE, type Principal } from "../auth/principal.ts";
import { HttpError } from "../errors/http-error.ts";
import { runEndpointTarget } from "../scheduler/manage.ts";

/**
 * Who may point a schedule at an endpoint (at create, at a patch that changes the target, at
 * enable and at trigger): a fire runs the endpoint with the scheduler's own scopes, so
 * `schedules:write` alone must not reach what the caller could not call itself. A run endpoint
 * (`POST /agents|teams|workflows/{id}/runs`) needs the caller's `<type>:run` for that target (403
 * naming the scope); any other endpoint is for admins only.
 */
export function requireEndpointPermission(principal: Principal, endpoint: string, method: string): void {
  const target = runEndpointTarget(endpoint, method);
  if (!target) {
    if (!principal.isAdmin && !hasScope(principal, ADMIN_SCOPE)) throw new HttpError(403, "Only admins can schedule an endpoint that is not a run endpoint");
    return;
  }
  const required = `${target.type}:run`;
  if (hasScope(principal, required) || hasScope(principal, `${target.type}:${target.id}:run`)) return;
  throw new HttpError(403, `Insufficient permissions. Required scope(s): ${required}`);
}
