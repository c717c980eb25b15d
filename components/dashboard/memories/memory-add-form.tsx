"use client";

import { textInput } from "@/components/dashboard/form-field.tsx";
import { useKeepingForm } from "@/components/dashboard/use-keeping-form.ts";
import { ActionResult } from "@/components/dashboard/users/action-result.tsx";
import { IDLE_STATE } from "@/components/dashboard/users/user-action-types.ts";
import type { MemoryAction } from "./memory-row.ts";

/**
 * Adds a memory: its text and comma-separated topics. Admins also choose whose memory it is
 * (`owners`); a member's is always its own, whatever the form says. What was typed survives a
 * refusal (the form is submitted by hand, not reset by React) and is cleared once it is saved.
 */
export function MemoryAddForm({ action, owners }: { action: MemoryAction; owners?: { options: { id: string; label: string }[]; selected: string } }) {
  const { ref, onSubmit, state, pending } = useKeepingForm(action, IDLE_STATE);
  return (
    <form ref={ref} onSubmit={onSubmit} className="grid gap-3 md:grid-cols-[1fr_16rem]">
      <div className="md:row-span-2">
        <label htmlFor="memory-text" className="mb-1 block text-sm font-medium">
          Memory
        </label>
        <textarea id="memory-text" name="memory" required rows={3} placeholder="Prefers answers in French" className={textInput} />
      </div>
      <div>
        <label htmlFor="memory-topics" className="mb-1 block text-sm font-medium">
          Topics <span className="font-normal text-slate-500">(comma-separated)</span>
        </label>
        <input id="memory-topics" name="topics" placeholder="language, preferences" className={textInput} />
      </div>
      {owners && (
        <div>
          <label htmlFor="memory-user" className="mb-1 block text-sm font-medium">
            For user
          </label>
          <select id="memory-user" name="userId" defaultValue={owners.selected} className={textInput}>
            {owners.options.map((owner) => (
              <option key={owner.id} value={owner.id}>
                {owner.label}
              </option>
            ))}
          </select>
        </div>
      )}
      <div className="flex items-center gap-3 md:col-span-2">
        <button type="submit" disabled={pending} className="h-9 rounded bg-slate-900 px-3 text-sm font-medium text-white hover:bg-slate-700 disabled:opacity-60 dark:bg-slate-100 dark:text-slate-900">
          {pending ? "Adding…" : "Add memory"}
        </button>
        <ActionResult state={state} />
      </div>
    </form>
  );
}
