import { Breadcrumb } from "@/components/dashboard/breadcrumb.tsx";
import { EvalForm } from "@/components/dashboard/evals/eval-form.tsx";
import { EVAL_TYPES, type EvalType } from "@/lib/db/evals/eval-runs.ts";
import { requireDashboardSession } from "@/lib/http/dashboard/current-user.ts";
import { firstParam, type SearchParams } from "@/lib/http/dashboard/list-params.ts";
import { availableModels } from "@/lib/http/routes/core.ts";
import { startEval } from "../actions.ts";

export const dynamic = "force-dynamic";

/** A new eval of any kind against a configured agent, started in the background (`?kind=` and `?agent=` preselect). */
export default async function NewEvalPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const { settings } = await requireDashboardSession();
  const params = await searchParams;
  const kind = firstParam(params, "kind");
  const agents = settings.agents.map((a) => ({ id: a.id, name: a.name, model: a.model ? `${a.model.id} (${a.model.provider})` : null }));
  const models = availableModels(settings).map((m) => ({ value: `${m.provider}::${m.id}`, label: `${m.id} (${m.provider})` }));
  return (
    <main className="mx-auto max-w-5xl p-4 md:p-6">
      <Breadcrumb parent={{ href: "/dashboard/evals", label: "Evals" }} current="new" />
      <h1 className="mb-4 text-2xl font-semibold">New eval</h1>
      <div className="rounded border border-slate-200 bg-white p-4 dark:border-slate-800 dark:bg-slate-900">
        <EvalForm
          action={startEval}
          agents={agents}
          models={models}
          initialKind={kind && (EVAL_TYPES as readonly string[]).includes(kind) ? (kind as EvalType) : "accuracy"}
          initialAgent={firstParam(params, "agent")}
        />
      </div>
    </main>
  );
}
