import Link from "next/link";
import type { CodeComponentRow, StudioListRow } from "@/lib/http/dashboard/studio-view.ts";
import { LocalTime } from "../schedules/local-time.tsx";
import { StageBadge, TypeBadge } from "./stage-badge.tsx";

const link = "text-sky-700 hover:underline dark:text-sky-400";
const frame = "relative overflow-x-auto rounded border border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900";
const head = "bg-slate-50 text-slate-600 dark:bg-slate-800/60 dark:text-slate-300";
const th = "px-3 py-2 font-medium whitespace-nowrap";
const td = "px-3 py-2 align-top";

/** A table's column headings. */
function HeadRow({ columns }: { columns: string[] }) {
  return (
    <thead className={head}>
      <tr>
        {columns.map((column) => (
          <th key={column} scope="col" className={th}>
            {column}
          </th>
        ))}
      </tr>
    </thead>
  );
}

export const studioComponentHref = (id: string) => `/dashboard/studio/${encodeURIComponent(id)}`;

/** Studio's components: name, type, stage, current version, owner and last edit; the caller's own marked editable. */
export function StudioTable({ rows, empty }: { rows: StudioListRow[]; empty: string }) {
  return (
    <div className={frame} data-testid="studio-table">
      <table className="w-full min-w-[44rem] text-left text-sm" aria-label="Studio components">
        <HeadRow columns={["Name", "Type", "Stage", "Current version", "Owner", "Last edit"]} />
        <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
          {rows.map((row) => (
            <tr key={row.id} data-testid={`studio-row-${row.id}`} className="hover:bg-slate-50 dark:hover:bg-slate-800/40">
              <td className={td}>
                <Link className={`${link} font-medium`} href={studioComponentHref(row.id)}>
                  {row.name}
                </Link>
                <span className="block font-mono text-xs text-slate-500">{row.id}</span>
                {row.description && <span className="block max-w-md truncate text-xs text-slate-600 dark:text-slate-400">{row.description}</span>}
              </td>
              <td className={td}>
                <TypeBadge type={row.type} />
              </td>
              <td className={td} data-testid="studio-stage">
                <StageBadge stage={row.stage} />
                {row.draftVersion !== null && row.stage === "published" && <span className="ml-1 text-xs text-amber-700 dark:text-amber-300">draft v{row.draftVersion} unpublished</span>}
              </td>
              <td className={td} data-testid="studio-current-version">
                {row.currentVersion === null ? <span className="text-slate-500">— (never published)</span> : `v${row.currentVersion}`}
                {row.latestVersion !== null && row.latestVersion !== row.currentVersion && <span className="block text-xs text-slate-500">latest v{row.latestVersion}</span>}
              </td>
              <td className={td}>
                {row.owner}
                {!row.editable && row.stage !== "archived" && <span className="block text-xs text-slate-500">view only</span>}
              </td>
              <td className={td}>
                <LocalTime epoch={row.updatedAt} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {rows.length === 0 && <div className="px-4 py-8 text-center text-sm text-slate-500">{empty}</div>}
    </div>
  );
}

/** The agents, teams and workflows defined in agentry.config.ts: listed, run from their playgrounds, never edited in Studio. */
export function CodeComponentsTable({ rows }: { rows: CodeComponentRow[] }) {
  return (
    <div className={frame}>
      <table className="w-full text-left text-sm" aria-label="Defined in code">
        <HeadRow columns={["Name", "Type", "Editable"]} />
        <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
          {rows.map((row) => (
            <tr key={`${row.type}:${row.id}`} data-testid={`code-row-${row.type}-${row.id}`}>
              <td className={td}>
                <Link className={link} href={row.href}>
                  {row.name}
                </Link>
                <span className="ml-2 font-mono text-xs text-slate-500">{row.id}</span>
              </td>
              <td className={td}>
                <TypeBadge type={row.type} />
              </td>
              <td className={`${td} text-slate-500`}>No: defined in agentry.config.ts</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
