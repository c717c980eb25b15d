"use client";

import { createColumnHelper } from "@tanstack/react-table";
import { useMemo, useState } from "react";
import { formatTime } from "@/components/dashboard/format.ts";
import { DataTable, type ListTableProps } from "@/components/dashboard/table/data-table.tsx";
import type { DashboardTableFeatures } from "@/components/dashboard/table/features.ts";
import { MemoryRowActions, MemoryTextCell, OwnerCell, TopicChips } from "./memory-cells.tsx";
import { MEMORY_SORTS, type MemoryAction, type MemoryRow } from "./memory-row.ts";
import { MemoryTableContext } from "./memory-table-context.ts";

const helper = createColumnHelper<DashboardTableFeatures, MemoryRow>();
const time = (epochSeconds: number) => (
  <time dateTime={new Date(epochSeconds * 1000).toISOString()} className="whitespace-nowrap">
    {formatTime(epochSeconds)}
  </time>
);

const memoryColumn = helper.accessor("memory", { header: "Memory", cell: ({ row }) => <MemoryTextCell memory={row.original} /> });
const topicsColumn = helper.accessor("topics", { header: "Topics", cell: ({ row }) => <TopicChips topics={row.original.topics} /> });
const ownerColumn = helper.accessor("owner", { header: "User", cell: ({ row }) => <OwnerCell memory={row.original} /> });
const updatedColumn = helper.accessor("updated_at", { header: "Updated (UTC)", cell: ({ row }) => time(row.original.updated_at) });
const createdColumn = helper.accessor("created_at", { header: "Created (UTC)", cell: ({ row }) => time(row.original.created_at) });
const actionsColumn = helper.display({ id: "actions", header: "Actions", cell: ({ row }) => <MemoryRowActions memory={row.original} /> });

const MEMBER_COLUMNS = helper.columns([memoryColumn, topicsColumn, updatedColumn, createdColumn, actionsColumn]);
// Admins see everyone's memories, so whose each one is matters.
const ADMIN_COLUMNS = helper.columns([memoryColumn, topicsColumn, ownerColumn, updatedColumn, createdColumn, actionsColumn]);

/** The memories table: server-sorted and keyset-paginated, each row editable in place. */
export function MemoryTable({ rows, showUser, sort, page, empty, actions }: ListTableProps<MemoryRow> & { actions: { update: MemoryAction; remove: MemoryAction } }) {
  const [editing, setEditing] = useState<string | null>(null);
  const state = useMemo(() => ({ ...actions, editing, setEditing }), [actions, editing]);
  return (
    <MemoryTableContext value={state}>
      <DataTable
        columns={showUser ? ADMIN_COLUMNS : MEMBER_COLUMNS}
        rows={rows}
        rowId={(memory) => memory.memory_id}
        sortable={MEMORY_SORTS}
        sort={sort}
        page={page}
        empty={empty}
        label="Memories"
        testId="memories-table"
      />
    </MemoryTableContext>
  );
}
