import type { z } from "zod";
import { approvalStatusAt, countPendingApprovals, deleteApproval, getApproval, listApprovals, resolveApproval, type StoredApproval } from "../../db/approvals/approvals.ts";
import type { DataScope } from "../../db/scope.ts";
import { HttpError } from "../../errors/http-error.ts";
import { defineRoute } from "../route.ts";
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
  handler: async ({ input: { params }, scope, db }) => {
    const approval = await getApproval(db, { scope, id: params.approval_id });
    if (!approval) throw new HttpError(404, NOT_FOUND);
    return toApprovalView(approval);
  },
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
  handler: async ({ input: { params }, scope, db }) => {
    const approval = await getApproval(db, { scope, id: params.approval_id });
    if (!approval) throw new HttpError(404, NOT_FOUND);
    return { approval_id: approval.id, status: approval.status, run_id: approval.run_id, resolved_at: approval.resolved_at, resolved_by: approval.resolved_by };
  },
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
  handler: async ({ input: { params, body }, principal, scope, db }) => {
    if (confinedMember(scope)) throw new HttpError(404, NOT_FOUND);
    const now = Math.floor(Date.now() / 1000);
    const outcome = await resolveApproval(db, {
      scope,
      id: params.approval_id,
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
  handler: async ({ input: { params }, scope, db }) => {
    if (confinedMember(scope)) throw new HttpError(404, NOT_FOUND);
    if (!(await deleteApproval(db, { scope, id: params.approval_id }))) throw new HttpError(404, NOT_FOUND);
  },
});

export const APPROVAL_ROUTES = [listApprovalsRoute, countApprovalsRoute, getApprovalRoute, approvalStatusRoute, resolveApprovalRoute, deleteApprovalRoute];
