import "server-only";
import { revalidatePath } from "next/cache";
import { getDatabase, getSettings } from "../../server/app-context.ts";
import type { ActionState, DashboardAction } from "./action.ts";
import { currentDashboardSession, dashboardOrigin } from "./current-user.ts";

/**
 * Runs a dashboard action as the signed-in user of this request (checked against the database
 * now, not when the page rendered), then re-renders the page it changed.
 */
export async function performAction(action: DashboardAction, formData: FormData): Promise<ActionState> {
  const settings = getSettings();
  const session = await currentDashboardSession();
  const result = await action.run({
    principal: session?.principal ?? null,
    formData,
    db: await getDatabase(settings),
    settings,
    origin: await dashboardOrigin(settings),
  });
  if (result.ok && action.revalidate) revalidatePath(action.revalidate);
  return result;
}
