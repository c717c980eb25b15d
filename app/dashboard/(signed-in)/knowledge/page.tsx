import Link from "next/link";
import { z } from "zod";
import { ContentAddForm } from "@/components/dashboard/knowledge/content-add-form.tsx";
import { contentRowOf } from "@/components/dashboard/knowledge/content-view.ts";
import { ContentsTable } from "@/components/dashboard/knowledge/contents-table.tsx";
import { KnowledgeSearch } from "@/components/dashboard/knowledge/knowledge-search.tsx";
import { ListBody, ListPage } from "@/components/dashboard/list/list-page.tsx";
import { Section } from "@/components/dashboard/section.tsx";
import { dataScopeFor } from "@/lib/auth/principal.ts";
import { CONTENT_LIST_SORTS, listContentPage } from "@/lib/db/knowledge/content-list.ts";
import { canChangeContent, CONTENT_STATUSES } from "@/lib/db/knowledge/contents.ts";
import { MAX_SEARCH_RESULTS } from "@/lib/http/dashboard/knowledge-actions.ts";
import { dashboardKnowledgeBase, knowledgeBaseChoices, knowledgeBaseView } from "@/lib/http/dashboard/knowledge-view.ts";
import { oneOf } from "@/lib/http/dashboard/list-filters.ts";
import { defineListPage, loadListPage, type ListPageProps } from "@/lib/http/dashboard/list-page.ts";
import { requireDashboardSession } from "@/lib/http/dashboard/current-user.ts";
import { firstParam } from "@/lib/http/dashboard/search-params.ts";
import { DEFAULT_MAX_RESULTS } from "@/lib/knowledge/knowledge-base.ts";
import { deleteContent, searchKnowledge, submitContent } from "./actions.ts";

export const dynamic = "force-dynamic";

const PATH = "/dashboard/knowledge";

const filters = z.object({ status: oneOf(CONTENT_STATUSES, { label: "Status" }) });

/** The contents linked to the knowledge base named `linkedTo`. */
const contentsOf = (linkedTo: string) =>
  defineListPage({
    path: PATH,
    filters,
    sorts: CONTENT_LIST_SORTS,
    query: ({ db, scope, filters: { status }, sort, page }) => listContentPage(db, { scope, linkedTo, status, sortBy: sort, ...page }),
  });

/**
 * A knowledge base's contents the signed-in user sees (a member: its own and the shared ones; an
 * admin: everyone's, or one user's and the shared ones with `?user=`), filtered by status, sorted
 * and keyset-paginated through the URL, followed live while any is processing; a form to add a
 * file, a URL or text, and a search playground. With several bases, `?base=` picks one.
 */
export default async function KnowledgePage({ searchParams }: ListPageProps) {
  const { db, principal, settings, user: me } = await requireDashboardSession();
  const choices = knowledgeBaseChoices(db, settings);
  const requestedBase = firstParam(await searchParams, "base");
  const named = dashboardKnowledgeBase(db, settings, requestedBase);
  // The configuration always holds at least one base (the default one when it names none).
  const base = named ?? dashboardKnowledgeBase(db, settings, undefined)!;
  const problems = named ? [] : [`there is no knowledge base "${requestedBase}"; showing ${choices[0]?.name ?? "the first one"}`];
  const list = await loadListPage(contentsOf(base.name), { searchParams, problems });
  const view = knowledgeBaseView(base);
  // Who may delete a row is decided with the caller's own scope, not the list's (an admin's `?user=` narrows what it sees, not what it may do).
  const ownScope = dataScopeFor(principal);
  const ownerLabel = (userId: string | null) => (userId === me.id ? `${me.email} (you)` : list.ownerLabel(userId));
  const rows = list.items.map((content) => contentRowOf(content, { ownerLabel, canDelete: canChangeContent(ownScope, content) }));

  return (
    <ListPage
      title="Knowledge"
      live={rows.some((r) => r.status === "processing")}
      description={
        list.isAdmin
          ? list.userFilter
            ? `The contents of ${list.userFilterLabel}, and the shared ones.`
            : "Everyone's contents (you are an admin). Agents search them to answer."
          : "Files, pages and text your agents search to answer: yours, and the shared ones admins added."
      }
    >
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
        <ContentAddForm action={submitContent} knowledgeId={base.id} shared={list.isAdmin} maxUploadBytes={settings.limits.maxUploadBytes} />
      </Section>

      <h2 className="mt-6 mb-2 text-lg font-medium">Contents</h2>
      <ListBody
        list={list}
        table={ContentsTable}
        tableProps={{ remove: deleteContent, knowledgeId: base.id }}
        rows={rows}
        hidden={choices.length > 1 ? { base: base.id } : {}}
        empty={{ filtered: "No contents match these filters.", none: "No contents yet. Add a file, a web page or some text above, and agents can search it." }}
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
    </ListPage>
  );
}
