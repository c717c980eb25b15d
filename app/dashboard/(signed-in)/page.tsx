import { requireDashboardSession } from "@/lib/http/dashboard/current-user.ts";
import { systemStatus } from "@/lib/status/system-status.ts";

export const dynamic = "force-dynamic";

export default async function DashboardHome() {
  const { settings } = await requireDashboardSession();
  const status = await systemStatus(settings);
  return (
    <main className="mx-auto max-w-5xl p-4 md:p-6">
      <header className="mb-6 flex items-center justify-between">
        <h1 className="text-2xl font-semibold">Overview</h1>
        <nav aria-label="API" className="flex gap-4 text-sm">
          <a className="underline" href="/docs">API docs</a>
          <a className="underline" href="/health">Health</a>
        </nav>
      </header>
      <section aria-labelledby="agents" className="mb-6 rounded border border-slate-200 bg-white p-4 dark:border-slate-800 dark:bg-slate-900">
        <h2 id="agents" className="mb-2 text-lg font-medium">Agents</h2>
        <ul className="divide-y divide-slate-200 dark:divide-slate-800">
          {status.agents.map((agent) => (
            <li key={agent.id} className="flex justify-between py-2">
              <span>{agent.name} <span className="text-slate-500">({agent.id})</span></span>
              <span className="text-sm text-slate-600 dark:text-slate-400">{agent.model ?? "no model configured"}</span>
            </li>
          ))}
        </ul>
      </section>
      <section aria-labelledby="system" className="rounded border border-slate-200 bg-white p-4 dark:border-slate-800 dark:bg-slate-900">
        <h2 id="system" className="mb-2 text-lg font-medium">System</h2>
        <dl className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1 text-sm">
          <dt className="text-slate-500">Database</dt>
          <dd data-testid="database">{status.database.dialect ? `${status.database.dialect} — ${status.database.location}` : "unavailable"}</dd>
          <dt className="text-slate-500">Auth mode</dt>
          <dd>{status.authMode}</dd>
          <dt className="text-slate-500">OS id</dt>
          <dd>{settings.osId}</dd>
        </dl>
      </section>
    </main>
  );
}
