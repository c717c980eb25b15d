import { randomUUID } from "node:crypto";
import { parseJson } from "../json.ts";
import type { Db } from "../open-database.ts";
import { pageWindow } from "../pagination.ts";
import { ownerSql, type DataScope } from "../scope.ts";

/**
 * agno_approvals: a tool call that waits for (`required`) or records (`audit`) a person's
 * decision. A row belongs to the user whose run asked (`user_id`); reads go through a DataScope.
 * Who may resolve or delete one is the route's decision (lib/http/routes/approvals.ts): the person
 * who asked is not the person who approves. Statuses: pending → approved | rejected (a resolve),
 * pending → expired (the expiry job) or cancelled (its run was cancelled).
 */

export const APPROVAL_STATUSES = ["pending", "approved", "rejected", "expired", "cancelled"] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];
export type ApprovalType = "required" | "audit";
export type PauseType = "confirmation" | "user_input" | "external_execution";

export interface StoredApproval {
  id: string;
  run_id: string;
  session_id: string;
  status: string;
  source_type: string;
  approval_type: string | null;
  pause_type: string | null;
  tool_name: string | null;
  tool_args: Record<string, unknown> | null;
  expires_at: number | null;
  agent_id: string | null;
  team_id: string | null;
  workflow_id: string | null;
  user_id: string | null;
  schedule_id: string | null;
  schedule_run_id: string | null;
  source_name: string | null;
  requirements: Record<string, unknown>[] | null;
  context: Record<string, unknown> | null;
  resolution_data: Record<string, unknown> | null;
  resolved_by: string | null;
  resolved_at: number | null;
  created_at: number | null;
  updated_at: number | null;
  run_status: string | null;
}

const COLUMNS =
  "id, run_id, session_id, status, source_type, approval_type, pause_type, tool_name, tool_args, expires_at, agent_id, team_id, workflow_id, user_id, schedule_id, schedule_run_id, source_name, requirements, context, resolution_data, resolved_by, resolved_at, created_at, updated_at, run_status";

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
const object = (v: unknown): Record<string, unknown> | null => {
  const parsed = parseJson(v);
  return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
};
const objects = (v: unknown): Record<string, unknown>[] | null => {
  const parsed = parseJson(v);
  return Array.isArray(parsed) ? parsed.filter((x): x is Record<string, unknown> => !!x && typeof x === "object" && !Array.isArray(x)) : null;
};

export function toStoredApproval(row: Record<string, unknown>): StoredApproval {
  return {
    id: String(row.id),
    run_id: str(row.run_id) ?? "",
    session_id: str(row.session_id) ?? "",
    status: str(row.status) ?? "pending",
    source_type: str(row.source_type) ?? "agent",
    approval_type: str(row.approval_type),
    pause_type: str(row.pause_type),
    tool_name: str(row.tool_name),
    tool_args: object(row.tool_args),
    expires_at: num(row.expires_at),
    agent_id: str(row.agent_id),
    team_id: str(row.team_id),
    workflow_id: str(row.workflow_id),
    user_id: str(row.user_id),
    schedule_id: str(row.schedule_id),
    schedule_run_id: str(row.schedule_run_id),
    source_name: str(row.source_name),
    requirements: objects(row.requirements),
    context: object(row.context),
    resolution_data: object(row.resolution_data),
    resolved_by: str(row.resolved_by),
    resolved_at: num(row.resolved_at),
    created_at: num(row.created_at),
    updated_at: num(row.updated_at),
    run_status: str(row.run_status),
  };
}

export interface NewApproval {
  id?: string;
  runId: string;
  sessionId: string;
  status: ApprovalStatus;
  sourceType: "agent" | "team" | "workflow";
  approvalType: ApprovalType;
  pauseType: PauseType;
  toolName: string | null;
  toolArgs: Record<string, unknown> | null;
  expiresAt?: number | null;
  agentId?: string | null;
  teamId?: string | null;
  workflowId?: string | null;
  /** The run's owner: the person who asked. */
  userId: string | null;
  scheduleId?: string | null;
  scheduleRunId?: string | null;
  sourceName?: string | null;
  requirements?: Record<string, unknown>[] | null;
  context?: Record<string, unknown> | null;
  resolutionData?: Record<string, unknown> | null;
  resolvedBy?: string | null;
  resolvedAt?: number | null;
  runStatus?: string | null;
  now: number;
}

/**
 * UNSAFE (unscoped): the runtime writes the approval of its own run's tool call, owned by the
 * run's user (`userId`), whoever that is; no principal is involved.
 */
