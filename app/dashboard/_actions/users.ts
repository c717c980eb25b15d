"use server";

import type { ActionState } from "@/lib/http/dashboard/action.ts";
import { performAction } from "@/lib/http/dashboard/perform-action.ts";
import { inviteUserAction, resetLinkAction, revokeInviteAction, setEnabledAction, setRoleAction } from "@/lib/http/dashboard/user-actions.ts";

// Each is a public POST endpoint: performAction checks the caller's session and role every time.

export async function inviteUser(_previous: ActionState, formData: FormData): Promise<ActionState> {
  return performAction(inviteUserAction, formData);
}

export async function setRole(_previous: ActionState, formData: FormData): Promise<ActionState> {
  return performAction(setRoleAction, formData);
}

export async function setEnabled(_previous: ActionState, formData: FormData): Promise<ActionState> {
  return performAction(setEnabledAction, formData);
}

export async function resetLink(_previous: ActionState, formData: FormData): Promise<ActionState> {
  return performAction(resetLinkAction, formData);
}

export async function revokeInvite(_previous: ActionState, formData: FormData): Promise<ActionState> {
  return performAction(revokeInviteAction, formData);
}
