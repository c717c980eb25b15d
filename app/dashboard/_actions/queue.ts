"use server";

import type { ActionState } from "@/lib/http/dashboard/action.ts";
import { performAction } from "@/lib/http/dashboard/perform-action.ts";
import { requeueJobAction } from "@/lib/http/dashboard/queue-actions.ts";

export async function requeueJob(_previous: ActionState, formData: FormData): Promise<ActionState> {
  return performAction(requeueJobAction, formData);
}
