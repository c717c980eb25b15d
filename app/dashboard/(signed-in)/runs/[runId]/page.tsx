import { notFound } from "next/navigation";
import { cancelRun } from "@/app/dashboard/_actions/runs.ts";
import { ActionButton } from "@/components/dashboard/action-button.tsx";
import { Breadcrumb } from "@/components/dashboard/breadcrumb.tsx";
import { displayText, formatCount, formatDuration, formatTime } from "@/components/dashboard/format.ts";
import { JsonView } from "@/components/dashboard/json-view.tsx";
import { LiveRefresh } from "@/components/dashboard/live-refresh.tsx";
import { frameworkName } from "@/components/dashboard/agents/framework-badge.tsx";
import { ContinuePausedRun } from "@/components/dashboard/runs/continue-paused-run.tsx";
import { ContinuePausedWorkflow } from "@/components/dashboard/runs/continue-paused-workflow.tsx";
import { RunReferences } from "@/components/dashboard/runs/run-references.tsx";
import { Section } from "@/components/dashboard/section.tsx";
import { StatusBadge } from "@/components/dashboard/status-badge.tsx";
import { RunTraceSection } from "@/components/dashboard/traces/run-trace.tsx";
import { Markdown } from "@/components/markdown/markdown.tsx";
import { dataScopeFor } from "@/lib/auth/principal.ts";
import { getChildRuns, getRun } from "@/lib/db/runs/runs.ts";
import { requireDashboardSession } from "@/lib/http/dashboard/current-user.ts";
import { firstParam, type SearchParams } from "@/lib/http/dashboard/list-params.ts";
import { pathId } from "@/lib/http/dashboard/search-params.ts";
import { loadRunTrace } from "@/lib/http/dashboard/trace-views.ts";
import type { RunOutput } from "@/lib/runtime/run-output.ts";

export const dynamic = "force-dynamic";

