import { notFound } from "next/navigation";
import { deleteSession, renameSession } from "@/app/dashboard/_actions/sessions.ts";
import { ActionButton } from "@/components/dashboard/action-button.tsx";
import { Breadcrumb } from "@/components/dashboard/breadcrumb.tsx";
import { displayText, formatCount, formatDuration, formatTime } from "@/components/dashboard/format.ts";
import { LiveRefresh } from "@/components/dashboard/live-refresh.tsx";
import { Section } from "@/components/dashboard/section.tsx";
import { RenameSessionForm } from "@/components/dashboard/sessions/rename-session-form.tsx";
import { StatusBadge } from "@/components/dashboard/status-badge.tsx";
import { Markdown } from "@/components/markdown/markdown.tsx";
import { dataScopeFor } from "@/lib/auth/principal.ts";
import { getSessionRuns } from "@/lib/db/sessions/session-runs.ts";
import { requireDashboardSession } from "@/lib/http/dashboard/current-user.ts";
import { pathId } from "@/lib/http/dashboard/search-params.ts";

export const dynamic = "force-dynamic";

type RunDict = Record<string, unknown>;
const metric = (run: RunDict, key: string): number | null => {
  const value = (run.metrics as Record<string, unknown> | undefined)?.[key];
  return typeof value === "number" ? value : null;
};

/** One session: its chat history (each run's input and answer) and its runs; rename, delete. */
export default async function SessionPage({ params }: { params: Promise<{ sessionId: string }> }) {
  const { db, principal } = await requireDashboardSession();
  const sessionId = pathId((await params).sessionId);
  if (!sessionId) notFound();
  const session = await getSessionRuns(db, { scope: dataScopeFor(principal), sessionId });
  if (!session) notFound();
  const runs = session.runs as RunDict[];
  const name = displayText((session.session_data as RunDict | null)?.session_name);
  const live = runs.some((r) => r.status === "PENDING" || r.status === "RUNNING");
  const componentId = session.agent_id ?? session.team_id ?? session.workflow_id;
  return (
    <main className="mx-auto max-w-5xl p-4 md:p-6">
      <Breadcrumb parent={{ href: "/dashboard/sessions", label: "Sessions" }} current={session.session_id} />
      <header className="mb-4 flex flex-wrap items-center gap-3">
        <h1 className="text-2xl font-semibold" data-testid="session-name">
          {name || "Untitled session"}
        </h1>
        <LiveRefresh active={live} />
        <div className="ml-auto flex gap-2">
          {session.agent_id && (
            <a
              className="rounded border border-slate-300 px-2 py-1 text-sm hover:bg-slate-50 dark:border-slate-700 dark:hover:bg-slate-800"
              href={`/dashboard/agents/${encodeURIComponent(session.agent_id)}?session_id=${encodeURIComponent(session.session_id)}`}
            >
              Continue chatting
            </a>
          )}
          <ActionButton
            action={deleteSession}
            fields={{ sessionId: session.session_id }}
            label="Delete session"
            pendingLabel="Deleting…"
            tone="danger"
            confirm="Delete this session and all of its runs? This cannot be undone."
          />
        </div>
      </header>
      <Section title="Details" id="details">
        <dl className="mb-3 grid grid-cols-2 gap-x-4 gap-y-1 text-sm sm:grid-cols-4">
          <dt className="text-slate-500">Agent</dt>
          <dd>{componentId ?? "—"}</dd>
          <dt className="text-slate-500">Runs</dt>
          <dd>{runs.length}</dd>
          <dt className="text-slate-500">Created (UTC)</dt>
          <dd>{formatTime(session.created_at)}</dd>
          <dt className="text-slate-500">Updated (UTC)</dt>
          <dd>{formatTime(session.updated_at)}</dd>
        </dl>
        <RenameSessionForm sessionId={session.session_id} name={name} action={renameSession} />
      </Section>
      <Section title="Chat history" id="history">
        {runs.length === 0 ? (
          <p className="text-sm text-slate-500">No runs in this session yet.</p>
        ) : (
          <ol className="space-y-3" data-testid="chat-history">
            {runs.map((run, i) => (
              <li key={displayText(run.run_id) || i} className="space-y-2">
                <div className="ml-auto w-fit max-w-[85%] rounded-lg bg-sky-50 p-3 text-sm whitespace-pre-wrap dark:bg-sky-950">
                  {displayText((run.input as RunDict | undefined)?.input_content) || <span className="text-slate-500">(no text input)</span>}
                </div>
                {typeof run.content === "string" && run.content ? (
                  <Markdown text={run.content} className="w-fit max-w-[85%] rounded-lg bg-slate-100 p-3 dark:bg-slate-800" />
                ) : (
                  <div className="w-fit max-w-[85%] rounded-lg bg-slate-100 p-3 text-sm whitespace-pre-wrap dark:bg-slate-800">
                    {displayText(run.content) || (
                      <span className="text-slate-500">{run.status === "RUNNING" || run.status === "PENDING" ? "Still running…" : `(no answer — ${displayText(run.status).toLowerCase()})`}</span>
                    )}
                  </div>
                )}
              </li>
            ))}
          </ol>
        )}
      </Section>
      <Section title="Runs" id="runs">
        <div className="overflow-x-auto">
          <table className="w-full min-w-[32rem] text-left text-sm">
            <thead className="text-slate-500">
              <tr>
                <th className="py-1 pr-3 font-medium">#</th>
                <th className="py-1 pr-3 font-medium">Status</th>
                <th className="py-1 pr-3 font-medium">Run</th>
                <th className="py-1 pr-3 font-medium">Duration</th>
                <th className="py-1 pr-3 font-medium">Tokens</th>
                <th className="py-1 font-medium">Created (UTC)</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
              {runs.map((run, i) => (
                <tr key={displayText(run.run_id) || i}>
                  <td className="py-1 pr-3">{i + 1}</td>
                  <td className="py-1 pr-3">
                    <StatusBadge status={displayText(run.status) || null} />
                  </td>
                  <td className="py-1 pr-3 font-mono text-xs">
                    <a
                      className="text-sky-700 hover:underline dark:text-sky-400"
                      href={`/dashboard/runs/${encodeURIComponent(displayText(run.run_id))}?session_id=${encodeURIComponent(session.session_id)}`}
                    >
                      {displayText(run.run_id)}
                    </a>
                  </td>
                  <td className="py-1 pr-3">{formatDuration(metric(run, "duration"))}</td>
                  <td className="py-1 pr-3">{formatCount(metric(run, "total_tokens"))}</td>
                  <td className="py-1">{formatTime(typeof run.created_at === "number" ? run.created_at : null)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </Section>
    </main>
  );
}
