"use client";

import { useState, type ReactNode } from "react";
import { formatTime } from "@/components/dashboard/format.ts";
import { JsonView } from "@/components/dashboard/json-view.tsx";
import { textInput } from "@/components/dashboard/form-field.tsx";
import type { LearningItem } from "@/lib/http/dashboard/learnings-view.ts";
import type { LearningActions } from "./learning-actions.ts";
import { ConfirmDelete, EditForm, EditInput, JsonEditor, smallButton } from "./learning-controls.tsx";

/** Props every card takes: the learning, the page's actions, and whether whose it is matters (an admin's view of everyone). */
interface CardProps {
  item: LearningItem;
  actions: LearningActions;
  showOwner: boolean;
}

const text = (value: unknown): string | null => (typeof value === "string" && value.trim() ? value : null);
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const record = (value: unknown): Record<string, unknown> => (value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {});
const short = (value: string, max = 40) => (value.length > max ? `${value.slice(0, max)}…` : value);

/** Content fields the stores keep for bookkeeping: not shown as what was learned. */
const BOOKKEEPING = new Set(["user_id", "agent_id", "team_id", "session_id", "created_at", "updated_at", "namespace", "id"]);

/** One learning, shown the way its kind reads best; anything the page does not know is shown as JSON. */
export function LearningCard(props: CardProps) {
  switch (props.item.learningType) {
    case "user_profile":
      return <ProfileCard {...props} />;
    case "user_memory":
      return <MemoriesCard {...props} />;
    case "entity_memory":
      return <EntityCard {...props} />;
    case "decision_log":
      return <DecisionCard {...props} />;
    case "session_context":
      return <SessionContextCard {...props} />;
    default:
      return (
        <JsonCard {...props} kind={props.item.learningType} title={props.item.learningId}>
          <JsonView value={props.item.content} label="Content" />
        </JsonCard>
      );
  }
}

/** A card's frame: what kind of learning, its title, whose (admins), when it changed, and its buttons. */
function CardFrame({
  item,
  kind,
  title,
  showOwner,
  badges,
  buttons,
  children,
}: {
  item: LearningItem;
  kind: string;
  title: ReactNode;
  showOwner: boolean;
  badges?: ReactNode;
  buttons?: ReactNode;
  children: ReactNode;
}) {
  return (
    <article data-testid={`learning-${item.learningType}`} data-learning-id={item.learningId} className="rounded border border-slate-200 p-3 dark:border-slate-800">
      <header className="flex items-start justify-between gap-2">
        <div className="min-w-0 flex-1">
          <p className="text-xs font-medium tracking-wide text-slate-500 uppercase">{kind}</p>
          <h4 className="font-medium break-words">{title}</h4>
          <p className="flex flex-wrap items-center gap-x-2 gap-y-1 text-xs text-slate-500">
            {showOwner && <span>{item.owner === null ? "shared" : `about ${item.owner}`}</span>}
            <span>
              updated <time dateTime={new Date((item.updatedAt ?? item.createdAt) * 1000).toISOString()}>{formatTime(item.updatedAt ?? item.createdAt)}</time> UTC
            </span>
            {badges}
            {!item.editable && <span className="rounded bg-slate-100 px-1.5 py-0.5 text-slate-700 dark:bg-slate-800 dark:text-slate-300">read-only</span>}
          </p>
        </div>
        {item.editable && buttons && <div className="flex shrink-0 flex-wrap items-start justify-end gap-2">{buttons}</div>}
      </header>
      <div className="mt-2 text-sm">{children}</div>
    </article>
  );
}

/** A card whose content is edited as JSON (entities, decisions, session contexts, unknown kinds). */
function JsonCard({ item, actions, showOwner, kind, title, badges, children }: CardProps & { kind: string; title: ReactNode; badges?: ReactNode; children: ReactNode }) {
  const [editing, setEditing] = useState(false);
  const what = `the ${kind.toLowerCase()} “${short(typeof title === "string" ? title : item.learningId)}”`;
  return (
    <CardFrame
      item={item}
      kind={kind}
      title={title}
      showOwner={showOwner}
      badges={badges}
      buttons={
        <>
          <button type="button" className={smallButton} disabled={editing} onClick={() => setEditing(true)} aria-label={`Edit ${what}`}>
            Edit
          </button>
          <ConfirmDelete action={actions.remove} fields={{ learningId: item.learningId }} what={what} />
        </>
      }
    >
      {editing ? (
        <EditForm action={actions.updateContent} fields={{ learningId: item.learningId, version: item.version }} label={`Edit ${what}`} onDone={() => setEditing(false)}>
          <JsonEditor value={item.content} />
        </EditForm>
      ) : (
        children
      )}
    </CardFrame>
  );
}

