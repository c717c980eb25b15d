import { z } from "zod";
import { ListBody, ListPage } from "@/components/dashboard/list/list-page.tsx";
import { SessionsTable } from "@/components/dashboard/sessions/sessions-table.tsx";
import { listSessionSummaries } from "@/lib/db/sessions/session-list.ts";
import { agentChoices } from "@/lib/http/dashboard/list-choices.ts";
import { choice, oneOf, text } from "@/lib/http/dashboard/list-filters.ts";
import { defineListPage, loadListPage, type ListPageProps } from "@/lib/http/dashboard/list-page.ts";

export const dynamic = "force-dynamic";

const sessions = defineListPage({
  path: "/dashboard/sessions",
  filters: z.object({
    q: text({ label: "Name contains", placeholder: "e.g. weather" }),
    type: oneOf(["agent", "team", "workflow"], { label: "Type", labels: { agent: "Agent sessions", team: "Team sessions", workflow: "Workflow sessions" } }),
    agent: choice({ label: "Agent or team" }),
  }),
  sorts: ["updated_at", "created_at"],
  query: ({ db, scope, filters, sort, page }) => listSessionSummaries(db, { scope, componentId: filters.agent, sessionType: filters.type, name: filters.q, sortBy: sort, ...page }),
});

/** Sessions: a member's own, an admin's everyone's (with the owner and a user filter). */
export default async function SessionsPage({ searchParams }: ListPageProps) {
  const list = await loadListPage(sessions, { searchParams, options: ({ settings }) => ({ agent: agentChoices(settings, { teams: true, external: true }) }) });
  const rows = list.items.map((s) => ({ ...s, user_label: list.ownerLabel(s.user_id) }));
  return (
    <ListPage title="Sessions" note={list.isAdmin && "everyone's sessions (you are an admin)"}>
      <ListBody list={list} table={SessionsTable} rows={rows} empty={{ filtered: "No sessions match these filters.", none: "No sessions yet. Chat with an agent to start one." }} />
    </ListPage>
  );
}
