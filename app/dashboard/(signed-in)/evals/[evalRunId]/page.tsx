import Link from "next/link";
import { notFound } from "next/navigation";
import type { ReactNode } from "react";
import { ActionButton } from "@/components/dashboard/action-button.tsx";
import { Breadcrumb } from "@/components/dashboard/breadcrumb.tsx";
import { RunTimesChart, TrendChart, type TrendPoint } from "@/components/dashboard/evals/eval-charts.tsx";
import { EVAL_KIND_LABELS, evalAgentRunHref, evalHref, progressOf } from "@/components/dashboard/evals/eval-view.ts";
import { formatTime } from "@/components/dashboard/format.ts";
import { JsonView } from "@/components/dashboard/json-view.tsx";
import { LiveRefresh } from "@/components/dashboard/live-refresh.tsx";
import { LocalTime } from "@/components/dashboard/schedules/local-time.tsx";
import { Section } from "@/components/dashboard/section.tsx";
import { StatusBadge } from "@/components/dashboard/status-badge.tsx";
import { dataScopeFor } from "@/lib/auth/principal.ts";
import { listEvalTrend } from "@/lib/db/evals/eval-run-list.ts";
import { getEvalRun, type StoredEvalRun } from "@/lib/db/evals/eval-runs.ts";
import { evalHeadline, formatEvalValue, formatSeconds } from "@/lib/evals/eval-summary.ts";
import type { AgentRunRef } from "@/lib/evals/run-eval.ts";
import { requireDashboardSession } from "@/lib/http/dashboard/current-user.ts";
import { pathId } from "@/lib/http/dashboard/search-params.ts";
import { labelOf, userLabels } from "@/lib/http/dashboard/user-labels.ts";
import { cancelEval, deleteEval, rerunEval } from "../actions.ts";

export const dynamic = "force-dynamic";

type Json = Record<string, unknown>;

const link = "text-sky-700 hover:underline dark:text-sky-400";
const cell = "px-2 py-1.5 align-top";
const head = "px-2 py-1.5 font-medium whitespace-nowrap";

const asList = <T,>(value: unknown): T[] => (Array.isArray(value) ? (value as T[]) : []);
const num = (value: unknown): number | null => (typeof value === "number" && Number.isFinite(value) ? value : null);
const fixed = (value: unknown, digits = 2) => (num(value) === null ? "—" : String(Number((value as number).toFixed(digits))));

function RunLink({ run }: { run: AgentRunRef | undefined }) {
  if (!run) return <span className="text-slate-500">—</span>;
  return (
    <Link className={`${link} font-mono text-xs`} href={evalAgentRunHref(run.run_id, run.session_id)} title="Open the run">
      {run.run_id.slice(0, 8)}…
    </Link>
  );
}

