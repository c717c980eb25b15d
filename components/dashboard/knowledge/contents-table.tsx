"use client";

import { createColumnHelper } from "@tanstack/react-table";
import { createContext, useActionState, useContext, useMemo } from "react";
import { LocalTime } from "@/components/dashboard/schedules/local-time.tsx";
import { StatusBadge } from "@/components/dashboard/status-badge.tsx";
import { DataTable, type ListTableProps } from "@/components/dashboard/table/data-table.tsx";
import type { DashboardTableFeatures } from "@/components/dashboard/table/features.ts";
import { ActionResult } from "@/components/dashboard/users/action-result.tsx";
import { IDLE_STATE } from "@/components/dashboard/users/user-action-types.ts";
import { contentAnchor, formatBytes, type ContentRow, type KnowledgeAction } from "./content-view.ts";

/** The columns the server sorts on (lib/db/knowledge/content-list.ts); also the table's sortable ids. */
const SORTABLE = ["created_at", "name"] as const;

/** What the row cells share: the page's delete action and the knowledge base it acts on. */
const ContentsTableContext = createContext<{ remove: KnowledgeAction; knowledgeId: string; showUser: boolean } | null>(null);

function useContentsTable() {
  const state = useContext(ContentsTableContext);
  if (!state) throw new Error("content cells render inside ContentsTable");
  return state;
}

/** Deletes a content and its chunks after asking; the page re-renders without it. */
function DeleteContentButton({ row }: { row: ContentRow }) {
  const { remove, knowledgeId } = useContentsTable();
  const [state, formAction, pending] = useActionState(remove, IDLE_STATE);
  if (!row.canDelete) {
    return (
      <span className="text-xs text-slate-500" title="Shared contents are deleted by admins only">
        —
      </span>
    );
  }
  return (
    <form
      action={formAction}
      onSubmit={(event) => {
        if (!window.confirm(`Delete “${row.name}” and its chunks? Searches will no longer find it.`)) event.preventDefault();
      }}
    >
      <input type="hidden" name="knowledge_id" value={knowledgeId} />
      <input type="hidden" name="contentId" value={row.id} />
      <button
        type="submit"
        disabled={pending}
        aria-label={`Delete “${row.name}”`}
        className="rounded border border-red-300 px-2 py-1 text-xs text-red-700 hover:bg-red-50 disabled:opacity-60 dark:border-red-800 dark:text-red-300 dark:hover:bg-red-950"
      >
        {pending ? "Deleting…" : "Delete"}
      </button>
      {!state.ok && <ActionResult state={state} />}
    </form>
  );
}

/** A content's name and description; members see which rows are shared (admins read it in the User column). */
function NameCell({ content }: { content: ContentRow }) {
  const { showUser } = useContentsTable();
  return (
    <div id={contentAnchor(content.id)} className="max-w-md min-w-40 scroll-mt-4">
      <span className="font-medium break-words" data-testid="content-name">
        {content.name}
      </span>
      {content.shared && !showUser && <span className="ml-1.5 rounded bg-slate-100 px-1 py-0.5 align-middle text-[11px] text-slate-600 dark:bg-slate-800 dark:text-slate-300">shared</span>}
      {content.description && <p className="mt-0.5 text-xs break-words text-slate-500">{content.description}</p>}
    </div>
  );
}

const helper = createColumnHelper<DashboardTableFeatures, ContentRow>();

const nameColumn = helper.accessor("name", { header: "Name", cell: ({ row }) => <NameCell content={row.original} /> });
const typeColumn = helper.accessor("type", { header: "Type", cell: (info) => <span className="whitespace-nowrap">{info.getValue()}</span> });
const sizeColumn = helper.accessor("size", { header: "Size", cell: (info) => <span className="whitespace-nowrap tabular-nums">{formatBytes(info.getValue())}</span> });
const statusColumn = helper.accessor("status", {
  header: "Status",
  cell: ({ row }) => (
    <div className="max-w-xs min-w-44" data-testid="content-status">
      <StatusBadge status={row.original.status} />
      {row.original.message && (
        <p className="mt-1 text-xs break-words text-red-700 dark:text-red-300" data-testid="status-message">
          {row.original.message}
        </p>
      )}
    </div>
  ),
});
const ownerColumn = helper.accessor("owner", {
  header: "User",
  cell: (info) => (info.getValue() === null ? <span className="text-slate-500">shared</span> : <span className="break-words">{info.getValue()}</span>),
});
const createdColumn = helper.accessor((r) => r.created_at, { id: "created_at", header: "Created", cell: (info) => <LocalTime epoch={info.getValue()} /> });
const actionsColumn = helper.display({ id: "actions", header: () => <span className="sr-only">Actions</span>, cell: ({ row }) => <DeleteContentButton row={row.original} /> });

const MEMBER_COLUMNS = helper.columns([nameColumn, typeColumn, sizeColumn, statusColumn, createdColumn, actionsColumn]);
// Admins see everyone's contents, so whose each one is matters.
const ADMIN_COLUMNS = helper.columns([nameColumn, typeColumn, sizeColumn, statusColumn, ownerColumn, createdColumn, actionsColumn]);

/** A knowledge base's contents: server-sorted and keyset-paginated, each row deletable by who may. */
export function ContentsTable({ rows, showUser, sort, page, empty, remove, knowledgeId }: ListTableProps<ContentRow> & { remove: KnowledgeAction; knowledgeId: string }) {
  const shared = useMemo(() => ({ remove, knowledgeId, showUser }), [remove, knowledgeId, showUser]);
  return (
    <ContentsTableContext value={shared}>
      <DataTable
        columns={showUser ? ADMIN_COLUMNS : MEMBER_COLUMNS}
        rows={rows}
        rowId={(content) => content.id}
        sortable={SORTABLE}
        sort={sort}
        page={page}
        empty={empty}
        label="Knowledge contents"
        testId="contents-table"
      />
    </ContentsTableContext>
  );
}
