import { notFound } from "next/navigation";
import { WorkflowPlayground } from "@/components/dashboard/workflows/workflow-playground.tsx";
import { hasScope } from "@/lib/auth/principal.ts";
import { requireDashboardSession } from "@/lib/http/dashboard/current-user.ts";
import { findWorkflow } from "@/lib/runtime/workflow/workflow-runtime.ts";

export const dynamic = "force-dynamic";

/** Run one workflow and follow its steps; a workflow that does not exist (or that this user may not see) is a 404. */
export default async function WorkflowPlaygroundPage({ params }: { params: Promise<{ workflowId: string }> }) {
  const { settings, principal } = await requireDashboardSession();
  const { workflowId } = await params;
  const workflow = findWorkflow(settings, workflowId);
  if (!workflow || !hasScope(principal, `workflows:${workflowId}:read`)) notFound();
  const d = workflow.workflow!.definition;
  return (
    <main className="mx-auto max-w-3xl px-4 pt-4 sm:px-6 sm:pt-6">
      <WorkflowPlayground workflow={{ id: d.id, name: d.name, description: d.description ?? null, steps: d.steps.map((s) => ({ name: s.name, type: s.type, description: s.description ?? null })) }} />
    </main>
  );
}
