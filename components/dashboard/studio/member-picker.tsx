"use client";

import { useState } from "react";
import type { StudioMemberChoice } from "@/lib/http/dashboard/studio-view.ts";
import { textInput } from "../form-field.tsx";
import type { MemberKey } from "./config-model.ts";
import { smallButton } from "./editor-shell.tsx";

/** A member or step choice's label: its name, id and where it is defined. */
export function memberLabel(choices: StudioMemberChoice[], key: string): string {
  const choice = choices.find((c) => `${c.type}:${c.id}` === key);
  if (!choice) return `${key.replace(":", " ")} (as saved)`;
  return `${choice.name} (${choice.type} ${choice.id}${choice.source === "code" ? ", in code" : ", Studio"})`;
}

/** A select of the agents and teams a team or step may name, grouped by kind; the saved value stays when it is no longer offered. */
export function MemberSelect({ id, value, onChange, choices, label }: { id?: string; value: string; onChange: (key: MemberKey) => void; choices: StudioMemberChoice[]; label: string }) {
  const groups: { title: string; items: StudioMemberChoice[] }[] = [
    { title: "Agents", items: choices.filter((c) => c.type === "agent") },
    { title: "Teams", items: choices.filter((c) => c.type === "team") },
  ];
  return (
    <select id={id} aria-label={label} value={value} onChange={(e) => onChange(e.target.value as MemberKey)} className={textInput}>
      <option value="">Choose an agent or team</option>
      {value && !choices.some((c) => `${c.type}:${c.id}` === value) && <option value={value}>{memberLabel(choices, value)}</option>}
      {groups.map((g) =>
        g.items.length === 0 ? null : (
          <optgroup key={g.title} label={g.title}>
            {g.items.map((c) => (
              <option key={`${c.type}:${c.id}`} value={`${c.type}:${c.id}`}>
                {memberLabel(choices, `${c.type}:${c.id}`)}
              </option>
            ))}
          </optgroup>
        ),
      )}
    </select>
  );
}

/** Move an item of a list up (-1) or down (+1). */
export function moved<T>(list: T[], index: number, by: -1 | 1): T[] {
  const to = index + by;
  if (to < 0 || to >= list.length) return list;
  const next = [...list];
  [next[index], next[to]] = [next[to]!, next[index]!];
  return next;
}

/** Up, down and remove for one entry of an ordered list. */
export function OrderButtons({ index, count, onMove, onRemove, what }: { index: number; count: number; onMove: (by: -1 | 1) => void; onRemove: () => void; what: string }) {
  return (
    <span className="flex shrink-0 gap-1">
      <button type="button" className={smallButton} disabled={index === 0} onClick={() => onMove(-1)} aria-label={`Move ${what} up`}>
        ↑
      </button>
      <button type="button" className={smallButton} disabled={index === count - 1} onClick={() => onMove(1)} aria-label={`Move ${what} down`}>
        ↓
      </button>
      <button type="button" className={smallButton} onClick={onRemove} aria-label={`Remove ${what}`}>
        Remove
      </button>
    </span>
  );
}

/** "Add": a select and a button appending the chosen agent or team. */
export function AddMember({ choices, onAdd, label }: { choices: StudioMemberChoice[]; onAdd: (key: MemberKey) => void; label: string }) {
  const [key, setKey] = useState<MemberKey | "">("");
  return (
    <div className="flex flex-wrap items-center gap-2">
      <div className="min-w-64 flex-1">
        <MemberSelect value={key} onChange={setKey} choices={choices} label={label} />
      </div>
      <button
        type="button"
        className="rounded border border-slate-300 px-3 py-2 text-sm hover:bg-slate-50 disabled:opacity-50 dark:border-slate-700 dark:hover:bg-slate-800"
        disabled={!key}
        onClick={() => {
          if (key) onAdd(key);
          setKey("");
        }}
      >
        Add
      </button>
    </div>
  );
}
