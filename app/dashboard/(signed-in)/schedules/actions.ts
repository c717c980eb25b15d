"use server";

import type { ActionState } from "@/lib/http/dashboard/action.ts";
import { performAction } from "@/lib/http/dashboard/perform-action.ts";
import { createScheduleAction, deleteScheduleAction, disableScheduleAction, enableScheduleAction, triggerScheduleAction, updateScheduleAction } from "@/lib/http/dashboard/schedule-actions.ts";

// Each is a public POST endpoint: performAction checks the caller's session every time, and the
// action scopes every read and write to the caller.

export async function createSchedule(_previous: ActionState, formData: FormData): Promise<ActionState> {
  return performAction(createScheduleAction, formData);
}

export async function updateSchedule(_previous: ActionState, formData: FormData): Promise<ActionState> {
  return performAction(updateScheduleAction, formData);
}

export async function enableSchedule(_previous: ActionState, formData: FormData): Promise<ActionState> {
  return performAction(enableScheduleAction, formData);
}

export async function disableSchedule(_previous: ActionState, formData: FormData): Promise<ActionState> {
  return performAction(disableScheduleAction, formData);
}

export async function triggerSchedule(_previous: ActionState, formData: FormData): Promise<ActionState> {
  return performAction(triggerScheduleAction, formData);
}

export async function deleteSchedule(_previous: ActionState, formData: FormData): Promise<ActionState> {
  return performAction(deleteScheduleAction, formData);
}