export async function unsafeCreateApproval(db: Db, a: NewApproval): Promise<StoredApproval> {
  const id = a.id ?? randomUUID();
  await db.sql.exec(
    `INSERT INTO agno_approvals (${COLUMNS}) VALUES (${COLUMNS.split(",")
      .map(() => "?")
      .join(", ")})`,
    [
      id,
      a.runId,
      a.sessionId,
      a.status,
      a.sourceType,
      a.approvalType,
      a.pauseType,
      a.toolName,
      a.toolArgs,
      a.expiresAt ?? null,
      a.agentId ?? null,
      a.teamId ?? null,
      a.workflowId ?? null,
      a.userId,
      a.scheduleId ?? null,
      a.scheduleRunId ?? null,
      a.sourceName ?? null,
      a.requirements ?? null,
      a.context ?? null,
      a.resolutionData ?? null,
      a.resolvedBy ?? null,
      a.resolvedAt ?? null,
      a.now,
      null,
      a.runStatus ?? null,
    ],
  );
  const [row] = await db.sql.query(`SELECT ${COLUMNS} FROM agno_approvals WHERE id = ?`, [id]);
  return toStoredApproval(row!);
}

export interface ApprovalFilters {
  status?: string;
  sourceType?: string;
  approvalType?: string;
  pauseType?: string;
  agentId?: string;
  teamId?: string;
  workflowId?: string;
  userId?: string;
  scheduleId?: string;
  runId?: string;
}

function filterSql(scope: DataScope, f: ApprovalFilters): { where: string; params: unknown[] } {
  const owner = ownerSql(scope);
  const clauses = [owner.clause];
  const params: unknown[] = [...owner.params];
  const eq: [string, string | undefined][] = [
    ["status", f.status],
    ["source_type", f.sourceType],
    ["approval_type", f.approvalType],
    ["pause_type", f.pauseType],
    ["agent_id", f.agentId],
    ["team_id", f.teamId],
    ["workflow_id", f.workflowId],
    // A non-admin's scope already pins user_id to itself; an admin may name anyone.
    ["user_id", scope.kind === "admin" ? f.userId : undefined],
    ["schedule_id", f.scheduleId],
    ["run_id", f.runId],
  ];
  for (const [column, value] of eq) {
    if (value === undefined) continue;
    clauses.push(`${column} = ?`);
    params.push(value);
  }
  return { where: clauses.join(" AND "), params };
}

/**
 * The approvals the scope sees, pending first (the ones waiting for someone), then newest first;
 * `limit`/`page` as Agno's list (1-indexed).
 */
export async function listApprovals(db: Db, { scope, filters = {}, page = 1, limit = 100 }: { scope: DataScope; filters?: ApprovalFilters; page?: number; limit?: number }) {
  const window = pageWindow({ page, limit });
  const { where, params } = filterSql(scope, filters);
  const [count] = await db.sql.query<{ n: number }>(`SELECT COUNT(*) AS n FROM agno_approvals WHERE ${where}`, params);
  const rows = await db.sql.query(
    `SELECT ${COLUMNS} FROM agno_approvals WHERE ${where}
      ORDER BY CASE WHEN status = 'pending' THEN 0 ELSE 1 END, created_at DESC, id DESC LIMIT ? OFFSET ?`,
    [...params, window.take ?? limit, window.skip],
  );
  return { approvals: rows.map(toStoredApproval), totalCount: Number(count?.n ?? 0) };
}

/** How many pending approvals the scope sees (an admin may narrow to one user). */
export async function countPendingApprovals(db: Db, { scope, userId }: { scope: DataScope; userId?: string }): Promise<number> {
  const { where, params } = filterSql(scope, { status: "pending", userId });
  const [row] = await db.sql.query<{ n: number }>(`SELECT COUNT(*) AS n FROM agno_approvals WHERE ${where}`, params);
  return Number(row?.n ?? 0);
}

/** One approval, or null when it does not exist or the scope does not see it. */
export async function getApproval(db: Db, { scope, id }: { scope: DataScope; id: string }): Promise<StoredApproval | null> {
  const owner = ownerSql(scope);
  const [row] = await db.sql.query(`SELECT ${COLUMNS} FROM agno_approvals WHERE id = ? AND ${owner.clause}`, [id, ...owner.params]);
  return row ? toStoredApproval(row) : null;
}

