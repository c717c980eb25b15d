"use server";

import type { ActionState } from "@/lib/http/dashboard/action.ts";
import { resolveApprovalAction } from "@/lib/http/dashboard/approval-actions.ts";
import { performAction } from "@/lib/http/dashboard/perform-action.ts";
import { currentDashboardSession } from "@/lib/http/dashboard/current-user.ts";
import { countPendingApprovals } from "@/lib/db/approvals/approvals.ts";
import { dataScopeFor } from "@/lib/auth/principal.ts";
import { getDatabase, getSettings } from "@/lib/server/app-context.ts";

// Public POST endpoints: each checks the caller's session every time and scopes to the caller.

export async function resolveApproval(_previous: ActionState, formData: FormData): Promise<ActionState> {
  return performAction(resolveApprovalAction, formData);
}

/** The navigation's live count: pending approvals the signed-in user sees (an admin: everyone's); null when signed out. */
export async function pendingApprovalCount(): Promise<number | null> {
  const session = await currentDashboardSession();
  if (!session) return null;
  const db = await getDatabase(getSettings());
  return countPendingApprovals(db, { scope: dataScopeFor(session.principal) });
}
