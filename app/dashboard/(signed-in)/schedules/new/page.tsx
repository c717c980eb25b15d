import { Breadcrumb } from "@/components/dashboard/breadcrumb.tsx";
import { ScheduleForm } from "@/components/dashboard/schedules/schedule-form.tsx";
import { newScheduleValues } from "@/components/dashboard/schedules/schedule-view.ts";
import { requireDashboardSession } from "@/lib/http/dashboard/current-user.ts";
import { userLabels } from "@/lib/http/dashboard/user-labels.ts";
import { createSchedule } from "../actions.ts";

export const dynamic = "force-dynamic";

/** A new schedule: an agent and a message (admins: any endpoint), the cron expression with its live preview. */
export default async function NewSchedulePage() {
  const { db, principal, settings, user: me } = await requireDashboardSession();
  const labels = await userLabels(db, principal);
  const agents = settings.agents.map((a) => ({ id: a.id, name: a.name }));
  const owners = principal.isAdmin ? { options: [...labels].map(([id, email]) => ({ id, label: id === me.id ? `${email} (you)` : email })), selected: me.id } : undefined;
  return (
    <main className="mx-auto max-w-5xl p-4 md:p-6">
      <Breadcrumb parent={{ href: "/dashboard/schedules", label: "Schedules" }} current="new" />
      <h1 className="mb-4 text-2xl font-semibold">New schedule</h1>
      <div className="rounded border border-slate-200 bg-white p-4 dark:border-slate-800 dark:bg-slate-900">
        <ScheduleForm action={createSchedule} agents={agents} initial={newScheduleValues(agents[0]?.id)} owners={owners} allowEndpoint={principal.isAdmin} submitLabel="Create schedule" />
      </div>
    </main>
  );
}
