import type { z } from "zod";
import { approvalStatusAt, countPendingApprovals, deleteApproval, getApproval, listApprovals, resolveApproval, type StoredApproval } from "../../db/approvals/approvals.ts";
import type { DataScope } from "../../db/scope.ts";
import { HttpError } from "../../errors/http-error.ts";
import { defineRoute, type DataLoaderContext } from "../route.ts";
import { ApprovalCountQuery, ApprovalCountSchema, ApprovalListSchema, ApprovalParams, ApprovalResolveBody, ApprovalSchema, ApprovalStatusSchema, ListApprovalsQuery } from "../schemas/approvals.ts";
import { pageOf } from "../schemas/list-query.ts";

/**
 * Agno's Approvals API (approvals:read / :write / :delete). Approvals live in the default
 * database and belong to the user whose run asked. A member reads its own (another's is 404);
 * resolving and deleting are an approver's: with user isolation on, a member gets 404 even for its
 * own approval (the person who asked is not the person who approves), as Agno's router does.
 * `resolved_by` is the resolver's own identity; the body's is used only for a caller with none.
 */

const TAGS = ["Approvals"];
const DATA = { db: "default", userFrom: "query" } as const;
const NOT_FOUND = "Approval not found";

export const toApprovalView = (a: StoredApproval): z.infer<typeof ApprovalSchema> => ({ ...a });

/** A member confined to its own rows (isolation on): may read, never resolve or delete. */
const confinedMember = (scope: DataScope) => scope.kind === "user";

/** The approval the path names, in the caller's scope; 404 otherwise. */
async function pathApproval({ params }: { params: { approval_id: string } }, { data }: DataLoaderContext): Promise<StoredApproval> {
  const { db, scope } = await data();
  const approval = await getApproval(db, { scope, id: params.approval_id });
  if (!approval) throw new HttpError(404, NOT_FOUND);
  return approval;
}

/**
 * The path's approval id, for a resolve or a delete: an approver's, so a confined member gets the
 * 404 an unknown approval gets, its own included. The write itself finds the row (or its 404).
 */
async function decidableApprovalId({ params }: { params: { approval_id: string } }, { data }: DataLoaderContext): Promise<string> {
  if (confinedMember((await data()).scope)) throw new HttpError(404, NOT_FOUND);
  return params.approval_id;
}

export const listApprovalsRoute = defineRoute({
  method: "GET",
  path: "/approvals",
  summary: "List approvals, pending first (your own; an admin sees all, or one user's with user_id)",
  tags: TAGS,
  access: { permission: "approvals:read" },
  query: ListApprovalsQuery,
  response: ApprovalListSchema,
  data: DATA,
  handler: async ({ input: { query }, scope, db }) => {
    const started = performance.now();
    const { approvals, totalCount } = await listApprovals(db, {
      scope,
      page: query.page,
      limit: query.limit,
      filters: {
        status: query.status,
        sourceType: query.source_type,
        approvalType: query.approval_type,
        pauseType: query.pause_type,
        agentId: query.agent_id,
        teamId: query.team_id,
        workflowId: query.workflow_id,
        userId: query.user_id,
        scheduleId: query.schedule_id,
        runId: query.run_id,
      },
    });
    return pageOf(approvals.map(toApprovalView), { page: query.page, limit: query.limit, totalCount, startedMs: started });
  },
});

export const countApprovalsRoute = defineRoute({
  method: "GET",
  path: "/approvals/count",
  summary: "How many approvals are pending",
  tags: TAGS,
  access: { permission: "approvals:read" },
  query: ApprovalCountQuery,
  response: ApprovalCountSchema,
  data: DATA,
  handler: async ({ input: { query }, scope, db }) => ({ count: await countPendingApprovals(db, { scope, userId: query.user_id }) }),
});

export const getApprovalRoute = defineRoute({
  method: "GET",
  path: "/approvals/{approval_id}",
  summary: "Get an approval",
  tags: TAGS,
  access: { permission: "approvals:read" },
  params: ApprovalParams,
  response: ApprovalSchema,
  data: DATA,
  resource: pathApproval,
  handler: ({ resource: approval }) => toApprovalView(approval),
});

export const approvalStatusRoute = defineRoute({
  method: "GET",
  path: "/approvals/{approval_id}/status",
  summary: "An approval's status (for polling)",
  tags: TAGS,
  access: { permission: "approvals:read" },
  params: ApprovalParams,
  response: ApprovalStatusSchema,
  data: DATA,
  resource: pathApproval,
  handler: ({ resource: a }) => ({ approval_id: a.id, status: a.status, run_id: a.run_id, resolved_at: a.resolved_at, resolved_by: a.resolved_by }),
});

export const resolveApprovalRoute = defineRoute({
  method: "POST",
  path: "/approvals/{approval_id}/resolve",
  summary: "Approve or reject a pending approval (409 when it is no longer pending)",
  tags: TAGS,
  access: { permission: "approvals:write" },
  params: ApprovalParams,
  body: ApprovalResolveBody,
  response: ApprovalSchema,
  data: DATA,
  resource: decidableApprovalId,
  handler: async ({ input: { body }, resource: id, principal, scope, db }) => {
    const now = Math.floor(Date.now() / 1000);
    const outcome = await resolveApproval(db, {
      scope,
      id,
      status: body.status as "approved" | "rejected",
      resolvedBy: principal.userId ?? body.resolved_by ?? null,
      resolutionData: body.resolution_data ?? undefined,
      now,
    });
    if ("notFound" in outcome) throw new HttpError(404, NOT_FOUND);
    if ("conflict" in outcome) {
      throw new HttpError(409, `Approval is already '${approvalStatusAt(outcome.conflict, now)}' and cannot be resolved`);
    }
    return toApprovalView(outcome.resolved);
  },
});

export const deleteApprovalRoute = defineRoute({
  method: "DELETE",
  path: "/approvals/{approval_id}",
  summary: "Delete an approval",
  tags: TAGS,
  access: { permission: "approvals:delete" },
  params: ApprovalParams,
  status: 204,
  data: DATA,
  resource: decidableApprovalId,
  handler: async ({ resource: id, scope, db }) => {
    if (!(await deleteApproval(db, { scope, id }))) throw new HttpError(404, NOT_FOUND);
  },
});

export const APPROVAL_ROUTES = [listApprovalsRoute, countApprovalsRoute, getApprovalRoute, approvalStatusRoute, resolveApprovalRoute, deleteApprovalRoute];
