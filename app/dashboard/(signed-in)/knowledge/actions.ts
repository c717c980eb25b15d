"use server";

import type { ActionState } from "@/lib/http/dashboard/action.ts";
import { deleteContentAction, searchKnowledgeAction, submitContentAction, type ContentFormState, type SearchState } from "@/lib/http/dashboard/knowledge-actions.ts";
import { performAction } from "@/lib/http/dashboard/perform-action.ts";

// Each is a public POST endpoint: performAction checks the caller's session every time, and the
// action scopes every read and write to the caller. The add and search actions answer more than
// ActionState (the field a refusal is about, the hits): their handlers return those shapes, which
// performAction passes through unchanged.

export async function submitContent(_previous: ContentFormState, formData: FormData): Promise<ContentFormState> {
  return (await performAction(submitContentAction, formData)) as ContentFormState;
}

export async function deleteContent(_previous: ActionState, formData: FormData): Promise<ActionState> {
  return performAction(deleteContentAction, formData);
}

export async function searchKnowledge(_previous: SearchState, formData: FormData): Promise<SearchState> {
  return (await performAction(searchKnowledgeAction, formData)) as SearchState;
}