/** One run: input, output (Markdown), its trace, tool calls, events, metrics; cancel while it runs, continue when paused. */
export default async function RunPage({ params, searchParams }: { params: Promise<{ runId: string }>; searchParams: Promise<SearchParams> }) {
  const { db, principal, settings } = await requireDashboardSession();
  const runId = pathId((await params).runId);
  if (!runId) notFound();
  const sessionId = firstParam(await searchParams, "session_id");
  const stored = await getRun(db, { scope: dataScopeFor(principal), runId, sessionId });
  if (!stored) notFound();
  const run = stored.run_data as unknown as RunOutput;
  const live = stored.status === "PENDING" || stored.status === "RUNNING";
  // Its trace (a member's or a step's: its parent's); the page refreshes until it is stored.
  const trace = await loadRunTrace(db, { scope: dataScopeFor(principal), run: stored, settings });
  // The agent or team whose routes continue and cancel it (a team's member run is its agent's).
  const target =
    stored.run_type === "workflow" && stored.workflow_id
      ? { kind: "workflow" as const, id: stored.workflow_id }
      : stored.run_type === "team" && stored.team_id
        ? { kind: "team" as const, id: stored.team_id }
        : stored.agent_id
          ? { kind: "agent" as const, id: stored.agent_id }
          : null;
  // An external agent's runs are cancelled only by closing their stream (its cancel route answers 501).
  const external = stored.run_type === "agent" && stored.agent_id ? settings.externalAgents.find((a) => a.id === stored.agent_id) : undefined;
  // A team's members' runs, a workflow's step agents' and teams' runs: rows of their own, under this one.
  const members =
    stored.run_type === "team" || stored.run_type === "workflow" ? await getChildRuns(db, { scope: dataScopeFor(principal), sessionId: stored.session_id, parentRunId: stored.run_id }) : [];
  const stepResults = stored.run_type === "workflow" && Array.isArray(run.step_results) ? (run.step_results as { step_name?: string; step_type?: string; content?: unknown; success?: boolean }[]) : [];
  const events = Array.isArray(run.events) ? run.events : [];
  const startedAt = Number(events[0]?.created_at ?? stored.created_at);
  const metrics = (run.metrics ?? {}) as unknown as Record<string, unknown>;
  return (
    <main className="mx-auto max-w-5xl p-4 md:p-6">
      <Breadcrumb parent={{ href: "/dashboard/runs", label: "Runs" }} current={stored.run_id} />
      <header className="mb-4 flex flex-wrap items-center gap-3">
        <h1 className="text-2xl font-semibold">Run</h1>
        <StatusBadge status={stored.status} />
        <LiveRefresh active={live || trace.awaiting} intervalMs={1000} />
        <div className="ml-auto flex gap-2">
          {(live || stored.status === "PAUSED") && target && !external && (
            <ActionButton
              action={cancelRun}
              fields={{ kind: target.kind, agentId: target.id, runId: stored.run_id, sessionId: stored.session_id }}
              label="Cancel run"
              pendingLabel="Cancelling…"
              tone="danger"
              confirm={stored.status === "PAUSED" ? "Cancel this paused run? It cannot be continued afterwards." : undefined}
            />
          )}
          {target && (
            <a
              className="rounded border border-slate-300 px-2 py-1 text-sm hover:bg-slate-50 dark:border-slate-700 dark:hover:bg-slate-800"
              href={`/dashboard/sessions/${encodeURIComponent(stored.session_id)}`}
            >
              Session
            </a>
          )}
        </div>
      </header>
      <dl className="mb-4 grid grid-cols-2 gap-x-4 gap-y-1 rounded border border-slate-200 bg-white p-4 text-sm sm:grid-cols-4 dark:border-slate-800 dark:bg-slate-900">
        <dt className="text-slate-500">{stored.run_type === "team" ? "Team" : stored.run_type === "workflow" ? "Workflow" : "Agent"}</dt>
        <dd>{stored.agent_id ?? stored.team_id ?? stored.workflow_id ?? "—"}</dd>
        <dt className="text-slate-500">Created (UTC)</dt>
        <dd>{formatTime(stored.created_at)}</dd>
        <dt className="text-slate-500">Duration</dt>
        <dd>{formatDuration(typeof metrics.duration === "number" ? metrics.duration : null)}</dd>
        <dt className="text-slate-500">Tokens</dt>
        <dd data-testid="run-tokens">{formatCount(typeof metrics.total_tokens === "number" ? metrics.total_tokens : null)}</dd>
        <dt className="text-slate-500">Model</dt>
        <dd>{run.model ? `${run.model_provider ?? ""}/${run.model}` : external ? `${frameworkName(external.framework)} (external agent)` : "—"}</dd>
        <dt className="text-slate-500">Session</dt>
        <dd className="truncate font-mono text-xs">{stored.session_id}</dd>
      </dl>

      {stored.parent_run_id && (
        <p className="mb-4 text-sm" data-testid="parent-run">
          Run for{" "}
          <a className="text-sky-700 underline dark:text-sky-400" href={`/dashboard/runs/${encodeURIComponent(stored.parent_run_id)}?session_id=${encodeURIComponent(stored.session_id)}`}>
            run {stored.parent_run_id.slice(0, 8)}
          </a>{" "}
          (the team or workflow run it worked for).
        </p>
      )}

      {stored.status === "PAUSED" && target?.kind === "workflow" && (
        <Section title="Waiting for you" id="requirements">
          <ContinuePausedWorkflow workflowId={target.id} runId={stored.run_id} sessionId={stored.session_id} requirements={(run.step_requirements ?? []) as Record<string, unknown>[]} />
        </Section>
      )}
      {stored.status === "PAUSED" && target && target.kind !== "workflow" && (
        <Section title="Waiting for you" id="requirements">
          <ContinuePausedRun target={target} runId={stored.run_id} sessionId={stored.session_id} requirements={run.requirements ?? []} />
        </Section>
      )}

      <Section title="Input" id="input">
        <p data-testid="run-input" className="whitespace-pre-wrap">
          {/* A workflow run's input is the message itself (Agno's WorkflowRunOutput.input). */}
          {displayText(typeof run.input === "string" ? run.input : run.input?.input_content, { pretty: true }) || <span className="text-slate-500">(no text input)</span>}
        </p>
      </Section>
      <Section title="Output" id="output">
        {typeof run.content === "string" && run.content ? (
          <Markdown text={run.content} testId="run-output" />
        ) : (
          <p data-testid="run-output" className="whitespace-pre-wrap">
            {displayText(run.content, { pretty: true }) || <span className="text-slate-500">{live ? "Still running…" : "(no output)"}</span>}
          </p>
        )}
      </Section>
      <RunTraceSection runId={stored.run_id} trace={trace} />
      {stored.run_type === "workflow" && (
        <Section title={`Steps (${stepResults.length})`} id="steps">
          {stepResults.length > 0 ? (
            <ol className="space-y-2" data-testid="workflow-step-results">
              {stepResults.map((step, i) => (
                <li key={`${step.step_name}-${i}`} className="rounded border border-slate-200 p-3 text-sm dark:border-slate-800">
                  <p className="mb-1 font-medium">
                    {step.step_name} <span className="text-xs font-normal text-slate-500">{step.step_type}</span>
                    {step.success === false && <span className="ml-2 text-red-700 dark:text-red-300">failed</span>}
                  </p>
                  {typeof step.content === "string" ? <Markdown text={step.content} /> : <p className="whitespace-pre-wrap">{displayText(step.content, { pretty: true })}</p>}
                </li>
              ))}
            </ol>
          ) : (
            <p className="text-sm text-slate-500">No step has finished yet.</p>
          )}
        </Section>
      )}
      {(stored.run_type === "team" || stored.run_type === "workflow") && (
        <Section title={stored.run_type === "team" ? `Members' runs (${members.length})` : `Step agents' runs (${members.length})`} id="members">
          {members.length > 0 ? (
            <ol className="space-y-2" data-testid="member-runs">
              {members.map((member) => {
                const data = member.run_data as unknown as RunOutput;
                return (
                  <li key={member.run_id}>
                    <details className="rounded border border-slate-200 dark:border-slate-800">
                      <summary className="flex cursor-pointer flex-wrap items-center gap-2 px-3 py-2 text-sm">
                        <span className="font-medium">{data.agent_name ?? data.team_name ?? member.agent_id ?? member.team_id}</span>
                        <StatusBadge status={member.status} />
                        <span className="truncate text-slate-600 dark:text-slate-400">{displayText(data.input?.input_content).slice(0, 120)}</span>
                      </summary>
                      <div className="space-y-2 border-t border-slate-200 px-3 py-2 text-sm dark:border-slate-800">
                        {typeof data.content === "string" && data.content ? (
                          <Markdown text={data.content} />
                        ) : (
                          <p className="whitespace-pre-wrap">{displayText(data.content, { pretty: true }) || <span className="text-slate-500">(no output)</span>}</p>
                        )}
                        {(data.tools?.length ?? 0) > 0 && <p className="text-slate-600 dark:text-slate-400">Tools: {data.tools.map((t) => t.tool_name).join(", ")}</p>}
                        <a className="text-sky-700 underline dark:text-sky-400" href={`/dashboard/runs/${encodeURIComponent(member.run_id)}?session_id=${encodeURIComponent(member.session_id)}`}>
                          Member run details
                        </a>
                      </div>
                    </details>
                  </li>
                );
              })}
            </ol>
          ) : (
            <p className="text-sm text-slate-500">{stored.run_type === "team" ? "The leader answered without delegating." : "No step ran an agent or a team."}</p>
          )}
        </Section>
      )}
      <Section title={`Tool calls (${run.tools?.length ?? 0})`} id="tools">
        {run.tools && run.tools.length > 0 ? (
          <ol className="space-y-3">
            {run.tools.map((tool) => (
              <li key={tool.tool_call_id} data-testid="tool-call" className="rounded border border-slate-200 p-3 dark:border-slate-800">
                <p className="mb-1 font-mono text-sm font-medium">
                  {tool.tool_name}
                  {tool.tool_call_error && <span className="ml-2 text-red-700 dark:text-red-300">error</span>}
                  {tool.requires_confirmation && (
                    <span className="ml-2 text-amber-700 dark:text-amber-300">{tool.confirmed === false ? "rejected" : tool.confirmed ? "confirmed" : "needs confirmation"}</span>
                  )}
                </p>
                <div className="grid gap-2 md:grid-cols-2">
                  <JsonView value={tool.tool_args} label={`${tool.tool_name} arguments`} />
                  <JsonView value={tool.result ?? "(no result yet)"} label={`${tool.tool_name} result`} />
                </div>
              </li>
            ))}
          </ol>
        ) : (
          <p className="text-sm text-slate-500">No tools were called.</p>
        )}
      </Section>
      {run.references && run.references.length > 0 && (
        <Section title="Knowledge used" id="references">
          <RunReferences references={run.references} />
        </Section>
      )}
      <Section title={`Events (${events.length})`} id="events">
        {events.length > 0 ? (
          <ol className="relative space-y-1 border-l border-slate-200 pl-4 text-sm dark:border-slate-700" data-testid="events-timeline">
            {events.map((event, i) => (
              <li key={i} className="flex gap-3">
                <span className="w-16 shrink-0 text-right font-mono text-xs text-slate-500">+{Math.max(0, Number(event.created_at ?? startedAt) - startedAt)} s</span>
                <span className="font-medium">{String(event.event)}</span>
                <span className="truncate text-slate-600 dark:text-slate-400">
                  {typeof event.content === "string" ? event.content : typeof event.tool === "object" && event.tool ? String((event.tool as { tool_name?: string }).tool_name ?? "") : ""}
                </span>
              </li>
            ))}
          </ol>
        ) : (
          <p className="text-sm text-slate-500">{external ? "An external agent's run keeps no events." : "No events were stored for this run (the agent's storeEvents setting is off)."}</p>
        )}
      </Section>
      <Section title="Metrics" id="metrics">
        <JsonView value={metrics} label="Metrics" />
      </Section>
    </main>
  );
}
