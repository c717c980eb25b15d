"use server";

import type { ActionState } from "@/lib/http/dashboard/action.ts";
import { cancelEvalAction, deleteEvalAction, rerunEvalAction, startEvalAction } from "@/lib/http/dashboard/eval-actions.ts";
import { performAction } from "@/lib/http/dashboard/perform-action.ts";

// Each is a public POST endpoint: performAction checks the caller's session every time, and the
// action scopes every read and write to the caller.

export async function startEval(_previous: ActionState, formData: FormData): Promise<ActionState> {
  return performAction(startEvalAction, formData);
}

export async function cancelEval(_previous: ActionState, formData: FormData): Promise<ActionState> {
  return performAction(cancelEvalAction, formData);
}

export async function deleteEval(_previous: ActionState, formData: FormData): Promise<ActionState> {
  return performAction(deleteEvalAction, formData);
}

export async function rerunEval(_previous: ActionState, formData: FormData): Promise<ActionState> {
  return performAction(rerunEvalAction, formData);
}
