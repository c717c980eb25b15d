"use server";

import { redirect } from "next/navigation";
import type { ActionState } from "@/lib/http/dashboard/action.ts";
import { performAction } from "@/lib/http/dashboard/perform-action.ts";
import { deleteSessionAction, renameSessionAction } from "@/lib/http/dashboard/session-actions.ts";

export async function renameSession(_previous: ActionState, formData: FormData): Promise<ActionState> {
  return performAction(renameSessionAction, formData);
}

/** Deletes, then goes back to the list (the session's page no longer exists). */
export async function deleteSession(_previous: ActionState, formData: FormData): Promise<ActionState> {
  const result = await performAction(deleteSessionAction, formData);
  if (result.ok) redirect("/dashboard/sessions");
  return result;
}
