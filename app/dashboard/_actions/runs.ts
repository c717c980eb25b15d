"use server";

import type { ActionState } from "@/lib/http/dashboard/action.ts";
import { performAction } from "@/lib/http/dashboard/perform-action.ts";
import { cancelRunAction } from "@/lib/http/dashboard/run-actions.ts";

export async function cancelRun(_previous: ActionState, formData: FormData): Promise<ActionState> {
  return performAction(cancelRunAction, formData);
}
