"use client";

import { Bar, BarChart, CartesianGrid, Line, LineChart, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";

/** One re-run of an eval on its trend: when, its value, and whether it is the run on this page. */
export interface TrendPoint {
  id: string;
  /** `YYYY-MM-DD HH:MM` UTC. */
  at: string;
  value: number;
  current: boolean;
}

const UNIT_LABELS = { score: "Score (of 10)", percent: "Pass rate (%)", seconds: "Mean run time (ms)", pass: "Passed (1) / failed (0)" } as const;

/**
 * The eval's score over its re-runs (one point per run, oldest first), so a regression shows as a
 * drop; performance in milliseconds. Client-side only (Recharts measures its container).
 */
export function TrendChart({ points, unit }: { points: TrendPoint[]; unit: keyof typeof UNIT_LABELS }) {
  const data = points.map((p) => ({ ...p, plotted: unit === "seconds" ? Math.round(p.value * 100_000) / 100 : p.value }));
  const domain: [number, number] | undefined = unit === "score" ? [0, 10] : unit === "percent" ? [0, 100] : unit === "pass" ? [0, 1] : undefined;
  return (
    <figure data-testid="eval-trend" data-points={points.length} aria-label={`${UNIT_LABELS[unit]} over the eval's runs`} className="w-full">
      <div style={{ width: "100%", height: 220 }}>
        <ResponsiveContainer width="100%" height="100%">
          <LineChart data={data} margin={{ top: 8, right: 16, left: 0, bottom: 0 }}>
            <CartesianGrid strokeDasharray="3 3" stroke="#cbd5e1" vertical={false} />
            <XAxis dataKey="at" tick={{ fontSize: 11 }} minTickGap={24} />
            <YAxis tick={{ fontSize: 12 }} width={48} domain={domain} allowDecimals={unit !== "pass"} />
            <Tooltip formatter={(value) => [String(value), UNIT_LABELS[unit]]} labelFormatter={(label) => `${String(label)} UTC`} />
            <Line
              type="monotone"
              dataKey="plotted"
              name={UNIT_LABELS[unit]}
              stroke="#0284c7"
              strokeWidth={2}
              isAnimationActive={false}
              dot={(props: { cx?: number; cy?: number; payload?: { current: boolean; id: string } }) => (
                <circle key={props.payload?.id} cx={props.cx} cy={props.cy} r={props.payload?.current ? 6 : 3} fill={props.payload?.current ? "#f59e0b" : "#0284c7"} stroke="white" strokeWidth={1} />
              )}
            />
          </LineChart>
        </ResponsiveContainer>
      </div>
      <figcaption className="mt-1 text-xs text-slate-500">{UNIT_LABELS[unit]}, one point per run of this eval; this run is the larger orange point.</figcaption>
    </figure>
  );
}

/** A performance eval's measured runs: the time of each (ms), with its median and p95 drawn across. */
export function RunTimesChart({ runTimes, median, p95 }: { runTimes: number[]; median: number; p95: number }) {
  const data = runTimes.map((t, i) => ({ run: i + 1, ms: Math.round(t * 100_000) / 100 }));
  const ms = (s: number) => Math.round(s * 100_000) / 100;
  return (
    <figure data-testid="run-times-chart" data-runs={runTimes.length} aria-label="Run time of each measured run" className="w-full">
      <div style={{ width: "100%", height: 220 }}>
        <ResponsiveContainer width="100%" height="100%">
          <BarChart data={data} margin={{ top: 8, right: 16, left: 0, bottom: 0 }}>
            <CartesianGrid strokeDasharray="3 3" stroke="#cbd5e1" vertical={false} />
            <XAxis dataKey="run" tick={{ fontSize: 12 }} />
            <YAxis tick={{ fontSize: 12 }} width={56} unit=" ms" />
            <Tooltip formatter={(value) => [`${String(value)} ms`, "Run time"]} labelFormatter={(label) => `Run ${String(label)}`} />
            <Bar dataKey="ms" name="Run time" fill="#7c3aed" radius={[3, 3, 0, 0]} isAnimationActive={false} />
            <ReferenceLine y={ms(median)} ifOverflow="extendDomain" stroke="#059669" strokeDasharray="4 2" label={{ value: "median", fontSize: 11, position: "insideTopRight" }} />
            <ReferenceLine y={ms(p95)} ifOverflow="extendDomain" stroke="#dc2626" strokeDasharray="4 2" label={{ value: "p95", fontSize: 11, position: "insideTopRight" }} />
          </BarChart>
        </ResponsiveContainer>
      </div>
    </figure>
  );
}
