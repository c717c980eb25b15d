import type { MemoryListItem, MemoryListSort } from "@/lib/db/memories/memory-list.ts";
import type { ActionState } from "@/lib/http/dashboard/action.ts";

/** A memory as the table shows it: the listed item and whose it is, said the way a person reads it. */
export interface MemoryRow extends MemoryListItem {
  /** The owner's email when they are a dashboard user, else their user id; null for a shared memory. */
  owner: string | null;
}

/** A server action as the memory forms receive it from the page. */
export type MemoryAction = (previous: ActionState, formData: FormData) => Promise<ActionState>;

/** The columns the server sorts on (lib/db/memories/memory-list.ts); also the table's sortable ids. */
export const MEMORY_SORTS: readonly MemoryListSort[] = ["updated_at", "created_at"];
