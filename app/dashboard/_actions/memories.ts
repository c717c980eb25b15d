"use server";

import type { ActionState } from "@/lib/http/dashboard/action.ts";
import { createMemoryAction, deleteMemoryAction, updateMemoryAction } from "@/lib/http/dashboard/memory-actions.ts";
import { performAction } from "@/lib/http/dashboard/perform-action.ts";

// Each is a public POST endpoint: performAction checks the caller's session every time, and the
// action scopes every read and write to the caller.

export async function createMemory(_previous: ActionState, formData: FormData): Promise<ActionState> {
  return performAction(createMemoryAction, formData);
}

export async function updateMemory(_previous: ActionState, formData: FormData): Promise<ActionState> {
  return performAction(updateMemoryAction, formData);
}

export async function deleteMemory(_previous: ActionState, formData: FormData): Promise<ActionState> {
  return performAction(deleteMemoryAction, formData);
}
