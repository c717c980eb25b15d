"use server";

import type { ActionState } from "@/lib/http/dashboard/action.ts";
import { refreshMetricsAction } from "@/lib/http/dashboard/metrics-actions.ts";
import { performAction } from "@/lib/http/dashboard/perform-action.ts";

export async function refreshMetrics(_previous: ActionState, formData: FormData): Promise<ActionState> {
  return performAction(refreshMetricsAction, formData);
}
