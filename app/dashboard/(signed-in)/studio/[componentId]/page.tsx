import Link from "next/link";
import { notFound } from "next/navigation";
import { ActionButton } from "@/components/dashboard/action-button.tsx";
import { Breadcrumb } from "@/components/dashboard/breadcrumb.tsx";
import { LocalTime } from "@/components/dashboard/schedules/local-time.tsx";
import { Section } from "@/components/dashboard/section.tsx";
import { ComponentEditor } from "@/components/dashboard/studio/component-editor.tsx";
import { ConfigDiff } from "@/components/dashboard/studio/config-diff.tsx";
import { ConfigSummary } from "@/components/dashboard/studio/config-summary.tsx";
import { StageBadge, TypeBadge } from "@/components/dashboard/studio/stage-badge.tsx";
import { VersionHistory } from "@/components/dashboard/studio/version-history.tsx";
import { requireDashboardSession } from "@/lib/http/dashboard/current-user.ts";
import { firstParam, pathId, type SearchParams } from "@/lib/http/dashboard/search-params.ts";
import { loadStudioChoices, loadStudioComponent } from "@/lib/http/dashboard/studio-view.ts";
import { userLabels } from "@/lib/http/dashboard/user-labels.ts";
import { archiveStudioComponent, checkStudioOutputSchema, deleteStudioDraft, publishStudioDraft, restoreStudioComponent, saveStudioDraft, setStudioCurrent } from "../actions.ts";

export const dynamic = "force-dynamic";

const button = "rounded border border-slate-300 px-2 py-1 text-sm hover:bg-slate-50 dark:border-slate-700 dark:hover:bg-slate-800";
const primary = "rounded bg-slate-900 px-3 py-1 text-sm font-medium text-white hover:bg-slate-700 dark:bg-slate-100 dark:text-slate-900 dark:hover:bg-slate-300";

/** The playground of a component, on `version` when given (a draft: its owner or an admin only). */
function playgroundHref(type: string, id: string, version?: number): string {
  const base = `/dashboard/${type}s/${encodeURIComponent(id)}`;
  return version === undefined ? base : `${base}?version=${version}`;
}

/**
 * One Studio component: its stage and versions; for its owner (or an admin) the editor on the
 * draft (or, without one, on the shown version: saving makes a new draft), "Try it" on the draft
 * (the playground runs that version), the draft's diff against the published version, Publish,
 * rollback to an earlier published version, Discard, Archive and Restore. Anyone else sees a
 * published component's current version, read-only. Another member's draft-only component is a
 * 404, as one that does not exist.
 */