/** Its status at `now`: a pending approval past `expires_at` is expired, whether or not the expiry task has marked it yet. */
export function approvalStatusAt(approval: StoredApproval, now: number): string {
  return approval.status === "pending" && approval.expires_at !== null && approval.expires_at <= now ? "expired" : approval.status;
}

export type ResolveOutcome = { resolved: StoredApproval } | { notFound: true } | { conflict: StoredApproval };

/**
 * Resolves a pending approval: compare-and-set on `status = 'pending'` (and not expired at `now`),
 * so of two resolvers exactly one wins and the other learns the current status.
 */
export async function resolveApproval(
  db: Db,
  {
    scope,
    id,
    status,
    resolvedBy,
    resolutionData,
    now,
  }: { scope: DataScope; id: string; status: "approved" | "rejected"; resolvedBy: string | null; resolutionData?: Record<string, unknown> | null; now: number },
): Promise<ResolveOutcome> {
  const owner = ownerSql(scope);
  const data = resolutionData === undefined || resolutionData === null ? [] : [resolutionData];
  const changed = await db.sql.exec(
    `UPDATE agno_approvals SET status = ?, resolved_by = ?, resolved_at = ?, updated_at = ?${data.length ? ", resolution_data = ?" : ""}
      WHERE id = ? AND status = 'pending' AND (expires_at IS NULL OR expires_at > ?) AND ${owner.clause}`,
    [status, resolvedBy, now, now, ...data, id, now, ...owner.params],
  );
  const current = await getApproval(db, { scope, id });
  if (!current) return { notFound: true };
  if (changed === 0) return { conflict: current };
  return { resolved: current };
}

/** Deletes one approval the scope sees; whether it did. */
export async function deleteApproval(db: Db, { scope, id }: { scope: DataScope; id: string }): Promise<boolean> {
  const owner = ownerSql(scope);
  return (await db.sql.exec(`DELETE FROM agno_approvals WHERE id = ? AND ${owner.clause}`, [id, ...owner.params])) > 0;
}

/**
 * UNSAFE (unscoped): the runtime's gate on continuing a run — the run's required approvals,
 * whoever owns the run (the caller's access to the run was checked before).
 */
export async function unsafeRequiredApprovalsOfRun(db: Db, runId: string): Promise<StoredApproval[]> {
  const rows = await db.sql.query(`SELECT ${COLUMNS} FROM agno_approvals WHERE run_id = ? AND approval_type = 'required' ORDER BY created_at DESC, id DESC`, [runId]);
  return rows.map(toStoredApproval);
}

/**
 * UNSAFE (unscoped): a periodic housekeeping job across every user. Pending approvals past their
 * `expires_at` become `expired`; returns them.
 */
export async function unsafeExpireApprovals(db: Db, { now, limit = 500 }: { now: number; limit?: number }): Promise<StoredApproval[]> {
  const rows = await db.sql.query(
    `UPDATE agno_approvals SET status = 'expired', updated_at = ?
      WHERE id IN (SELECT id FROM agno_approvals WHERE status = 'pending' AND expires_at IS NOT NULL AND expires_at <= ? ORDER BY expires_at LIMIT ?) AND status = 'pending'
      RETURNING ${COLUMNS}`,
    [now, now, limit],
  );
  return rows.map(toStoredApproval);
}

/**
 * UNSAFE (unscoped): the run's end is mirrored on its approvals (`run_status`); a run cancelled
 * while its approval waits also cancels the pending approval.
 */
export async function unsafeUpdateApprovalRunStatus(db: Db, { runId, runStatus, now }: { runId: string; runStatus: string; now: number }): Promise<number> {
  const cancel = runStatus === "CANCELLED" ? ", status = CASE WHEN status = 'pending' THEN 'cancelled' ELSE status END" : "";
  return db.sql.exec(`UPDATE agno_approvals SET run_status = ?, updated_at = ?${cancel} WHERE run_id = ? AND (run_status IS NULL OR run_status <> ?)`, [runStatus, now, runId, runStatus]);
}

/**
 * UNSAFE (unscoped): the scheduler, having fired a run that paused, names the schedule and its
 * fire's record on that run's approvals (the run itself does not know it was scheduled).
 */
export async function unsafeLinkApprovalsToSchedule(db: Db, { runId, scheduleId, scheduleRunId }: { runId: string; scheduleId: string; scheduleRunId: string }): Promise<number> {
  return db.sql.exec("UPDATE agno_approvals SET schedule_id = ?, schedule_run_id = ? WHERE run_id = ? AND schedule_id IS NULL", [scheduleId, scheduleRunId, runId]);
}
