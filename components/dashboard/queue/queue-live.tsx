"use client";

import { useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import type { QueueSnapshot } from "@/lib/http/dashboard/queue-snapshot.ts";
import { formatAge, formatTime } from "../format.ts";
import { StatusBadge } from "../status-badge.tsx";

const ORDER = ["queued", "running", "paused", "completed", "failed", "cancelled"] as const;

/**
 * The queue's live part: counts per status and the oldest queued age (durable), or this replica's
 * in-process background runs (not durable), kept current over SSE. When the jobs change, the page
 * re-renders its table from the server, so rows move without a reload.
 */
// Counts change too when a job is claimed and finished within one second (same fingerprint).
const versionOf = (s: QueueSnapshot) => (s.durable ? `${s.fingerprint}|${JSON.stringify(s.stats.counts)}` : "");

export function QueueLive({ initial, feed }: { initial: QueueSnapshot; feed: string }) {
  const router = useRouter();
  const [snapshot, setSnapshot] = useState(initial);
  const [connection, setConnection] = useState<"connecting" | "live" | "retrying">("connecting");
  const [problem, setProblem] = useState<string | null>(null);
  const version = useRef(versionOf(initial));
  useEffect(() => {
    const source = new EventSource(feed);
    source.addEventListener("open", () => setConnection("live"));
    source.addEventListener("snapshot", (event) => {
      const next = JSON.parse((event as MessageEvent<string>).data) as QueueSnapshot;
      setSnapshot(next);
      setProblem(null);
      setConnection("live");
      if (next.durable && versionOf(next) !== version.current) {
        version.current = versionOf(next);
        router.refresh();
      }
    });
    source.addEventListener("error", (event) => {
      const data = (event as MessageEvent<string>).data;
      if (data) setProblem((JSON.parse(data) as { detail: string }).detail);
      // EventSource reconnects by itself; say so rather than showing stale numbers as live.
      else setConnection("retrying");
    });
    return () => source.close();
  }, [feed, router]);

  return (
    <div className="mb-4">
      <p className="mb-2 text-xs text-slate-500" data-testid="queue-connection">
        {connection === "live" ? "● live" : connection === "retrying" ? "reconnecting…" : "connecting…"}
      </p>
      {problem && (
        <p role="alert" className="mb-2 text-sm text-red-700 dark:text-red-300">
          {problem}
        </p>
      )}
      {snapshot.durable ? (
        <dl className="grid grid-cols-2 gap-2 sm:grid-cols-4 lg:grid-cols-7" data-testid="queue-counts">
          {ORDER.map((status) => (
            <div key={status} className="rounded border border-slate-200 bg-white p-3 dark:border-slate-800 dark:bg-slate-900">
              <dt className="text-xs text-slate-500">{status}</dt>
              <dd className="text-2xl font-semibold" data-testid={`count-${status}`}>
                {snapshot.stats.counts[status].toLocaleString("en")}
              </dd>
            </div>
          ))}
          <div className="rounded border border-slate-200 bg-white p-3 dark:border-slate-800 dark:bg-slate-900">
            <dt className="text-xs text-slate-500">oldest queued</dt>
            <dd className="text-2xl font-semibold" data-testid="oldest-queued">
              {formatAge(snapshot.stats.oldest_queued_age_seconds)}
            </dd>
          </div>
        </dl>
      ) : (
        <InProcessRuns runs={snapshot.runs} maxConcurrency={snapshot.maxConcurrency} />
      )}
    </div>
  );
}

function InProcessRuns({ runs, maxConcurrency }: { runs: Extract<QueueSnapshot, { durable: false }>["runs"]; maxConcurrency: number }) {
  const running = runs.filter((r) => r.status === "RUNNING").length;
  return (
    <div className="rounded border border-slate-200 bg-white p-4 dark:border-slate-800 dark:bg-slate-900">
      <p className="mb-3 text-sm" data-testid="in-process-load">
        {running} running of at most {maxConcurrency} at once · {runs.length - running} waiting
      </p>
      {runs.length === 0 ? (
        <p className="text-sm text-slate-500">No background runs on this server right now.</p>
      ) : (
        <div className="overflow-x-auto">
          <table className="w-full min-w-[32rem] text-left text-sm" aria-label="In-process background runs">
            <thead className="text-slate-500">
              <tr>
                <th className="py-1 pr-3 font-medium">Status</th>
                <th className="py-1 pr-3 font-medium">Run</th>
                <th className="py-1 pr-3 font-medium">Agent</th>
                <th className="py-1 font-medium">Since (UTC)</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
              {runs.map((run) => (
                <tr key={run.runId} data-testid="table-row">
                  <td className="py-1 pr-3">
                    <StatusBadge status={run.status} />
                  </td>
                  <td className="py-1 pr-3 font-mono text-xs">
                    <a className="text-sky-700 hover:underline dark:text-sky-400" href={`/dashboard/runs/${encodeURIComponent(run.runId)}?session_id=${encodeURIComponent(run.sessionId)}`}>
                      {run.runId}
                    </a>
                  </td>
                  <td className="py-1 pr-3">{run.agentId}</td>
                  <td className="py-1">{formatTime(Math.floor(run.since / 1000))}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
