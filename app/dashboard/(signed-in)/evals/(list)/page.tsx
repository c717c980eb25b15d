import Link from "next/link";
import { EVAL_KIND_LABELS, evalRowOf } from "@/components/dashboard/evals/eval-view.ts";
import { EvalsTable } from "@/components/dashboard/evals/evals-table.tsx";
import { FilterInput, FilterSelect, ListFilters, ListProblems, UserFilter } from "@/components/dashboard/list-filters.tsx";
import { LiveRefresh } from "@/components/dashboard/live-refresh.tsx";
import { EVAL_LIST_SORTS, listEvalRunPage, type EvalListSort } from "@/lib/db/evals/eval-run-list.ts";
import { EVAL_TYPES, type EvalType } from "@/lib/db/evals/eval-runs.ts";
import { availableModels } from "@/lib/http/routes/core.ts";
import { requireDashboardSession } from "@/lib/http/dashboard/current-user.ts";
import { dayParam, firstParam, listScope, pagingFrom, type SearchParams } from "@/lib/http/dashboard/list-params.ts";
import { loadList } from "@/lib/http/dashboard/load-list.ts";
import { labelOf, userLabels } from "@/lib/http/dashboard/user-labels.ts";

export const dynamic = "force-dynamic";

const PATH = "/dashboard/evals";

/**
 * The signed-in user's eval runs (an admin's: everyone's, or one user's with `?user=`), filtered by
 * kind, agent, model and creation date, sorted and keyset-paginated through the URL; runs still
 * going refresh live.
 */
export default async function EvalsPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const { db, principal, settings } = await requireDashboardSession();
  const params = await searchParams;
  const isAdmin = principal.isAdmin;
  const paging = pagingFrom(params, EVAL_LIST_SORTS, "created_at");
  const problems = [...paging.problems];
  const rawKind = firstParam(params, "kind");
  if (rawKind && !(EVAL_TYPES as readonly string[]).includes(rawKind)) problems.push(`kind must be one of ${EVAL_TYPES.join(", ")}, got "${rawKind}"`);
  const kind = rawKind && (EVAL_TYPES as readonly string[]).includes(rawKind) ? (rawKind as EvalType) : undefined;
  const agentId = firstParam(params, "agent") || undefined;
  const modelId = firstParam(params, "model") || undefined;
  const createdFrom = dayParam(params, "from", problems);
  const createdTo = dayParam(params, "to", problems, { endOfDay: true });
  const userFilter = isAdmin ? firstParam(params, "user") : undefined;
  const labels = await userLabels(db, principal);
  const page = await loadList(
    (cursor) =>
      listEvalRunPage(db, {
        scope: listScope(principal, params),
        filters: { evalTypes: kind ? [kind] : undefined, agentId, modelId, createdFrom, createdTo },
        sortBy: paging.sort as EvalListSort,
        order: paging.order,
        limit: paging.limit,
        ...cursor,
      }),
    { after: paging.after, before: paging.before },
    problems,
  );
  const pageNumber = problems.length > paging.problems.length ? 1 : paging.page;
  const rows = page.rows.map((run) => evalRowOf(run, (userId) => labelOf(labels, userId)));
  const live = rows.some((r) => r.status === "PENDING" || r.status === "RUNNING");
  const filtered = Boolean(kind || agentId || modelId || createdFrom || createdTo || userFilter);
  const models = availableModels(settings);

  return (
    <main className="mx-auto max-w-6xl p-4 md:p-6">
      <header className="mb-1 flex flex-wrap items-center gap-3">
        <h1 className="text-2xl font-semibold">Evals</h1>
        <LiveRefresh active={live} />
        <Link href={`${PATH}/new`} className="ml-auto rounded bg-slate-900 px-3 py-1.5 text-sm font-medium text-white hover:bg-slate-700 dark:bg-slate-100 dark:text-slate-900">
          New eval
        </Link>
      </header>
      <p className="mb-4 text-sm text-slate-600 dark:text-slate-400">
        {isAdmin
          ? userFilter
            ? `The eval runs of ${labels.get(userFilter) ?? userFilter}.`
            : "Everyone's eval runs (you are an admin)."
          : "How your agents score: accuracy, judged criteria, speed and tool use. Only you (and admins) can see these."}
      </p>
      <ListProblems problems={problems} />
      <ListFilters action={PATH} sort={firstParam(params, "sort")} order={firstParam(params, "order")}>
        <FilterSelect label="Kind" name="kind" value={rawKind} options={EVAL_TYPES.map((t) => ({ value: t, label: EVAL_KIND_LABELS[t] }))} />
        <FilterSelect label="Agent" name="agent" value={agentId} options={settings.agents.map((a) => ({ value: a.id, label: a.name }))} />
        <FilterSelect label="Model" name="model" value={modelId} options={models.map((m) => ({ value: m.id, label: `${m.id} (${m.provider})` }))} />
        <FilterInput label="From" name="from" type="date" value={firstParam(params, "from")} />
        <FilterInput label="To" name="to" type="date" value={firstParam(params, "to")} />
        {isAdmin && <UserFilter labels={labels} value={userFilter} />}
      </ListFilters>
      <EvalsTable
        rows={rows}
        showUser={isAdmin}
        sort={{ field: paging.sort, order: paging.order }}
        page={{ next: page.next, prev: page.prev, total: page.total, page: pageNumber }}
        empty={filtered ? "No eval runs match these filters." : "No eval runs yet. Start one to see how an agent scores."}
      />
    </main>
  );
}
