"use server";

import type { ActionState } from "@/lib/http/dashboard/action.ts";
import { performAction } from "@/lib/http/dashboard/perform-action.ts";
import {
  archiveStudioComponentAction,
  checkStudioOutputSchemaAction,
  deleteStudioDraftAction,
  publishStudioDraftAction,
  restoreStudioComponentAction,
  saveStudioDraftAction,
  setStudioCurrentAction,
} from "@/lib/http/dashboard/studio-actions.ts";

// Each is a public POST endpoint: performAction checks the caller's session every time, and the
// action calls the component store as that caller (lib/components/store.ts decides what it may do).

export async function saveStudioDraft(_previous: ActionState, formData: FormData): Promise<ActionState> {
  return performAction(saveStudioDraftAction, formData);
}

export async function publishStudioDraft(_previous: ActionState, formData: FormData): Promise<ActionState> {
  return performAction(publishStudioDraftAction, formData);
}

export async function setStudioCurrent(_previous: ActionState, formData: FormData): Promise<ActionState> {
  return performAction(setStudioCurrentAction, formData);
}

export async function deleteStudioDraft(_previous: ActionState, formData: FormData): Promise<ActionState> {
  return performAction(deleteStudioDraftAction, formData);
}

export async function archiveStudioComponent(_previous: ActionState, formData: FormData): Promise<ActionState> {
  return performAction(archiveStudioComponentAction, formData);
}

export async function restoreStudioComponent(_previous: ActionState, formData: FormData): Promise<ActionState> {
  return performAction(restoreStudioComponentAction, formData);
}

export async function checkStudioOutputSchema(_previous: ActionState, formData: FormData): Promise<ActionState> {
  return performAction(checkStudioOutputSchemaAction, formData);
}