export default async function StudioComponentPage({ params, searchParams }: { params: Promise<{ componentId: string }>; searchParams: Promise<SearchParams> }) {
  const { db, settings, principal } = await requireDashboardSession();
  const componentId = pathId((await params).componentId);
  if (!componentId) notFound();
  const query = await searchParams;
  const asked = firstParam(query, "version");
  const version = asked && /^\d{1,9}$/.test(asked) ? Number(asked) : undefined;
  const view = await loadStudioComponent(db, settings, principal, componentId, { version, labels: await userLabels(db, principal) });
  if (!view) notFound();
  const { component, draft, published, shown } = view;
  const type = component.component_type;
  const name = component.name ?? component.component_id;
  const saved = firstParam(query, "saved");
  const choices = view.editable ? await loadStudioChoices(db, settings, principal, { type, exclude: component.component_id }) : null;
  // Saving what is shown: the draft in place, or (another version shown) a new draft after the newest.
  const editing = shown && draft && shown.version === draft.version ? { version: draft.version } : { latestVersion: view.latestVersion ?? undefined };
  const tryHref = (v: number) => (view.mayTry ? playgroundHref(type, component.component_id, v) : null);
  const stage = view.archived ? "archived" : component.current_version === null ? "draft" : "published";

  return (
    <main className="mx-auto max-w-5xl p-4 md:p-6">
      <Breadcrumb parent={{ href: "/dashboard/studio", label: "Studio" }} current={component.component_id} />
      <header className="mb-4 flex flex-wrap items-center gap-3">
        <h1 className="text-2xl font-semibold" data-testid="component-name">
          {name}
        </h1>
        <TypeBadge type={type} />
        <StageBadge stage={stage} />
        <span data-testid="component-current" className="text-sm text-slate-600 dark:text-slate-400">
          {component.current_version === null ? "never published" : `current: v${component.current_version}`}
        </span>
        <div className="ml-auto flex flex-wrap items-start gap-2">
          {draft && view.mayTry && (
            <Link href={playgroundHref(type, component.component_id, draft.version)} className={primary}>
              Try it (draft v{draft.version})
            </Link>
          )}
          {component.current_version !== null && !view.archived && (
            <Link href={playgroundHref(type, component.component_id)} className={button}>
              Playground (v{component.current_version})
            </Link>
          )}
          {view.editable && draft && (
            <ActionButton action={publishStudioDraft} fields={{ componentId: component.component_id, version: String(draft.version) }} label={`Publish v${draft.version}`} pendingLabel="Publishing…" />
          )}
          {view.owned && !view.archived && (
            <ActionButton
              action={archiveStudioComponent}
              fields={{ componentId: component.component_id, ...(component.current_version !== null ? { currentVersion: String(component.current_version) } : {}) }}
              label="Archive"
              tone="danger"
              confirm={`Archive ${name}? No one can run it (its schedules are disabled) until it is restored.`}
            />
          )}
          {view.owned && view.archived && <ActionButton action={restoreStudioComponent} fields={{ componentId: component.component_id }} label="Restore" pendingLabel="Restoring…" />}
        </div>
      </header>
      {component.description && <p className="mb-3 text-slate-700 dark:text-slate-300">{component.description}</p>}
      <p className="mb-4 text-sm text-slate-600 dark:text-slate-400">
        <code>{component.component_id}</code> · owner: {view.owner} · created <LocalTime epoch={component.created_at} />
        {component.updated_at !== null && (
          <>
            {" "}
            · changed <LocalTime epoch={component.updated_at} />
          </>
        )}
        {component.current_version !== null && !view.archived && (
          <>
            {" "}
            · over HTTP:{" "}
            <code>
              POST /{type}s/{component.component_id}/runs
            </code>
            {draft && view.mayTry && (
              <>
                {" "}
                (form field <code>version={draft.version}</code> for the draft)
              </>
            )}
          </>
        )}
      </p>
      {saved && (
        <p role="status" className="mb-4 rounded border border-emerald-300 bg-emerald-50 px-3 py-2 text-sm text-emerald-900 dark:border-emerald-800 dark:bg-emerald-950 dark:text-emerald-100">
          Draft v{saved} saved.{view.mayTry && " Try it before you publish it."}
        </p>
      )}
      {view.archived && (
        <p role="alert" className="mb-4 rounded border border-zinc-300 bg-zinc-50 p-3 text-sm text-zinc-800 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-200">
          Archived: no one can run it, and its versions are read-only, until it is restored.
        </p>
      )}
      {!view.editable && !view.archived && (
        <p role="note" data-testid="view-only" className="mb-4 rounded border border-sky-300 bg-sky-50 p-3 text-sm text-sky-900 dark:border-sky-800 dark:bg-sky-950 dark:text-sky-100">
          {component.user_id === null ? "A shared component: only admins can change it." : "Made by another user: you can run its published version, but only its owner can change it."}
        </p>
      )}

      {view.editable && choices && shown && (
        <Section title={draft && shown.version === draft.version ? `Edit draft v${draft.version}` : `Edit (from v${shown.version}; saving makes a new draft)`} id="edit">
          <ComponentEditor
            key={`${shown.version}:${shown.updated_at ?? shown.created_at}`}
            type={type}
            saved={shown.config ?? {}}
            choices={choices}
            target={{ componentId: component.component_id, ...editing }}
            actions={{ save: saveStudioDraft, checkSchema: checkStudioOutputSchema }}
          />
        </Section>
      )}
      {!view.editable && shown && (
        <Section title={`v${shown.version}${shown.version === component.current_version ? " (current)" : ""}`} id="config">
          <ConfigSummary type={type} config={shown.config ?? {}} />
        </Section>
      )}

      {draft && published && view.diff && (
        <Section title={`Draft v${draft.version} against published v${published.version}`} id="diff">
          <ConfigDiff diff={view.diff} from={`v${published.version}`} to={`draft v${draft.version}`} />
        </Section>
      )}

      <Section title="Versions" id="versions">
        <VersionHistory
          componentId={component.component_id}
          versions={view.versions}
          currentVersion={component.current_version}
          shownVersion={shown?.version ?? null}
          editable={view.editable}
          tryHref={tryHref}
          actions={{ publish: publishStudioDraft, setCurrent: setStudioCurrent, discard: deleteStudioDraft }}
        />
      </Section>
    </main>
  );
}
