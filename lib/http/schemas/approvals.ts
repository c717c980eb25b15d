import { z } from "zod";
import { APPROVAL_STATUSES } from "../../db/approvals/approvals.ts";
import { JsonObject, paginated } from "./list-query.ts";

/** Request and response shapes of Agno's Approvals API (`/approvals`). */

export const ApprovalParams = z.object({ approval_id: z.string().min(1) });

/** Agno's list filters; `limit` 1..1000 (default 100), `page` ≥ 1. */
export const ListApprovalsQuery = z.object({
  status: z.enum(APPROVAL_STATUSES).optional(),
  source_type: z.string().min(1).optional(),
  approval_type: z.enum(["required", "audit"]).optional(),
  pause_type: z.string().min(1).optional(),
  agent_id: z.string().min(1).optional(),
  team_id: z.string().min(1).optional(),
  workflow_id: z.string().min(1).optional(),
  user_id: z.string().min(1).optional(),
  schedule_id: z.string().min(1).optional(),
  run_id: z.string().min(1).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  page: z.coerce.number().int().min(1).default(1),
});

export const ApprovalCountQuery = z.object({ user_id: z.string().min(1).optional() });

/** Agno's ApprovalResolve; `resolved_by` is ignored when the caller has an identity (its own is recorded). */
export const ApprovalResolveBody = z.object({
  status: z.string().regex(/^(approved|rejected)$/, "status must be 'approved' or 'rejected'"),
  resolved_by: z.string().max(255).nullish(),
  resolution_data: JsonObject.nullish(),
});

/** Agno's ApprovalResponse (with `run_status`). */
export const ApprovalSchema = z.object({
  id: z.string(),
  run_id: z.string(),
  session_id: z.string(),
  status: z.string(),
  source_type: z.string(),
  approval_type: z.string().nullable(),
  pause_type: z.string().nullable(),
  tool_name: z.string().nullable(),
  tool_args: JsonObject.nullable(),
  expires_at: z.number().int().nullable(),
  agent_id: z.string().nullable(),
  team_id: z.string().nullable(),
  workflow_id: z.string().nullable(),
  user_id: z.string().nullable(),
  schedule_id: z.string().nullable(),
  schedule_run_id: z.string().nullable(),
  source_name: z.string().nullable(),
  requirements: z.array(JsonObject).nullable(),
  context: JsonObject.nullable(),
  resolution_data: JsonObject.nullable(),
  resolved_by: z.string().nullable(),
  resolved_at: z.number().int().nullable(),
  created_at: z.number().int().nullable(),
  updated_at: z.number().int().nullable(),
  run_status: z.string().nullable(),
});

export const ApprovalListSchema = paginated(ApprovalSchema);
export const ApprovalCountSchema = z.object({ count: z.number().int() });
export const ApprovalStatusSchema = z.object({
  approval_id: z.string(),
  status: z.string(),
  run_id: z.string(),
  resolved_at: z.number().int().nullable(),
  resolved_by: z.string().nullable(),
});
