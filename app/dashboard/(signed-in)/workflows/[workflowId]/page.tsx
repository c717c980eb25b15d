import { notFound } from "next/navigation";
import { WorkflowPlayground } from "@/components/dashboard/workflows/workflow-playground.tsx";
import { hasScope } from "@/lib/auth/principal.ts";
import { requireDashboardSession } from "@/lib/http/dashboard/current-user.ts";
import { storedComponentFor } from "@/lib/http/dashboard/playground-session.ts";
import { firstParam, type SearchParams } from "@/lib/http/dashboard/search-params.ts";
import { findWorkflow } from "@/lib/runtime/workflow/workflow-runtime.ts";

export const dynamic = "force-dynamic";

/**
 * Run one workflow and follow its steps; a workflow that does not exist (or that this user may not
 * see) is a 404. A stored (Studio) workflow runs its current published version, or `?version=`'s
 * (a draft for its owner or an admin: "Try it").
 */
export default async function WorkflowPlaygroundPage({ params, searchParams }: { params: Promise<{ workflowId: string }>; searchParams: Promise<SearchParams> }) {
  const session = await requireDashboardSession();
  const { settings, principal } = session;
  const { workflowId } = await params;
  const workflow = findWorkflow(settings, workflowId) ?? (await storedComponentFor(session, "workflow", workflowId, firstParam(await searchParams, "version")));
  if (!workflow?.workflow || !hasScope(principal, `workflows:${workflowId}:read`)) notFound();
  const d = workflow.workflow.definition;
  return (
    <main className="mx-auto max-w-3xl px-4 pt-4 sm:px-6 sm:pt-6">
      <WorkflowPlayground
        workflow={{
          id: d.id,
          name: d.name,
          description: d.description ?? null,
          steps: d.steps.map((s) => ({ name: s.name, type: s.type, description: s.description ?? null })),
          ...(workflow.stored ? { version: workflow.stored.version } : {}),
        }}
      />
    </main>
  );
}
