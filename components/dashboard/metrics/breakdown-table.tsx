import type { BreakdownRow } from "@/lib/metrics/metrics-summary.ts";
import { formatCount } from "../format.ts";
import { formatUsd } from "./format-usd.ts";

/** Runs, tokens and cost per agent or per model; a model without a price shows its tokens and "no price". */
export function BreakdownTable({ rows, heading, testId, empty }: { rows: BreakdownRow[]; heading: string; testId: string; empty: string }) {
  if (rows.length === 0) return <p className="text-sm text-slate-500">{empty}</p>;
  const cell = "px-2 py-1.5 text-right tabular-nums";
  return (
    <div className="overflow-x-auto">
      <table data-testid={testId} className="w-full text-sm">
        <thead className="text-left text-xs text-slate-500 uppercase">
          <tr>
            <th scope="col" className="px-2 py-1.5">
              {heading}
            </th>
            <th scope="col" className={cell}>
              Runs
            </th>
            <th scope="col" className={cell}>
              Input tokens
            </th>
            <th scope="col" className={cell}>
              Output tokens
            </th>
            <th scope="col" className={cell}>
              Cost
            </th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-200 dark:divide-slate-800">
          {rows.map((row) => (
            <tr key={row.key} data-testid="breakdown-row">
              <th scope="row" className="px-2 py-1.5 text-left font-normal">
                {row.label}
              </th>
              <td className={cell}>{formatCount(row.runs)}</td>
              <td className={cell}>{formatCount(row.input_tokens)}</td>
              <td className={cell}>{formatCount(row.output_tokens)}</td>
              <td className={cell} data-testid="cost">
                {formatUsd(row.cost)}
                {row.cost !== null && row.unpriced_runs > 0 && <span className="ml-1 text-xs text-slate-500">(+{row.unpriced_runs} without a price)</span>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
