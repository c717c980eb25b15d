/** One approval as the Approvals page shows it (plain data: it crosses from the server page to the client table). */
export interface ApprovalRow {
  id: string;
  status: string;
  approval_type: string | null;
  tool_name: string | null;
  /** The tool's arguments as compact JSON. */
  args: string;
  source: string;
  run_id: string;
  session_id: string;
  run_status: string | null;
  /** Who asked: the run's owner, as the dashboard names users. */
  asked_by: string;
  created_at: number | null;
  expires_at: number | null;
  resolved_by: string | null;
  resolved_at: number | null;
  note: string | null;
}

export const approvalRunHref = (row: Pick<ApprovalRow, "run_id" | "session_id">) =>
  `/dashboard/runs/${encodeURIComponent(row.run_id)}${row.session_id ? `?session_id=${encodeURIComponent(row.session_id)}` : ""}`;
