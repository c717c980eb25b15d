import Link from "next/link";
import { ContentAddForm } from "@/components/dashboard/knowledge/content-add-form.tsx";
import { contentRowOf } from "@/components/dashboard/knowledge/content-view.ts";
import { ContentsTable } from "@/components/dashboard/knowledge/contents-table.tsx";
import { KnowledgeSearch } from "@/components/dashboard/knowledge/knowledge-search.tsx";
import { FilterSelect, ListFilters, ListProblems, UserFilter } from "@/components/dashboard/list-filters.tsx";
import { LiveRefresh } from "@/components/dashboard/live-refresh.tsx";
import { Section } from "@/components/dashboard/section.tsx";
import { dataScopeFor } from "@/lib/auth/principal.ts";
import { CONTENT_LIST_SORTS, listContentPage, type ContentListSort } from "@/lib/db/knowledge/content-list.ts";
import { canChangeContent, CONTENT_STATUSES, type ContentStatus } from "@/lib/db/knowledge/contents.ts";
import { requireDashboardSession } from "@/lib/http/dashboard/current-user.ts";
import { MAX_SEARCH_RESULTS } from "@/lib/http/dashboard/knowledge-actions.ts";
import { dashboardKnowledgeBase, knowledgeBaseChoices, knowledgeBaseView } from "@/lib/http/dashboard/knowledge-view.ts";
import { firstParam, listScope, pagingFrom, type SearchParams } from "@/lib/http/dashboard/list-params.ts";
import { loadList } from "@/lib/http/dashboard/load-list.ts";
import { labelOf, userLabels } from "@/lib/http/dashboard/user-labels.ts";
import { DEFAULT_MAX_RESULTS } from "@/lib/knowledge/knowledge-base.ts";
import { deleteContent, searchKnowledge, submitContent } from "./actions.ts";

export const dynamic = "force-dynamic";

const PATH = "/dashboard/knowledge";

/**
 * A knowledge base's contents the signed-in user sees (a member: its own and the shared ones; an
 * admin: everyone's, or one user's and the shared ones with `?user=`), filtered by status, sorted
 * and keyset-paginated through the URL, followed live while any is processing; a form to add a
 * file, a URL or text, and a search playground. With several bases, `?base=` picks one.
 */
