"use client";

import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { DayPoint } from "@/lib/metrics/metrics-summary.ts";
import { formatCount } from "../format.ts";
import { formatUsd } from "./format-usd.ts";

export type DailyMeasure = "runs" | "tokens" | "cost" | "sessions";

const COLORS: Record<DailyMeasure, string> = { runs: "#0284c7", tokens: "#7c3aed", cost: "#059669", sessions: "#d97706" };
const LABELS: Record<DailyMeasure, string> = { runs: "Runs", tokens: "Tokens", cost: "Cost (USD)", sessions: "Sessions" };

const format = (measure: DailyMeasure, value: number | null | undefined) => (measure === "cost" ? formatUsd(value ?? null) : formatCount(value ?? 0));
/** `2026-01-15` → `01-15` on the axis. */
const tick = (date: string) => date.slice(5);

/**
 * One measure per day as a bar chart (a day with no priced run has no cost bar). Client-side only (Recharts measures its container); `testId` marks it for tests.
 */
export function DailyChart({ days, measure, testId, height = 220 }: { days: DayPoint[]; measure: DailyMeasure; testId: string; height?: number }) {
  const total = days.reduce((n, d) => n + (d[measure] ?? 0), 0);
  const common = (
    <>
      <CartesianGrid strokeDasharray="3 3" stroke="#cbd5e1" vertical={false} />
      <XAxis dataKey="date" tickFormatter={tick} tick={{ fontSize: 12 }} minTickGap={12} />
      <YAxis tick={{ fontSize: 12 }} width={measure === "cost" ? 70 : 56} tickFormatter={(v: number) => (measure === "cost" ? formatUsd(v) : formatCount(v))} allowDecimals={measure === "cost"} />
      <Tooltip formatter={(value) => [format(measure, typeof value === "number" ? value : Number(value)), LABELS[measure]]} labelFormatter={(label) => String(label)} />
    </>
  );
  return (
    <figure data-testid={testId} data-total={total} aria-label={`${LABELS[measure]} per day`} className="w-full">
      {measure === "cost" && days.every((d) => d.cost === null) && <figcaption className="mb-1 text-sm text-slate-500">No run in this range used a model with a price.</figcaption>}
      <div style={{ width: "100%", height }}>
        <ResponsiveContainer width="100%" height="100%">
          <BarChart data={days} margin={{ top: 8, right: 8, left: 0, bottom: 0 }}>
            {common}
            <Bar dataKey={measure} name={LABELS[measure]} fill={COLORS[measure]} radius={[3, 3, 0, 0]} isAnimationActive={false} />
          </BarChart>
        </ResponsiveContainer>
      </div>
    </figure>
  );
}
