import Link from "next/link";
import type { StudioVersion } from "@/lib/http/dashboard/studio-view.ts";
import { ActionButton } from "../action-button.tsx";
import { LocalTime } from "../schedules/local-time.tsx";
import type { UserAction } from "../users/user-action-types.ts";
import { StageBadge } from "./stage-badge.tsx";

const link = "text-sky-700 hover:underline dark:text-sky-400";
const td = "py-2 pr-4 align-top";

/**
 * A component's versions, newest first: stage, which one is current, notes and times, a link to
 * view each; for its owner (or an admin) "Publish" on the draft, "Set current" (rollback) on an
 * earlier published version, "Discard" on a draft, and "Try it" on a draft (the playground on it).
 */
export function VersionHistory({
  componentId,
  versions,
  currentVersion,
  shownVersion,
  editable,
  tryHref,
  actions,
}: {
  componentId: string;
  versions: StudioVersion[];
  currentVersion: number | null;
  shownVersion: number | null;
  editable: boolean;
  /** The playground on a version (null: the caller may not run drafts, or the type has none). */
  tryHref: (version: number) => string | null;
  actions: { publish: UserAction; setCurrent: UserAction; discard: UserAction };
}) {
  if (versions.length === 0) return <p className="text-sm text-slate-500">No versions you can see.</p>;
  const base = `/dashboard/studio/${encodeURIComponent(componentId)}`;
  return (
    <div className="overflow-x-auto">
      <table className="w-full text-left text-sm" aria-label="Versions">
        <thead className="text-slate-500">
          <tr>
            <th scope="col" className="py-2 pr-4 font-medium">
              Version
            </th>
            <th scope="col" className="py-2 pr-4 font-medium">
              Stage
            </th>
            <th scope="col" className="py-2 pr-4 font-medium">
              Notes
            </th>
            <th scope="col" className="py-2 pr-4 font-medium">
              Saved
            </th>
            <th scope="col" className="py-2 pr-4 font-medium">
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-200 dark:divide-slate-800">
          {versions.map((v) => {
            const tryIt = v.stage === "draft" ? tryHref(v.version) : null;
            return (
              <tr key={v.version} data-testid={`version-${v.version}`}>
                <td className={td}>
                  <Link className={link} href={`${base}?version=${v.version}`} aria-current={v.version === shownVersion ? "true" : undefined}>
                    v{v.version}
                  </Link>
                  {v.version === shownVersion && <span className="ml-1 text-xs text-slate-500">(shown)</span>}
                  {v.label && <span className="ml-1 font-mono text-xs text-slate-500">{v.label}</span>}
                </td>
                <td className={td}>
                  <StageBadge stage={v.stage} />
                  {v.current && (
                    <span data-testid="current-marker" className="ml-1 rounded bg-sky-100 px-1.5 py-0.5 text-xs font-medium text-sky-800 dark:bg-sky-900/60 dark:text-sky-200">
                      current
                    </span>
                  )}
                </td>
                <td className={`${td} max-w-xs break-words text-slate-700 dark:text-slate-300`}>{v.notes ?? <span className="text-slate-400">—</span>}</td>
                <td className={td}>
                  <LocalTime epoch={v.updatedAt ?? v.createdAt} />
                </td>
                <td className={td}>
                  <div className="flex flex-wrap items-start gap-2">
                    {tryIt && (
                      <Link href={tryIt} className="rounded border border-slate-300 px-2 py-1 text-sm hover:bg-slate-50 dark:border-slate-700 dark:hover:bg-slate-800" aria-label={`Try v${v.version}`}>
                        Try it
                      </Link>
                    )}
                    {editable && v.stage === "draft" && (
                      <ActionButton action={actions.publish} fields={{ componentId, version: String(v.version) }} label={`Publish v${v.version}`} pendingLabel="Publishing…" />
                    )}
                    {editable && v.stage === "published" && !v.current && (
                      <ActionButton
                        action={actions.setCurrent}
                        fields={{ componentId, version: String(v.version), ...(currentVersion !== null ? { currentVersion: String(currentVersion) } : {}) }}
                        label={`Make v${v.version} current`}
                        pendingLabel="Rolling back…"
                        confirm={`Make v${v.version} the version every run uses?`}
                      />
                    )}
                    {editable && v.stage === "draft" && (
                      <ActionButton
                        action={actions.discard}
                        fields={{ componentId, version: String(v.version) }}
                        label="Discard"
                        tone="danger"
                        confirm={`Discard draft v${v.version}? Its number is not reused.`}
                      />
                    )}
                  </div>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
