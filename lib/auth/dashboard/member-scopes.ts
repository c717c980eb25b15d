/**
 * What a dashboard member may do through the API: use the agents, teams and workflows, and manage
 * its own sessions, memories, learnings, knowledge contents, schedules and evals, read its own approvals and its own metrics, read the registry (what its Studio components may use), and make its own Studio components (reading others' published ones). Isolation confines all
 * of it to the member's own rows. Approving is not a member's: `approvals:write` would let a member
 * continue its own run past a required approval (the person who asked is not the person who approves). Admin-only surfaces (config writes, migrations, the queue, service accounts,
 * user management) are not here.
 */
export const MEMBER_SCOPES: readonly string[] = Object.freeze([
  "config:read",
  "agents:read",
  "agents:run",
  "teams:read",
  "teams:run",
  "workflows:read",
  "workflows:run",
  "sessions:read",
  "sessions:write",
  "sessions:delete",
  "memories:read",
  "memories:write",
  "memories:delete",
  "knowledge:read",
  "knowledge:write",
  "knowledge:delete",
  "learnings:read",
  "learnings:write",
  "learnings:delete",
  "evals:read",
  "evals:write",
  "evals:delete",
  "traces:read",
  "metrics:read",
  "schedules:read",
  "schedules:write",
  "schedules:delete",
  "approvals:read",
  "components:read",
  "components:write",
  "components:delete",
  "registry:read",
]);
