"use server";

import type { ActionState } from "@/lib/http/dashboard/action.ts";
import { performAction } from "@/lib/http/dashboard/perform-action.ts";
import { createServiceAccountAction, revokeServiceAccountAction } from "@/lib/http/dashboard/service-account-actions.ts";
import type { CreatedServiceAccountState } from "@/lib/http/dashboard/service-account-form.ts";

// Public POST endpoints: performAction checks the caller's session and admin role every time.

export async function createServiceAccount(_previous: CreatedServiceAccountState, formData: FormData): Promise<CreatedServiceAccountState> {
  // The create handler answers with a CreatedServiceAccountState (the one-time token); run() is typed by its base.
  return performAction(createServiceAccountAction, formData) as Promise<CreatedServiceAccountState>;
}

export async function revokeServiceAccount(_previous: ActionState, formData: FormData): Promise<ActionState> {
  return performAction(revokeServiceAccountAction, formData);
}
