import Link from "next/link";
import { ListHeader } from "@/components/dashboard/list/list-page.tsx";
import { CodeComponentsTable, StudioTable } from "@/components/dashboard/studio/studio-list.tsx";
import { COMPONENT_TYPES, type ComponentType } from "@/lib/config/component-config.ts";
import { requireDashboardSession } from "@/lib/http/dashboard/current-user.ts";
import { firstParam, type SearchParams } from "@/lib/http/dashboard/search-params.ts";
import { loadStudioList } from "@/lib/http/dashboard/studio-view.ts";
import { userLabels } from "@/lib/http/dashboard/user-labels.ts";

export const dynamic = "force-dynamic";

const PATH = "/dashboard/studio";
const TABS: { type?: ComponentType; label: string }[] = [{ label: "All" }, { type: "agent", label: "Agents" }, { type: "team", label: "Teams" }, { type: "workflow", label: "Workflows" }];
const tabLink = "rounded px-2 py-1 text-sm";
const tabOn = "bg-slate-900 text-white dark:bg-slate-100 dark:text-slate-900";
const tabOff = "text-slate-700 hover:bg-slate-100 dark:text-slate-300 dark:hover:bg-slate-800";
const newLink = "rounded bg-slate-900 px-3 py-1.5 text-sm font-medium text-white hover:bg-slate-700 dark:bg-slate-100 dark:text-slate-900 dark:hover:bg-slate-300";

function hrefOf(query: { type?: ComponentType; archived?: boolean; page?: number }): string {
  const params = new URLSearchParams();
  if (query.type) params.set("type", query.type);
  if (query.archived) params.set("archived", "1");
  if (query.page && query.page > 1) params.set("page", String(query.page));
  const search = params.toString();
  return search ? `${PATH}?${search}` : PATH;
}

/**
 * Studio: the agents, teams and workflows made in the dashboard — the member's own (drafts
 * included) and the shared ones (published by anyone) — with their stage, current version and last
 * edit, newest first; `?type=` narrows to one kind, `?archived=1` shows the archived ones. The
 * ones defined in agentry.config.ts are listed under them, not editable here.
 */
export default async function StudioPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const { db, settings, principal } = await requireDashboardSession();
  const params = await searchParams;
  const typeParam = firstParam(params, "type");
  const type = COMPONENT_TYPES.find((t) => t === typeParam);
  const archived = firstParam(params, "archived") === "1";
  const pageParam = Number(firstParam(params, "page") ?? "1");
  const page = Number.isInteger(pageParam) && pageParam >= 1 && pageParam <= 100_000 ? pageParam : 1;
  const list = await loadStudioList(db, settings, principal, { type, archived, page, labels: await userLabels(db, principal) });
  const problems = [typeParam && !type ? `“${typeParam}” is not a component type (agent, team or workflow): showing all.` : null].filter((p): p is string => p !== null);

  return (
    <main className="mx-auto max-w-6xl p-4 md:p-6">
      <ListHeader
        title="Studio"
        description={
          principal.isAdmin
            ? "Everyone's agents, teams and workflows made in the dashboard (you are an admin). Drafts run only for their owner and admins; publishing makes a version the one everyone runs."
            : "Your agents, teams and workflows, and the ones others published. Drafts are yours alone; publishing shares the current version with everyone, who can run it but not change it."
        }
      />
      <div className="mb-4 flex flex-wrap items-center gap-2">
        <nav aria-label="Component types" className="flex flex-wrap gap-1">
          {TABS.map((tab) => (
            <Link key={tab.label} href={hrefOf({ type: tab.type, archived })} aria-current={tab.type === type ? "page" : undefined} className={`${tabLink} ${tab.type === type ? tabOn : tabOff}`}>
              {tab.label}
            </Link>
          ))}
          <Link href={hrefOf({ type, archived: !archived })} aria-current={archived ? "page" : undefined} className={`${tabLink} ${archived ? tabOn : tabOff}`}>
            Archived
          </Link>
        </nav>
        <div className="ml-auto flex flex-wrap gap-2">
          <Link href={`${PATH}/new?type=agent`} className={newLink}>
            New agent
          </Link>
          <Link href={`${PATH}/new?type=team`} className={newLink}>
            New team
          </Link>
          <Link href={`${PATH}/new?type=workflow`} className={newLink}>
            New workflow
          </Link>
        </div>
      </div>
      {problems.map((p) => (
        <p key={p} role="alert" className="mb-3 rounded border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-100">
          {p}
        </p>
      ))}
      <StudioTable rows={list.rows} empty={archived ? "Nothing is archived." : type ? `No ${type}s made in Studio yet.` : "Nothing made in Studio yet: start with a new agent."} />
      <nav aria-label="Studio pages" className="mt-3 flex items-center justify-between text-sm">
        <span className="text-slate-500">{list.total.toLocaleString("en")} in all</span>
        <span className="flex items-center gap-3">
          {list.page > 1 ? (
            <Link className="rounded border border-slate-300 px-2 py-1 hover:bg-slate-50 dark:border-slate-700 dark:hover:bg-slate-800" href={hrefOf({ type, archived, page: list.page - 1 })}>
              ← Previous
            </Link>
          ) : (
            <span className="rounded border border-slate-200 px-2 py-1 text-slate-400 dark:border-slate-800">← Previous</span>
          )}
          <span>
            Page {list.page} of {list.pages}
          </span>
          {list.page < list.pages ? (
            <Link className="rounded border border-slate-300 px-2 py-1 hover:bg-slate-50 dark:border-slate-700 dark:hover:bg-slate-800" href={hrefOf({ type, archived, page: list.page + 1 })}>
              Next →
            </Link>
          ) : (
            <span className="rounded border border-slate-200 px-2 py-1 text-slate-400 dark:border-slate-800">Next →</span>
          )}
        </span>
      </nav>
      {list.code.length > 0 && (
        <section aria-labelledby="code-heading" className="mt-8">
          <h2 id="code-heading" className="mb-1 text-lg font-medium">
            Defined in code
          </h2>
          <p className="mb-3 text-sm text-slate-600 dark:text-slate-400">
            These come from <code>agentry.config.ts</code>: run them from their playgrounds, name them as team members or workflow steps; they are changed in code, not here.
          </p>
          <CodeComponentsTable rows={list.code} />
        </section>
      )}
    </main>
  );
}
