import { z } from "zod";
import { EVAL_KIND_LABELS, evalRowOf } from "@/components/dashboard/evals/eval-view.ts";
import { EvalsTable } from "@/components/dashboard/evals/evals-table.tsx";
import { ListBody, ListPage } from "@/components/dashboard/list/list-page.tsx";
import { EVAL_LIST_SORTS, listEvalRunPage } from "@/lib/db/evals/eval-run-list.ts";
import { EVAL_TYPES } from "@/lib/db/evals/eval-runs.ts";
import { agentChoices, modelChoices } from "@/lib/http/dashboard/list-choices.ts";
import { choice, day, oneOf } from "@/lib/http/dashboard/list-filters.ts";
import { defineListPage, loadListPage, type ListPageProps } from "@/lib/http/dashboard/list-page.ts";

export const dynamic = "force-dynamic";

const evals = defineListPage({
  path: "/dashboard/evals",
  filters: z.object({
    kind: oneOf(EVAL_TYPES, { label: "Kind", labels: EVAL_KIND_LABELS }),
    agent: choice({ label: "Agent" }),
    model: choice({ label: "Model" }),
    from: day({ label: "From" }),
    to: day({ label: "To", endOfDay: true }),
  }),
  sorts: EVAL_LIST_SORTS,
  query: ({ db, scope, filters: f, sort, page }) =>
    listEvalRunPage(db, { scope, filters: { evalTypes: f.kind && [f.kind], agentId: f.agent, modelId: f.model, createdFrom: f.from, createdTo: f.to }, sortBy: sort, ...page }),
});

/**
 * The signed-in user's eval runs (an admin's: everyone's, or one user's with `?user=`), filtered by
 * kind, agent, model and creation date, sorted and keyset-paginated through the URL; runs still
 * going refresh live.
 */
export default async function EvalsPage({ searchParams }: ListPageProps) {
  const list = await loadListPage(evals, { searchParams, options: ({ settings }) => ({ agent: agentChoices(settings), model: modelChoices(settings) }) });
  const rows = list.items.map((run) => evalRowOf(run, list.ownerLabel));
  return (
    <ListPage
      title="Evals"
      live={rows.some((r) => r.status === "PENDING" || r.status === "RUNNING")}
      action={{ href: "/dashboard/evals/new", label: "New eval" }}
      description={
        list.isAdmin
          ? list.userFilter
            ? `The eval runs of ${list.userFilterLabel}.`
            : "Everyone's eval runs (you are an admin)."
          : "How your agents score: accuracy, judged criteria, speed and tool use. Only you (and admins) can see these."
      }
    >
      <ListBody list={list} table={EvalsTable} rows={rows} empty={{ filtered: "No eval runs match these filters.", none: "No eval runs yet. Start one to see how an agent scores." }} />
    </ListPage>
  );
}
