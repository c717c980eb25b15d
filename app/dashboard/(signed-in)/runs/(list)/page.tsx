import { ListBody, ListPage } from "@/components/dashboard/list/list-page.tsx";
import { RunsTable } from "@/components/dashboard/runs/runs-table.tsx";
import { listRunSummaries } from "@/lib/db/runs/run-list.ts";
import { agentChoices } from "@/lib/http/dashboard/list-choices.ts";
import { choice, day, oneOf, someOf } from "@/lib/http/dashboard/list-filters.ts";
import { defineListPage, loadListPage, type ListPageProps } from "@/lib/http/dashboard/list-page.ts";
import { z } from "zod";

export const dynamic = "force-dynamic";

const runs = defineListPage({
  path: "/dashboard/runs",
  filters: z.object({
    status: someOf(["PENDING", "RUNNING", "COMPLETED", "PAUSED", "CANCELLED", "ERROR"], { label: "Status" }),
    type: oneOf(["agent", "team", "workflow"], { label: "Type", labels: { agent: "Agent runs", team: "Team runs", workflow: "Workflow runs" } }),
    agent: choice({ label: "Agent or team" }),
    from: day({ label: "From" }),
    to: day({ label: "To", endOfDay: true }),
  }),
  sorts: ["created_at"],
  query: ({ db, scope, filters: f, page }) => listRunSummaries(db, { scope, statuses: f.status, agentId: f.agent, runType: f.type, createdFrom: f.from, createdTo: f.to, ...page }),
});

/** Runs across sessions: a member's own, an admin's everyone's (filterable by user). */
export default async function RunsPage({ searchParams }: ListPageProps) {
  const list = await loadListPage(runs, { searchParams, options: ({ settings }) => ({ agent: agentChoices(settings, { teams: true, external: true }) }) });
  const rows = list.items.map((run) => ({ ...run, user_label: list.ownerLabel(run.user_id) }));
  return (
    <ListPage title="Runs" live={rows.some((r) => r.status === "PENDING" || r.status === "RUNNING")} note={list.isAdmin && "everyone's runs (you are an admin)"}>
      <ListBody list={list} table={RunsTable} rows={rows} empty={{ filtered: "No runs match these filters.", none: "No runs yet. Start one from an agent's or a team's playground." }} />
    </ListPage>
  );
}
