import { createMemory, deleteMemory, updateMemory } from "@/app/dashboard/_actions/memories.ts";
import { FilterInput, FilterSelect, ListFilters, ListProblems } from "@/components/dashboard/list-filters.tsx";
import { MemoryAddForm } from "@/components/dashboard/memories/memory-add-form.tsx";
import { MEMORY_SORTS, type MemoryRow } from "@/components/dashboard/memories/memory-row.ts";
import { MemoryTable } from "@/components/dashboard/memories/memory-table.tsx";
import { listMemoryPage, type MemoryListSort } from "@/lib/db/memories/memory-list.ts";
import { listMemoryTopics } from "@/lib/db/memories/memory-stats.ts";
import { requireDashboardSession } from "@/lib/http/dashboard/current-user.ts";
import { allParams, firstParam, listScope, pagingFrom, type SearchParams } from "@/lib/http/dashboard/list-params.ts";
import { loadList } from "@/lib/http/dashboard/load-list.ts";
import { userLabels } from "@/lib/http/dashboard/user-labels.ts";
import { Section } from "@/components/dashboard/section.tsx";

export const dynamic = "force-dynamic";

const PATH = "/dashboard/memories";

/**
 * The signed-in user's memories (an admin's: everyone's, or one user's with `?user=`), filtered by
 * topic (`?topic=`) and text (`?q=`), sorted and keyset-paginated through the URL.
 */
export default async function MemoriesPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const { db, principal, user: me } = await requireDashboardSession();
  const params = await searchParams;
  const isAdmin = principal.isAdmin;
  // A member's scope is its own whatever the URL says; only an admin's user filter means anything.
  const scope = listScope(principal, params);
  const userFilter = isAdmin ? firstParam(params, "user") : undefined;
  const paging = pagingFrom(params, MEMORY_SORTS, "updated_at");
  const problems = [...paging.problems];
  const search = firstParam(params, "q")?.trim() || undefined;
  const topics = allParams(params, "topic");
  const [page, allTopics, labels] = await Promise.all([
    loadList(
      (cursor) => listMemoryPage(db, { scope, topics, search, sortBy: paging.sort as MemoryListSort, order: paging.order, limit: paging.limit, ...cursor }),
      { after: paging.after, before: paging.before },
      problems,
    ),
    listMemoryTopics(db, { scope }),
    userLabels(db, principal),
  ]);
  // loadList answers an unreadable cursor with the first page (and says so).
  const pageNumber = problems.length > paging.problems.length ? 1 : paging.page;
  const rows: MemoryRow[] = page.rows.map((memory) => ({
    ...memory,
    owner: memory.user_id === null ? null : memory.user_id === me.id ? me.email : (labels.get(memory.user_id) ?? memory.user_id),
  }));
  const filtered = Boolean(search || topics.length > 0 || userFilter);
  const people = [
    ...[...labels].map(([id, email]) => ({ id, label: id === me.id ? `${email} (you)` : email })),
    // A user the filter names who has no dashboard account (an API caller) can be chosen too.
    ...(userFilter && !labels.has(userFilter) ? [{ id: userFilter, label: userFilter }] : []),
  ];

  return (
    <main className="mx-auto max-w-6xl p-4 md:p-6">
      <h1 className="mb-1 text-2xl font-semibold">Memories</h1>
      <p className="mb-6 text-sm text-slate-600 dark:text-slate-400">
        {isAdmin
          ? userFilter
            ? `What agents remember about ${labels.get(userFilter) ?? userFilter}.`
            : "What agents remember about everyone (you are an admin)."
          : "What agents remember about you. Only you (and admins) can see these."}
      </p>

      <Section id="add-memory" title="Add a memory">
        <MemoryAddForm action={createMemory} owners={isAdmin ? { options: people, selected: userFilter ?? me.id } : undefined} />
      </Section>

      <ListProblems problems={problems} />
      <ListFilters action={PATH} sort={firstParam(params, "sort")} order={firstParam(params, "order")}>
        <FilterInput label="Text contains" name="q" value={search} placeholder="e.g. tea" />
        {/* A topic in the URL that no memory has any more stays listed, so the form shows the filter that is on. */}
        <FilterSelect label="Topic" name="topic" value={topics[0]} options={[...new Set([...allTopics, ...topics])].map((t) => ({ value: t, label: t }))} />
        {isAdmin && <FilterSelect label="User" name="user" value={userFilter} options={people.map((p) => ({ value: p.id, label: p.label }))} />}
      </ListFilters>

      <MemoryTable
        rows={rows}
        showOwner={isAdmin}
        sort={{ field: paging.sort as MemoryListSort, order: paging.order }}
        page={{ next: page.next, prev: page.prev, total: page.total, page: pageNumber }}
        empty={filtered ? "No memories match these filters." : "No memories yet. Agents save what they learn as they talk with you; you can also add one above."}
        actions={{ update: updateMemory, remove: deleteMemory }}
      />
    </main>
  );
}