/** Extra fields of a content (custom profile fields, an entity's properties) as a definition list. */
function Fields({ entries }: { entries: [string, unknown][] }) {
  if (entries.length === 0) return null;
  return (
    <dl className="grid grid-cols-[max-content_1fr] gap-x-3 gap-y-1">
      {entries.map(([key, value]) => (
        <div key={key} className="contents">
          <dt className="text-slate-500">{key.replace(/_/g, " ")}</dt>
          <dd className="break-words">{typeof value === "string" ? value : JSON.stringify(value)}</dd>
        </div>
      ))}
    </dl>
  );
}

function ProfileCard({ item, actions, showOwner }: CardProps) {
  const [editing, setEditing] = useState(false);
  const name = text(item.content.name);
  const preferred = text(item.content.preferred_name);
  const custom = Object.entries(item.content).filter(([key, value]) => !BOOKKEEPING.has(key) && key !== "name" && key !== "preferred_name" && value !== null && value !== "");
  return (
    <CardFrame
      item={item}
      kind="Profile"
      title={name ?? preferred ?? "No name yet"}
      showOwner={showOwner}
      buttons={
        <>
          <button type="button" className={smallButton} disabled={editing} onClick={() => setEditing(true)} aria-label="Edit the profile">
            Edit
          </button>
          <ConfirmDelete action={actions.remove} fields={{ learningId: item.learningId }} what="the profile" />
        </>
      }
    >
      {editing ? (
        <EditForm action={actions.updateProfile} fields={{ learningId: item.learningId, version: item.version }} label="Edit the profile" onDone={() => setEditing(false)}>
          <div className="grid gap-2 sm:grid-cols-2">
            <EditInput label="Name" name="name" defaultValue={name ?? ""} />
            <EditInput label="Preferred name" name="preferred_name" defaultValue={preferred ?? ""} />
          </div>
        </EditForm>
      ) : (
        <Fields entries={[["name", name ?? "—"], ["preferred_name", preferred ?? "—"], ...custom]} />
      )}
    </CardFrame>
  );
}

type Memory = { id: string; content: string; created_at?: string; added_by_agent?: string; added_by_team?: string };

function MemoriesCard({ item, actions, showOwner }: CardProps) {
  const memories = list(item.content.memories)
    .map(record)
    .filter((m): m is Memory => typeof m.content === "string");
  return (
    <CardFrame
      item={item}
      kind="Memories"
      title={`${memories.length} ${memories.length === 1 ? "memory" : "memories"}`}
      showOwner={showOwner}
      buttons={<ConfirmDelete action={actions.remove} fields={{ learningId: item.learningId }} what="all these memories" label="Delete all" question="Delete every memory here?" />}
    >
      {memories.length === 0 ? (
        <p className="text-slate-500">None.</p>
      ) : (
        <ul aria-label="Memories" className="divide-y divide-slate-100 dark:divide-slate-800">
          {memories.map((memory) => (
            <MemoryLine key={memory.id} memory={memory} item={item} actions={actions} />
          ))}
        </ul>
      )}
    </CardFrame>
  );
}

function MemoryLine({ memory, item, actions }: { memory: Memory; item: LearningItem; actions: LearningActions }) {
  const [editing, setEditing] = useState(false);
  const what = `the memory “${short(memory.content)}”`;
  const source = memory.added_by_agent ?? memory.added_by_team;
  return (
    <li data-testid="learning-memory" className="py-1.5">
      {editing ? (
        <EditForm action={actions.updateMemory} fields={{ learningId: item.learningId, version: item.version, memoryId: String(memory.id) }} label={`Edit ${what}`} onDone={() => setEditing(false)}>
          <textarea name="memory" aria-label="Memory text" required rows={2} defaultValue={memory.content} className={textInput} />
        </EditForm>
      ) : (
        <div className="flex flex-wrap items-start justify-between gap-2">
          <p className="min-w-0 flex-1 break-words whitespace-pre-wrap">
            {memory.content}
            {source && <span className="ml-2 text-xs text-slate-500">by {source}</span>}
          </p>
          {item.editable && (
            <div className="flex gap-2">
              <button type="button" className={smallButton} onClick={() => setEditing(true)} aria-label={`Edit ${what}`}>
                Edit
              </button>
              <ConfirmDelete action={actions.deleteMemory} fields={{ learningId: item.learningId, memoryId: String(memory.id) }} what={what} />
            </div>
          )}
        </div>
      )}
    </li>
  );
}

