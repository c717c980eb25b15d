"use client";

import Link from "next/link";
import { usePathname, useSearchParams } from "next/navigation";
import { useActionState, useState } from "react";
import { hrefWith } from "@/components/dashboard/table/url-state.ts";
import { ActionResult } from "@/components/dashboard/users/action-result.tsx";
import { IDLE_STATE } from "@/components/dashboard/users/user-action-types.ts";
import type { ActionState } from "@/lib/http/dashboard/action.ts";
import type { MemoryRow } from "./memory-row.ts";
import { useMemoryTable } from "./memory-table-context.ts";

const small = "rounded border border-slate-300 px-2 py-1 text-xs hover:bg-slate-50 disabled:opacity-60 dark:border-slate-700 dark:hover:bg-slate-800";
const chipOff = "bg-slate-100 text-slate-700 hover:bg-slate-200 dark:bg-slate-800 dark:text-slate-200 dark:hover:bg-slate-700";
const chipOn = "bg-slate-800 text-white dark:bg-slate-200 dark:text-slate-900";
const field = "w-full rounded border border-slate-300 bg-white px-2 py-1 text-sm dark:border-slate-700 dark:bg-slate-950";

/** A filter link that keeps the page's other filters and starts again from the first page. */
function useFilterHref(): (changes: Record<string, string | undefined>) => string {
  const pathname = usePathname();
  const search = useSearchParams();
  return (changes) => hrefWith(pathname, search, { ...changes, after: undefined, before: undefined, page: undefined });
}

/** The memory's text, or — while its row is being edited — the form that changes text and topics. */
export function MemoryTextCell({ memory }: { memory: MemoryRow }) {
  const { editing, update, setEditing } = useMemoryTable();
  const [state, formAction, pending] = useActionState(async (previous: ActionState, formData: FormData) => {
    const result = await update(previous, formData);
    if (result.ok) setEditing(null);
    return result;
  }, IDLE_STATE);
  if (editing !== memory.memory_id) return <p className="max-w-xl min-w-48 break-words whitespace-pre-wrap">{memory.memory}</p>;
  return (
    <form action={formAction} className="max-w-xl min-w-64 space-y-2" aria-label="Edit memory">
      <input type="hidden" name="memoryId" value={memory.memory_id} />
      <textarea name="memory" aria-label="Memory text" required rows={3} defaultValue={memory.memory} className={field} />
      <input name="topics" aria-label="Topics (comma-separated)" defaultValue={memory.topics.join(", ")} placeholder="topics, comma-separated" className={field} />
      <div className="flex gap-2">
        <button type="submit" disabled={pending} className="rounded bg-slate-900 px-2 py-1 text-xs font-medium text-white hover:bg-slate-700 disabled:opacity-60 dark:bg-slate-100 dark:text-slate-900">
          {pending ? "Saving…" : "Save"}
        </button>
        <button type="button" className={small} onClick={() => setEditing(null)}>
          Cancel
        </button>
      </div>
      <ActionResult state={state} />
    </form>
  );
}

/** Topic chips; each filters the table to that topic. */
export function TopicChips({ topics }: { topics: string[] }) {
  const filterHref = useFilterHref();
  const current = useSearchParams().getAll("topic");
  if (topics.length === 0) return <span className="text-slate-400">—</span>;
  return (
    <ul className="flex max-w-56 flex-wrap gap-1" aria-label="Topics">
      {topics.map((topic) => (
        <li key={topic}>
          <Link
            href={filterHref({ topic })}
            title={`Only memories about ${topic}`}
            aria-current={current.includes(topic) ? "true" : undefined}
            className={`inline-block rounded-full px-2 py-0.5 text-xs ${current.includes(topic) ? chipOn : chipOff}`}
          >
            {topic}
          </Link>
        </li>
      ))}
    </ul>
  );
}

/** Whose memory (admins' view): a link that filters to that user. */
export function OwnerCell({ memory }: { memory: MemoryRow }) {
  const filterHref = useFilterHref();
  if (memory.user_id === null) return <span className="text-slate-500">shared</span>;
  return (
    <Link href={filterHref({ user: memory.user_id })} className="break-words hover:underline" title={`Only ${memory.owner}'s memories`}>
      {memory.owner}
    </Link>
  );
}

/** Edit, and delete behind a second, explicit click. */
export function MemoryRowActions({ memory }: { memory: MemoryRow }) {
  const { editing, setEditing, remove } = useMemoryTable();
  const [confirming, setConfirming] = useState(false);
  const [state, formAction, pending] = useActionState(remove, IDLE_STATE);
  const label = memory.memory.length > 40 ? `${memory.memory.slice(0, 40)}…` : memory.memory;
  return (
    <div className="min-w-32">
      {confirming ? (
        <form action={formAction} className="flex flex-wrap items-center gap-2">
          <input type="hidden" name="memoryId" value={memory.memory_id} />
          <span className="text-xs text-slate-600 dark:text-slate-400">Delete for good?</span>
          <button
            type="submit"
            disabled={pending}
            aria-label={`Confirm deleting the memory “${label}”`}
            className="rounded bg-red-700 px-2 py-1 text-xs font-medium text-white hover:bg-red-600 disabled:opacity-60"
          >
            {pending ? "Deleting…" : "Delete"}
          </button>
          <button type="button" className={small} onClick={() => setConfirming(false)}>
            Keep
          </button>
        </form>
      ) : (
        <div className="flex gap-2">
          <button type="button" className={small} disabled={editing === memory.memory_id} onClick={() => setEditing(memory.memory_id)} aria-label={`Edit the memory “${label}”`}>
            Edit
          </button>
          <button type="button" className={small} onClick={() => setConfirming(true)} aria-label={`Delete the memory “${label}”`}>
            Delete
          </button>
        </div>
      )}
      <ActionResult state={state} />
    </div>
  );
}
