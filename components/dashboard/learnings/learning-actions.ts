import type { ActionState } from "@/lib/http/dashboard/action.ts";

/** A server action as the learning forms receive it from the page. */
export type LearningAction = (previous: ActionState, formData: FormData) => Promise<ActionState>;

/** The page's server actions (app/dashboard/_actions/learnings.ts), handed to every card. */
export interface LearningActions {
  updateProfile: LearningAction;
  updateMemory: LearningAction;
  deleteMemory: LearningAction;
  updateContent: LearningAction;
  remove: LearningAction;
}