/** A titled list inside a card; nothing when it is empty. */
function Listed({ title, items }: { title: string; items: ReactNode[] }) {
  if (items.length === 0) return null;
  return (
    <div className="mt-2">
      <h5 className="text-xs font-medium text-slate-500">{title}</h5>
      <ul className="list-disc pl-5">
        {items.map((entry, index) => (
          // The items are a stored list shown as it is, never reordered: the index is their identity.
          <li key={index} className="break-words">
            {entry}
          </li>
        ))}
      </ul>
    </div>
  );
}

function EntityCard(props: CardProps) {
  const { content, namespace } = props.item;
  const name = text(content.name) ?? props.item.entityId ?? props.item.learningId;
  const type = text(content.entity_type) ?? props.item.entityType ?? "entity";
  const properties = Object.entries(record(content.properties));
  const aliases = list(content.aliases).filter((a): a is string => typeof a === "string");
  return (
    <JsonCard
      {...props}
      kind="Entity"
      title={name}
      badges={
        <>
          <span className="rounded bg-sky-100 px-1.5 py-0.5 text-sky-900 dark:bg-sky-900 dark:text-sky-100">{type}</span>
          {namespace && <span className="rounded bg-slate-100 px-1.5 py-0.5 text-slate-700 dark:bg-slate-800 dark:text-slate-300">namespace {namespace}</span>}
          {text(content.archived_at) && <span className="rounded bg-amber-100 px-1.5 py-0.5 text-amber-900 dark:bg-amber-900 dark:text-amber-100">forgotten by the agent</span>}
        </>
      }
    >
      {text(content.description) && <p>{text(content.description)}</p>}
      {aliases.length > 0 && <p className="text-slate-500">Also known as {aliases.join(", ")}</p>}
      <Fields entries={properties} />
      <Listed title="Facts" items={list(content.facts).map((f) => text(record(f).content) ?? JSON.stringify(f))} />
      <Listed
        title="Events"
        items={list(content.events).map((e) => {
          const event = record(e);
          return `${text(event.date) ? `${text(event.date)}: ` : ""}${text(event.content) ?? JSON.stringify(e)}`;
        })}
      />
      <Listed
        title="Relationships"
        items={list(content.relationships).map((r) => {
          const rel = record(r);
          return rel.direction === "incoming" ? `${String(rel.entity_id)} ${String(rel.relation)} this` : `${String(rel.relation)} ${String(rel.entity_id)}`;
        })}
      />
    </JsonCard>
  );
}

function DecisionCard(props: CardProps) {
  const { content } = props.item;
  const decision = text(content.decision) ?? props.item.learningId;
  const outcome = text(content.outcome);
  const quality = text(content.outcome_quality);
  return (
    <JsonCard {...props} kind="Decision" title={decision} badges={text(content.decision_type) && <span>{text(content.decision_type)}</span>}>
      <Fields
        entries={[
          ...(text(content.reasoning) ? [["reasoning", content.reasoning] as [string, unknown]] : []),
          ...(text(content.context) ? [["context", content.context] as [string, unknown]] : []),
          ["outcome", outcome ? `${outcome}${quality ? ` (${quality})` : ""}` : "not recorded yet"],
          ...(typeof content.confidence === "number" ? [["confidence", String(content.confidence)] as [string, unknown]] : []),
        ]}
      />
      <Listed title="Alternatives" items={list(content.alternatives).map(String)} />
      {list(content.tags).length > 0 && <p className="mt-2 text-xs text-slate-500">Tags: {list(content.tags).map(String).join(", ")}</p>}
    </JsonCard>
  );
}

function SessionContextCard(props: CardProps) {
  const { content, sessionId } = props.item;
  const session = sessionId ?? text(content.session_id);
  return (
    <JsonCard
      {...props}
      kind="Session context"
      title={text(content.summary) ? short(text(content.summary)!, 80) : "No summary yet"}
      badges={
        session && (
          <a href={`/dashboard/sessions/${encodeURIComponent(session)}`} className="underline hover:text-slate-900 dark:hover:text-slate-100">
            session {short(session, 12)}
          </a>
        )
      }
    >
      <Fields entries={[...(text(content.summary) ? [["summary", content.summary] as [string, unknown]] : []), ...(text(content.goal) ? [["goal", content.goal] as [string, unknown]] : [])]} />
      <Listed title="Plan" items={list(content.plan).map(String)} />
      <Listed title="Progress" items={list(content.progress).map(String)} />
    </JsonCard>
  );
}