function Table({ label, headers, children, testId }: { label: string; headers: string[]; children: ReactNode; testId?: string }) {
  return (
    <div className="overflow-x-auto">
      <table className="w-full text-left text-sm" aria-label={label} data-testid={testId}>
        <thead className="bg-slate-50 text-slate-600 dark:bg-slate-800/60 dark:text-slate-300">
          <tr>
            {headers.map((h) => (
              <th key={h} scope="col" className={head}>
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100 dark:divide-slate-800">{children}</tbody>
      </table>
    </div>
  );
}

/** The measured runs that produced a result, in order: the ones the kind scored (failed iterations were left out). */
function scoredRuns(runs: AgentRunRef[], failures: { iteration: number }[]): AgentRunRef[] {
  const failed = new Set(failures.map((f) => f.iteration));
  return runs.filter((r) => r.phase === "measured" && !failed.has(r.iteration)).sort((a, b) => a.iteration - b.iteration);
}

function Figures({ items }: { items: [string, ReactNode][] }) {
  return (
    <dl className="mb-3 grid grid-cols-2 gap-x-4 gap-y-1 text-sm sm:grid-cols-4">
      {items.map(([label, value]) => (
        <div key={label}>
          <dt className="text-xs text-slate-500">{label}</dt>
          <dd className="font-medium">{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** One case of an accuracy or judged eval: its number, input and output, what the kind says of it (`children`), the reason and the run. */
function CaseRow({ index, result, run, children }: { index: number; result: Json; run: AgentRunRef | undefined; children: ReactNode }) {
  return (
    <tr data-testid="eval-case">
      <td className={cell}>{index + 1}</td>
      <td className={`${cell} whitespace-pre-wrap`}>{String(result.input ?? "")}</td>
      <td className={`${cell} whitespace-pre-wrap`}>{String(result.output ?? "")}</td>
      {children}
      <td className={`${cell} text-slate-700 dark:text-slate-300`}>{String(result.reason ?? "")}</td>
      <td className={cell}>
        <RunLink run={run} />
      </td>
    </tr>
  );
}

function AccuracyCases({ run, runs }: { run: StoredEvalRun; runs: AgentRunRef[] }) {
  const data = run.eval_data;
  const results = asList<Json>(data.results);
  return (
    <Section title="Cases" id="eval-cases">
      <Figures
        items={[
          ["Average score", `${fixed(data.avg_score)} / 10`],
          ["Lowest", fixed(data.min_score)],
          ["Highest", fixed(data.max_score)],
          ["Std. deviation", fixed(data.std_dev_score)],
        ]}
      />
      <Table label="Accuracy cases" headers={["#", "Input", "Output", "Expected output", "Score", "Reason", "Run"]} testId="eval-cases">
        {results.map((r, i) => (
          <CaseRow key={`${i}-${String(r.output)}`} index={i} result={r} run={runs[i]}>
            <td className={`${cell} whitespace-pre-wrap`}>{String(r.expected_output ?? "")}</td>
            <td className={`${cell} font-medium`} data-testid="case-score">
              {String(r.score)} / 10
            </td>
          </CaseRow>
        ))}
      </Table>
    </Section>
  );
}

function JudgeCases({ run, runs }: { run: StoredEvalRun; runs: AgentRunRef[] }) {
  const data = run.eval_data;
  const results = asList<Json>(data.results);
  const numeric = num(data.avg_score) !== null;
  const input = run.eval_input ?? {};
  return (
    <Section title="Cases" id="eval-cases">
      <p className="mb-2 text-sm">
        <span className="text-slate-500">Criteria: </span>
        {String(input.criteria ?? results[0]?.criteria ?? "—")}
        {input.scoring_strategy === "numeric" && <span className="text-slate-500"> · passes at {String(input.threshold)} or more</span>}
      </p>
      <Figures
        items={[
          ["Pass rate", `${fixed(data.pass_rate, 1)}%`],
          ...(numeric
            ? ([
                ["Average score", `${fixed(data.avg_score)} / 10`],
                ["Lowest / highest", `${fixed(data.min_score)} / ${fixed(data.max_score)}`],
                ["Std. deviation", fixed(data.std_dev_score)],
              ] as [string, ReactNode][])
            : []),
        ]}
      />
      <Table label="Judged cases" headers={["#", "Input", "Output", numeric ? "Score" : "Verdict", "Reason", "Run"]} testId="eval-cases">
        {results.map((r, i) => (
          <CaseRow key={`${i}-${String(r.output)}`} index={i} result={r} run={runs[i]}>
            <td className={`${cell} font-medium ${r.passed ? "text-emerald-700 dark:text-emerald-300" : "text-red-700 dark:text-red-300"}`}>
              {numeric ? `${String(r.score)} / 10 · ` : ""}
              {r.passed ? "passed" : "failed"}
            </td>
          </CaseRow>
        ))}
      </Table>
    </Section>
  );
}

function PerformanceFigures({ run }: { run: StoredEvalRun }) {
  const result = (run.eval_data.result ?? run.eval_data) as Json;
  const runs = asList<{ runtime: number; memory: number; tokens?: number }>(run.eval_data.runs);
  const runTimes = runs.length > 0 ? runs.map((r) => r.runtime) : asList<number>(run.eval_data.run_times);
  const stat = (key: string, format: (v: number) => string) => (num(result[key]) === null ? "—" : format(result[key] as number));
  const mib = (v: number) => `${v.toFixed(2)} MiB`;
  return (
    <Section title="Timing" id="eval-timing">
      {runTimes.length > 0 && <RunTimesChart runTimes={runTimes} median={num(result.median_run_time) ?? 0} p95={num(result.p95_run_time) ?? 0} />}
      <Table label="Performance figures" headers={["", "Mean", "Min", "Max", "Std. dev.", "Median", "p50", "p95"]} testId="performance-figures">
        <tr>
          <th scope="row" className={head}>
            Run time
          </th>
          {["avg", "min", "max", "std_dev", "median", "p50", "p95"].map((k) => (
            <td key={k} className={cell}>
              {stat(`${k}_run_time`, formatSeconds)}
            </td>
          ))}
        </tr>
        <tr>
          <th scope="row" className={head} title="Node's heap growth across each run">
            Heap growth
          </th>
          {["avg", "min", "max", "std_dev", "median", "p50", "p95"].map((k) => (
            <td key={k} className={cell}>
              {stat(`${k}_memory_usage`, mib)}
            </td>
          ))}
        </tr>
      </Table>
      <p className="mt-2 text-xs text-slate-500">
        Memory is this server process's heap growth across each run (Node&apos;s process.memoryUsage()).
        {num(result.avg_tokens_per_run) !== null && ` Tokens per run: ${fixed(result.avg_tokens_per_run, 1)} on average.`}
      </p>
    </Section>
  );
}

function ReliabilityChecks({ run, runs }: { run: StoredEvalRun; runs: AgentRunRef[] }) {
  const data = run.eval_data;
  const row = (label: string, key: string, tone?: string) => {
    const items = asList<string>(data[key]);
    return (
      <tr>
        <th scope="row" className={head}>
          {label}
        </th>
        <td className={`${cell} ${items.length > 0 ? (tone ?? "") : "text-slate-500"}`} data-testid={`reliability-${key}`}>
          {items.length > 0 ? items.join(", ") : "none"}
        </td>
      </tr>
    );
  };
  const input = run.eval_input ?? {};
  return (
    <Section title="Tool calls" id="eval-tools">
      <p className="mb-2 text-sm">
        <span className="text-slate-500">Expected: </span>
        <span className="font-mono">{asList<string>(input.expected_tool_calls).join(", ") || "—"}</span>
        {input.allow_additional_tool_calls === true && <span className="text-slate-500"> · other calls allowed</span>}
        {runs[0] && (
          <span className="ml-2">
            · run <RunLink run={runs[0]} />
          </span>
        )}
      </p>
      <Table label="Tool-call checks" headers={["Check", "Tools"]} testId="reliability-checks">
        {row("Passed", "passed_tool_calls", "text-emerald-700 dark:text-emerald-300")}
        {row("Failed", "failed_tool_calls", "text-red-700 dark:text-red-300")}
        {row("Missing", "missing_tool_calls", "text-red-700 dark:text-red-300")}
        {row("Additional", "additional_tool_calls")}
        {row("Arguments matched", "passed_argument_checks", "text-emerald-700 dark:text-emerald-300")}
        {row("Arguments differed", "failed_argument_checks", "text-red-700 dark:text-red-300")}
      </Table>
      {input.expected_tool_call_arguments ? (
        <div className="mt-2">
          <p className="text-xs text-slate-500">Expected arguments</p>
          <JsonView value={input.expected_tool_call_arguments} label="Expected arguments" />
        </div>
      ) : null}
    </Section>
  );
}

/**
 * One eval run: what it ran (kind, agent, model, judge, input), where it stands (live while it
 * runs, with Cancel), its result — per case for accuracy and agent-as-judge, the timing
 * distribution for performance, the tool-call checks for reliability — the runs it made, and the
 * eval's trend over its re-runs (Run again adds a point). Another user's eval is a 404 for a
 * member, as one that does not exist.
 */
export default async function EvalRunPage({ params }: { params: Promise<{ evalRunId: string }> }) {
  const { db, principal } = await requireDashboardSession();
  const id = pathId((await params).evalRunId);
  if (!id) notFound();
  const scope = dataScopeFor(principal);
  const run = await getEvalRun(db, { scope, id });
  if (!run) notFound();
  const labels = await userLabels(db, principal);
  const details = (run.run_details ?? {}) as Json;
  const agentRuns = asList<AgentRunRef>(details.agent_runs);
  const failures = asList<{ iteration: number; error: string }>(details.failures);
  const judge = details.judge as { model_id: string; model_provider: string } | null | undefined;
  const active = run.run_status === "PENDING" || run.run_status === "RUNNING";
  const done = run.run_status === "COMPLETED";
  const headline = evalHeadline(run);
  // The trend is the run owner's (an admin's unfiltered scope would mix in other users' runs of the same name).
  const trend = done ? await listEvalTrend(db, { scope: dataScopeFor(principal, run.user_id), evalType: run.eval_type, agentId: run.agent_id, name: run.name }) : [];
  const points: TrendPoint[] = trend
    .filter((r) => r.run_status === "COMPLETED")
    .map((r) => ({ r, value: evalHeadline(r).value }))
    .filter((p): p is { r: StoredEvalRun; value: number } => p.value !== null)
    .map(({ r, value }) => ({ id: r.run_id, at: formatTime(r.created_at).slice(0, 16), value, current: r.run_id === run.run_id }));
  const scored = scoredRuns(agentRuns, failures);
  const fields = { evalRunId: run.run_id };
  const title = run.name ?? `${EVAL_KIND_LABELS[run.eval_type]} eval`;

  return (
    <main className="mx-auto max-w-5xl p-4 md:p-6">
      <Breadcrumb parent={{ href: "/dashboard/evals", label: "Evals" }} current={title} />
      <header className="mb-4 flex flex-wrap items-center gap-3">
        <h1 className="text-2xl font-semibold" data-testid="eval-name">
          {title}
        </h1>
        <span className="rounded bg-slate-100 px-1.5 py-0.5 text-xs dark:bg-slate-800">{EVAL_KIND_LABELS[run.eval_type]}</span>
        <span data-testid="eval-status">
          <StatusBadge status={run.run_status} />
        </span>
        <LiveRefresh active={active} intervalMs={1000} />
        <div className="ml-auto flex flex-wrap items-start gap-2">
          {active && <ActionButton action={cancelEval} fields={fields} label="Cancel" pendingLabel="Cancelling…" tone="danger" />}
          {!active && run.agent_id && <ActionButton action={rerunEval} fields={fields} label="Run again" pendingLabel="Starting…" />}
          <ActionButton action={deleteEval} fields={fields} label="Delete" pendingLabel="Deleting…" tone="danger" confirm="Delete this eval run? Its agent runs stay." />
        </div>
      </header>

      {done && (
        <p className="mb-4 text-3xl font-semibold" data-testid="eval-headline">
          <span className={headline.passed === false ? "text-red-700 dark:text-red-300" : headline.passed ? "text-emerald-700 dark:text-emerald-300" : undefined}>{headline.label}</span>
        </p>
      )}
      {active && (
        <p role="status" className="mb-4 rounded border border-sky-300 bg-sky-50 px-3 py-2 text-sm text-sky-900 dark:border-sky-800 dark:bg-sky-950 dark:text-sky-100" data-testid="eval-progress">
          {run.run_status === "PENDING" ? "Waiting to start" : "Running"}
          {progressOf(run) ? ` — ${progressOf(run)}` : ""}. This page follows it.
        </p>
      )}
      {(run.run_status === "ERROR" || run.run_status === "CANCELLED") && (
        <p role="alert" className="mb-4 rounded border border-red-400 bg-red-50 p-3 text-sm text-red-900 dark:bg-red-950 dark:text-red-100" data-testid="eval-error">
          {String(details.error ?? run.run_status)}
        </p>
      )}

      <dl className="mb-4 grid grid-cols-1 gap-x-4 gap-y-1 rounded border border-slate-200 bg-white p-4 text-sm sm:grid-cols-[10rem_1fr] dark:border-slate-800 dark:bg-slate-900">
        <dt className="text-slate-500">Agent</dt>
        <dd>
          {run.agent_id ? (
            <Link className={link} href={`/dashboard/agents/${encodeURIComponent(run.agent_id)}`}>
              {run.evaluated_component_name ?? run.agent_id}
            </Link>
          ) : run.team_id ? (
            `team ${run.team_id}`
          ) : (
            "—"
          )}
        </dd>
        <dt className="text-slate-500">Model</dt>
        <dd className="font-mono text-xs">
          {run.model_id ?? "—"} {run.model_provider && `(${run.model_provider})`}
          {details.model_override === true && <span className="ml-1 font-sans text-slate-500">for this eval only</span>}
        </dd>
        {judge && (
          <>
            <dt className="text-slate-500">Judge</dt>
            <dd className="font-mono text-xs">
              {judge.model_id} ({judge.model_provider})
            </dd>
          </>
        )}
        <dt className="text-slate-500">Input</dt>
        <dd className="whitespace-pre-wrap" data-testid="eval-input">
          {String(run.eval_input?.input ?? "—")}
        </dd>
        <dt className="text-slate-500">Started</dt>
        <dd>
          <LocalTime epoch={run.created_at} />
        </dd>
        {principal.isAdmin && (
          <>
            <dt className="text-slate-500">User</dt>
            <dd>{labelOf(labels, run.user_id) ?? "— (shared)"}</dd>
          </>
        )}
        <dt className="text-slate-500">Eval run id</dt>
        <dd className="font-mono text-xs">{run.run_id}</dd>
      </dl>

      {done && run.eval_type === "accuracy" && <AccuracyCases run={run} runs={scored} />}
      {done && run.eval_type === "agent_as_judge" && <JudgeCases run={run} runs={scored} />}
      {done && run.eval_type === "performance" && <PerformanceFigures run={run} />}
      {done && run.eval_type === "reliability" && <ReliabilityChecks run={run} runs={agentRuns} />}

      {points.length > 0 && (
        <Section title="Trend" id="eval-trend-title">
          <p className="mb-2 text-sm text-slate-600 dark:text-slate-400">
            Every run of {run.name ? <>&ldquo;{run.name}&rdquo;</> : "this unnamed eval"} against {run.agent_id ?? run.team_id}, oldest first ({points.length} {points.length === 1 ? "run" : "runs"}).
          </p>
          <TrendChart points={points} unit={headline.unit} />
          <ol className="mt-2 flex flex-wrap gap-2 text-xs">
            {points.map((p) =>
              p.current ? (
                <li key={p.id} className="rounded bg-amber-100 px-1.5 py-0.5 dark:bg-amber-900/60">
                  {p.at}: {formatEvalValue(p.value, headline.unit)}
                </li>
              ) : (
                <li key={p.id}>
                  <Link className={link} href={evalHref(p.id)}>
                    {p.at}: {formatEvalValue(p.value, headline.unit)}
                  </Link>
                </li>
              ),
            )}
          </ol>
        </Section>
      )}

      <Section title="Runs it made" id="eval-runs-title">
        {agentRuns.length === 0 ? (
          <p className="text-sm text-slate-500">{active ? "None yet." : "None recorded."}</p>
        ) : (
          <Table label="Agent runs of this eval" headers={["Iteration", "Phase", "Status", "Time", "Tokens", "Run"]} testId="eval-agent-runs">
            {agentRuns.map((r) => (
              <tr key={r.run_id}>
                <td className={cell}>{r.iteration}</td>
                <td className={cell}>{r.phase === "warmup" ? "warm-up" : "measured"}</td>
                <td className={cell}>
                  <StatusBadge status={r.status} />
                  {r.error && <span className="ml-1 text-xs text-slate-500">{r.error}</span>}
                </td>
                <td className={cell}>{formatSeconds(r.run_time)}</td>
                <td className={cell}>{r.total_tokens}</td>
                <td className={cell}>
                  <RunLink run={r} />
                </td>
              </tr>
            ))}
          </Table>
        )}
        {failures.length > 0 && (
          <div className="mt-3">
            <p className="text-sm font-medium">Left out of the figures</p>
            <ul className="list-disc pl-5 text-sm text-slate-700 dark:text-slate-300">
              {failures.map((f) => (
                <li key={f.iteration}>
                  iteration {f.iteration}: {f.error}
                </li>
              ))}
            </ul>
          </div>
        )}
      </Section>

      <details className="mb-4 rounded border border-slate-200 bg-white p-4 text-sm dark:border-slate-800 dark:bg-slate-900">
        <summary className="cursor-pointer font-medium">Stored result (eval_data, as the API returns it)</summary>
        <div className="mt-2">
          <JsonView value={run.eval_data} label="eval_data" />
        </div>
      </details>
    </main>
  );
}
