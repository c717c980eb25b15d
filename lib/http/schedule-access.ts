import { hasScope, ADMIN_SCOPE, type Principal } from "../auth/principal.ts";
import { unsafeComponentHead } from "../components/store.ts";
import type { Settings } from "../config/settings.ts";
import type { Db } from "../db/open-database.ts";
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

const SINGULAR = { agents: "agent", teams: "team", workflows: "workflow" } as const;

/**
 * A run endpoint aimed at a stored (Studio) component that could only fail at fire time: an
 * archived one (409 "… is archived. Restore the component first.") or one with no published
 * version (409 "… has no published version. Publish it first."), at create, at a patch that
 * re-points the schedule (`repoint`: the schedule's name) and at enable. Judged in the caller's
 * view: another member's component the caller cannot see reads as no component at all, so the
 * answer tells nothing of it. A component defined in code, or an id nothing holds, passes.
 */
export async function refuseUnrunnableTarget(
  settings: Settings,
  db: Db,
  principal: Principal,
  { endpoint, method, name, repoint }: { endpoint: string; method: string; name: string; repoint?: boolean },
): Promise<void> {
  const parsed = parseScheduleEndpoint(endpoint, method);
  if (!parsed.ok || !parsed.run) return;
  const type = SINGULAR[parsed.run.type];
  const id = parsed.run.id;
  const inCode = type === "agent" ? settings.agents : type === "team" ? settings.teams : settings.workflows;
  if (inCode.some((c) => c.id === id)) return;
  const head = await unsafeComponentHead(db, id);
  if (!head || head.component_type !== type) return;
  const theirs = isAdmin(principal) || head.user_id === null || head.user_id === principal.userId;
  if (head.deleted_at !== null && theirs) {
    throw new HttpError(
      409,
      repoint
        ? `Cannot repoint schedule '${name}' at ${type} '${id}': it is archived. Restore the component first.`
        : `Cannot create schedule '${name}': its target ${type} '${id}' is archived. Restore the component first.`,
    );
  }
  if (head.deleted_at === null && head.current_version === null && theirs) {
    throw new HttpError(
      409,
      repoint
        ? `Cannot repoint schedule '${name}' at ${type} '${id}': it has no published version. Publish it first.`
        : `Cannot create schedule '${name}': its target ${type} '${id}' has no published version. Publish it first.`,
    );
  }
}
