import { Breadcrumb } from "@/components/dashboard/breadcrumb.tsx";
import { ComponentEditor } from "@/components/dashboard/studio/component-editor.tsx";
import { COMPONENT_TYPES } from "@/lib/config/component-config.ts";
import { requireDashboardSession } from "@/lib/http/dashboard/current-user.ts";
import { firstParam, type SearchParams } from "@/lib/http/dashboard/search-params.ts";
import { loadStudioChoices } from "@/lib/http/dashboard/studio-view.ts";
import { checkStudioOutputSchema, saveStudioDraft } from "../actions.ts";

export const dynamic = "force-dynamic";

/** A new agent, team or workflow (`?type=`, agent by default): saved as its first draft, which only its maker (and admins) can run until it is published. */
export default async function NewStudioComponentPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const { db, settings, principal } = await requireDashboardSession();
  const asked = firstParam(await searchParams, "type");
  const type = COMPONENT_TYPES.find((t) => t === asked) ?? "agent";
  const choices = await loadStudioChoices(db, settings, principal, { type });
  return (
    <main className="mx-auto max-w-5xl p-4 md:p-6">
      <Breadcrumb parent={{ href: "/dashboard/studio", label: "Studio" }} current={`new ${type}`} />
      <h1 className="mb-4 text-2xl font-semibold">New {type}</h1>
      <div className="rounded border border-slate-200 bg-white p-4 dark:border-slate-800 dark:bg-slate-900">
        <ComponentEditor type={type} saved={{}} choices={choices} target={{}} actions={{ save: saveStudioDraft, checkSchema: checkStudioOutputSchema }} />
      </div>
    </main>
  );
}
