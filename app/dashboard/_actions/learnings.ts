"use server";

import type { ActionState } from "@/lib/http/dashboard/action.ts";
import {
  deleteLearningAction,
  deleteLearningMemoryAction,
  forgetEverythingAction,
  updateLearningContentAction,
  updateLearningMemoryAction,
  updateLearningProfileAction,
} from "@/lib/http/dashboard/learning-actions.ts";
import { performAction } from "@/lib/http/dashboard/perform-action.ts";

// Each is a public POST endpoint: performAction checks the caller's session every time, and the
// action scopes every read and write to the caller (shared learnings: admins only).

export async function updateLearningProfile(_previous: ActionState, formData: FormData): Promise<ActionState> {
  return performAction(updateLearningProfileAction, formData);
}

export async function updateLearningMemory(_previous: ActionState, formData: FormData): Promise<ActionState> {
  return performAction(updateLearningMemoryAction, formData);
}

export async function deleteLearningMemory(_previous: ActionState, formData: FormData): Promise<ActionState> {
  return performAction(deleteLearningMemoryAction, formData);
}

export async function updateLearningContent(_previous: ActionState, formData: FormData): Promise<ActionState> {
  return performAction(updateLearningContentAction, formData);
}

export async function deleteLearning(_previous: ActionState, formData: FormData): Promise<ActionState> {
  return performAction(deleteLearningAction, formData);
}

export async function forgetEverything(_previous: ActionState, formData: FormData): Promise<ActionState> {
  return performAction(forgetEverythingAction, formData);
}
