import type { ActionState } from "@/lib/http/dashboard/action.ts";

/** A server action as the user-management forms receive it from the page. */
export type UserAction = (previous: ActionState, formData: FormData) => Promise<ActionState>;

export const IDLE_STATE: ActionState = { ok: null };
