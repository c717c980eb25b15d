import { z } from "zod";
import { createMemory, deleteMemory, updateMemory } from "@/app/dashboard/_actions/memories.ts";
import { ListBody, ListPage } from "@/components/dashboard/list/list-page.tsx";
import { MemoryAddForm } from "@/components/dashboard/memories/memory-add-form.tsx";
import { MEMORY_SORTS, type MemoryRow } from "@/components/dashboard/memories/memory-row.ts";
import { MemoryTable } from "@/components/dashboard/memories/memory-table.tsx";
import { Section } from "@/components/dashboard/section.tsx";
import { listMemoryPage } from "@/lib/db/memories/memory-list.ts";
import { listMemoryTopics } from "@/lib/db/memories/memory-stats.ts";
import { choices, text } from "@/lib/http/dashboard/list-filters.ts";
import { defineListPage, loadListPage, type ListPageProps } from "@/lib/http/dashboard/list-page.ts";

export const dynamic = "force-dynamic";

const memories = defineListPage({
  path: "/dashboard/memories",
  filters: z.object({
    q: text({ label: "Text contains", placeholder: "e.g. tea", trim: true }),
    topic: choices({ label: "Topic" }),
  }),
  sorts: MEMORY_SORTS,
  query: ({ db, scope, filters, sort, page }) => listMemoryPage(db, { scope, topics: filters.topic, search: filters.q, sortBy: sort, ...page }),
});

/**
 * The signed-in user's memories (an admin's: everyone's, or one user's with `?user=`), filtered by
 * topic (`?topic=`) and text (`?q=`), sorted and keyset-paginated through the URL.
 */
export default async function MemoriesPage({ searchParams }: ListPageProps) {
  const list = await loadListPage(memories, {
    searchParams,
    options: async ({ db, scope }) => ({ topic: (await listMemoryTopics(db, { scope })).map((t) => ({ value: t, label: t })) }),
  });
  const me = list.session.user;
  const rows: MemoryRow[] = list.items.map((memory) => ({ ...memory, owner: memory.user_id === me.id ? me.email : list.ownerLabel(memory.user_id) }));
  const people = [
    ...[...list.labels].map(([id, email]) => ({ id, label: id === me.id ? `${email} (you)` : email })),
    // A user the filter names who has no dashboard account (an API caller) can be chosen too.
    ...(list.userFilter && !list.labels.has(list.userFilter) ? [{ id: list.userFilter, label: list.userFilter }] : []),
  ];
  return (
    <ListPage
      title="Memories"
      description={
        list.isAdmin
          ? list.userFilter
            ? `What agents remember about ${list.userFilterLabel}.`
            : "What agents remember about everyone (you are an admin)."
          : "What agents remember about you. Only you (and admins) can see these."
      }
    >
      <Section id="add-memory" title="Add a memory">
        <MemoryAddForm action={createMemory} owners={list.isAdmin ? { options: people, selected: list.userFilter ?? me.id } : undefined} />
      </Section>
      <ListBody
        list={list}
        table={MemoryTable}
        tableProps={{ actions: { update: updateMemory, remove: deleteMemory } }}
        rows={rows}
        empty={{ filtered: "No memories match these filters.", none: "No memories yet. Agents save what they learn as they talk with you; you can also add one above." }}
      />
    </ListPage>
  );
}