export default async function KnowledgePage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const { db, principal, settings, user: me } = await requireDashboardSession();
  const params = await searchParams;
  const isAdmin = principal.isAdmin;
  const paging = pagingFrom(params, CONTENT_LIST_SORTS, "created_at");
  const problems = [...paging.problems];
  const choices = knowledgeBaseChoices(db, settings);
  const requestedBase = firstParam(params, "base") || undefined;
  const named = dashboardKnowledgeBase(db, settings, requestedBase);
  if (!named) problems.push(`there is no knowledge base "${requestedBase}"; showing ${choices[0]?.name ?? "the first one"}`);
  // The configuration always holds at least one base (the default one when it names none).
  const base = named ?? dashboardKnowledgeBase(db, settings, undefined)!;
  const view = knowledgeBaseView(base);
  const rawStatus = firstParam(params, "status");
  if (rawStatus && !(CONTENT_STATUSES as readonly string[]).includes(rawStatus)) problems.push(`status must be one of ${CONTENT_STATUSES.join(", ")}, got "${rawStatus}"`);
  const status = rawStatus && (CONTENT_STATUSES as readonly string[]).includes(rawStatus) ? (rawStatus as ContentStatus) : undefined;
  const userFilter = isAdmin ? firstParam(params, "user") : undefined;
  // Who may delete a row is decided with the caller's own scope, not the list's (an admin's `?user=` narrows what it sees, not what it may do).
  const ownScope = dataScopeFor(principal);
  const urlProblems = problems.length;
  const [page, labels] = await Promise.all([
    loadList(
      (cursor) =>
        listContentPage(db, {
          scope: listScope(principal, params),
          linkedTo: base.name,
          status,
          sortBy: paging.sort as ContentListSort,
          order: paging.order,
          limit: paging.limit,
          ...cursor,
        }),
      { after: paging.after, before: paging.before },
      problems,
    ),
    userLabels(db, principal),
  ]);
  // loadList answers an unreadable cursor with the first page (and says so).
  const pageNumber = problems.length > urlProblems ? 1 : paging.page;
  const ownerLabel = (userId: string | null) => (userId === me.id ? `${me.email} (you)` : labelOf(labels, userId));
  const rows = page.rows.map((content) => contentRowOf(content, { ownerLabel, canDelete: canChangeContent(ownScope, content) }));
  const live = rows.some((r) => r.status === "processing");
  const filtered = Boolean(status || userFilter);
  const baseQuery = choices.length > 1 ? { base: base.id } : {};

  return (
    <main className="mx-auto max-w-6xl p-4 md:p-6">
      <header className="mb-1 flex flex-wrap items-center gap-3">
        <h1 className="text-2xl font-semibold">Knowledge</h1>
        <LiveRefresh active={live} />
      </header>
      <p className="mb-4 text-sm text-slate-600 dark:text-slate-400">
        {isAdmin
          ? userFilter
            ? `The contents of ${labels.get(userFilter) ?? userFilter}, and the shared ones.`
            : "Everyone's contents (you are an admin). Agents search them to answer."
          : "Files, pages and text your agents search to answer: yours, and the shared ones admins added."}
      </p>

      {choices.length > 1 && (
        <nav aria-label="Knowledge bases" className="mb-4 flex flex-wrap items-center gap-2 text-sm">
          <span className="text-slate-600 dark:text-slate-400">Knowledge base:</span>
          {choices.map((choice) => (
            <Link
              key={choice.id}
              href={`${PATH}?base=${encodeURIComponent(choice.id)}`}
              aria-current={choice.id === base.id ? "page" : undefined}
              className={`rounded-full px-3 py-1 ${
                choice.id === base.id
                  ? "bg-slate-900 text-white dark:bg-slate-100 dark:text-slate-900"
                  : "bg-slate-100 text-slate-700 hover:bg-slate-200 dark:bg-slate-800 dark:text-slate-200 dark:hover:bg-slate-700"
              }`}
            >
              {choice.name}
            </Link>
          ))}
        </nav>
      )}
      <p className="mb-4 text-sm text-slate-600 dark:text-slate-400" data-testid="knowledge-base">
        {choices.length === 1 && (
          <>
            Knowledge base <span className="font-medium text-slate-900 dark:text-slate-100">{view.name}</span>
            {view.description && " · "}
          </>
        )}
        {view.description}
      </p>

      <Section id="add-content" title="Add content">
        <ContentAddForm action={submitContent} knowledgeId={base.id} shared={isAdmin} maxUploadBytes={settings.limits.maxUploadBytes} />
      </Section>

      <h2 className="mt-6 mb-2 text-lg font-medium">Contents</h2>
      <ListProblems problems={problems} />
      <ListFilters action={PATH} sort={firstParam(params, "sort")} order={firstParam(params, "order")}>
        {Object.entries(baseQuery).map(([name, value]) => (
          <input key={name} type="hidden" name={name} value={value} />
        ))}
        <FilterSelect label="Status" name="status" value={rawStatus} options={CONTENT_STATUSES.map((s) => ({ value: s, label: s }))} />
        {isAdmin && <UserFilter labels={labels} value={userFilter} />}
      </ListFilters>
      <ContentsTable
        rows={rows}
        showOwner={isAdmin}
        sort={{ field: paging.sort, order: paging.order }}
        page={{ next: page.next, prev: page.prev, total: page.total, page: pageNumber }}
        empty={filtered ? "No contents match these filters." : "No contents yet. Add a file, a web page or some text above, and agents can search it."}
        remove={deleteContent}
        knowledgeId={base.id}
      />

      <div className="mt-6">
        <Section id="search-knowledge" title="Search">
          <KnowledgeSearch
            action={searchKnowledge}
            knowledgeId={base.id}
            searchTypes={view.searchTypes}
            defaultSearchType={view.defaultSearchType}
            defaultMaxResults={Math.min(base.definition.maxResults ?? DEFAULT_MAX_RESULTS, MAX_SEARCH_RESULTS)}
            maxResults={MAX_SEARCH_RESULTS}
            listedContentIds={rows.map((r) => r.id)}
          />
        </Section>
      </div>
    </main>
  );
}
