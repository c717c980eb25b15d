"use client";

import { useRouter } from "next/navigation";
import { useActionState, useEffect, useId, useRef, useState, useTransition, type FormEvent } from "react";
import { Field, textInput } from "@/components/dashboard/form-field.tsx";
import { ActionResult } from "@/components/dashboard/users/action-result.tsx";
import { IDLE_STATE } from "@/components/dashboard/users/user-action-types.ts";
import { CronPreview } from "./cron-preview.tsx";
import { useViewerTimeZone } from "./local-time.tsx";
import { MISFIRE_CHOICES, type ScheduleAction, type ScheduleFormValues } from "./schedule-row.ts";

const METHODS = ["POST", "GET", "PUT", "PATCH", "DELETE"];

/** A few expressions to start from. */
const PRESETS = [
  { cron: "0 9 * * 1-5", label: "Weekdays 09:00" },
  { cron: "0 * * * *", label: "Every hour" },
  { cron: "*/15 * * * *", label: "Every 15 minutes" },
  { cron: "0 0 1 * *", label: "Monthly" },
];

/** Every IANA zone the browser knows, for the time-zone field's suggestions. */
function timeZones(): string[] {
  try {
    return (Intl as unknown as { supportedValuesOf?: (key: string) => string[] }).supportedValuesOf?.("timeZone") ?? [];
  } catch {
    return [];
  }
}

/**
 * Creates or edits a schedule. The common case is one agent and a message (POST
 * /agents/<id>/runs with {"message": …}); `allowEndpoint` also offers a raw method, endpoint and
 * JSON payload (admins, or a schedule that already has one). The cron expression and time zone
 * drive a live preview as they are typed. What was typed survives a refusal; after a create the
 * list opens, after an edit the page re-renders.
 */
export function ScheduleForm({
  action,
  agents,
  initial,
  scheduleId,
  owners,
  allowEndpoint,
  submitLabel,
}: {
  action: ScheduleAction;
  agents: { id: string; name: string }[];
  initial: ScheduleFormValues;
  /** Set when editing. */
  scheduleId?: string;
  /** Admins creating a schedule choose whose it is. */
  owners?: { options: { id: string; label: string }[]; selected: string };
  allowEndpoint: boolean;
  submitLabel: string;
}) {
  const id = useId();
  const router = useRouter();
  const viewer = useViewerTimeZone();
  const [cron, setCron] = useState(initial.cron_expr);
  const [timezone, setTimezone] = useState(initial.timezone);
  const [target, setTarget] = useState<"agent" | "endpoint">(initial.target);
  const [zones, setZones] = useState<string[]>([]);
  const submittedName = useRef("");
  const [, startTransition] = useTransition();
  const [state, dispatch, pending] = useActionState(action, IDLE_STATE);
  useEffect(() => {
    if (!state.ok) return;
    if (scheduleId) router.refresh();
    else router.push(`/dashboard/schedules?created=${encodeURIComponent(submittedName.current)}`);
  }, [state, scheduleId, router]);
  // Submitted by hand: React resets a form after an action submitted through `action=`.
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const formData = new FormData(event.currentTarget);
    submittedName.current = String(formData.get("name") ?? "");
    startTransition(() => dispatch(formData));
  };
  const f = (name: string) => `${id}-${name}`;

  return (
    <form onSubmit={onSubmit} className="grid gap-4" aria-label={scheduleId ? "Edit schedule" : "New schedule"} noValidate>
      {scheduleId && <input type="hidden" name="scheduleId" value={scheduleId} />}
      <div className="grid gap-4 md:grid-cols-2">
        <Field label="Name" htmlFor={f("name")} hint="Letters, digits, '.', '_' and '-'; starts with a letter or digit.">
          <input id={f("name")} name="name" defaultValue={initial.name} placeholder="daily-report" className={textInput} autoComplete="off" />
        </Field>
        <Field label="Description" htmlFor={f("description")}>
          <input id={f("description")} name="description" defaultValue={initial.description} placeholder="What it is for (optional)" className={textInput} />
        </Field>
      </div>

      <fieldset className="rounded border border-slate-200 p-3 dark:border-slate-800">
        <legend className="px-1 text-sm font-medium">What it runs</legend>
        {allowEndpoint && (
          <div className="mb-3 flex gap-4 text-sm">
            <label className="flex items-center gap-1">
              <input type="radio" name="target" value="agent" checked={target === "agent"} onChange={() => setTarget("agent")} /> An agent, with a message
            </label>
            <label className="flex items-center gap-1">
              <input type="radio" name="target" value="endpoint" checked={target === "endpoint"} onChange={() => setTarget("endpoint")} /> An endpoint (advanced)
            </label>
          </div>
        )}
        {!allowEndpoint && <input type="hidden" name="target" value="agent" />}
        {target === "agent" ? (
          <div className="grid gap-4 md:grid-cols-[16rem_1fr]">
            <Field label="Agent" htmlFor={f("agent")}>
              <select id={f("agent")} name="agent_id" defaultValue={initial.agent_id} className={textInput}>
                {agents.length === 0 && <option value="">No agents are configured</option>}
                {/* An agent the schedule names that this server no longer has stays listed, so saving shows why it is refused. */}
                {initial.agent_id && !agents.some((a) => a.id === initial.agent_id) && <option value={initial.agent_id}>{initial.agent_id} (not configured)</option>}
                {agents.map((a) => (
                  <option key={a.id} value={a.id}>
                    {a.name} ({a.id})
                  </option>
                ))}
              </select>
            </Field>
            <Field label="Message" htmlFor={f("message")} hint="What the agent is asked at each fire.">
              <textarea id={f("message")} name="message" rows={2} defaultValue={initial.message} placeholder="Summarise yesterday's sign-ups" className={textInput} />
            </Field>
          </div>
        ) : (
          <div className="grid gap-4 md:grid-cols-[8rem_1fr]">
            <Field label="Method" htmlFor={f("method")}>
              <select id={f("method")} name="method" defaultValue={initial.method} className={textInput}>
                {METHODS.map((m) => (
                  <option key={m}>{m}</option>
                ))}
              </select>
            </Field>
            <Field label="Endpoint" htmlFor={f("endpoint")} hint="A path on this server, e.g. /agents/assistant/runs (not a full URL).">
              <input id={f("endpoint")} name="endpoint" defaultValue={initial.endpoint} placeholder="/agents/assistant/runs" className={`${textInput} font-mono`} />
            </Field>
            <div className="md:col-span-2">
              <Field label="Payload (JSON object)" htmlFor={f("payload")} hint="Run endpoints get its fields as form fields; other endpoints get it as the JSON body.">
                <textarea id={f("payload")} name="payload" rows={4} defaultValue={initial.payload} placeholder='{"message": "Good morning"}' className={`${textInput} font-mono`} />
              </Field>
            </div>
          </div>
        )}
      </fieldset>

      <fieldset className="rounded border border-slate-200 p-3 dark:border-slate-800">
        <legend className="px-1 text-sm font-medium">When it fires</legend>
        <div className="grid gap-4 md:grid-cols-2">
          <div className="grid content-start gap-4">
            <Field label="Cron expression" htmlFor={f("cron")} hint="Five fields: minute hour day-of-month month day-of-week.">
              <input
                id={f("cron")}
                name="cron_expr"
                value={cron}
                onChange={(e) => setCron(e.target.value)}
                placeholder="0 9 * * 1-5"
                className={`${textInput} font-mono`}
                autoComplete="off"
                spellCheck={false}
              />
            </Field>
            <div className="flex flex-wrap gap-2 text-xs">
              {PRESETS.map((p) => (
                <button
                  key={p.cron}
                  type="button"
                  onClick={() => setCron(p.cron)}
                  className="rounded border border-slate-300 px-2 py-0.5 hover:bg-slate-50 dark:border-slate-700 dark:hover:bg-slate-800"
                >
                  {p.label}
                </button>
              ))}
            </div>
            <Field
              label="Time zone"
              htmlFor={f("timezone")}
              hint={
                viewer && viewer !== timezone ? (
                  <button type="button" className="text-sky-700 hover:underline dark:text-sky-400" onClick={() => setTimezone(viewer)}>
                    Use my time zone ({viewer})
                  </button>
                ) : (
                  "The clock the expression is read on (IANA name)."
                )
              }
            >
              <input
                id={f("timezone")}
                name="timezone"
                value={timezone}
                onChange={(e) => setTimezone(e.target.value)}
                onFocus={() => zones.length === 0 && setZones(timeZones())}
                list={f("zones")}
                className={textInput}
                autoComplete="off"
              />
              <datalist id={f("zones")}>
                {zones.map((z) => (
                  <option key={z} value={z} />
                ))}
              </datalist>
            </Field>
          </div>
          <CronPreview cron={cron} timezone={timezone} />
        </div>
      </fieldset>

      <details className="rounded border border-slate-200 p-3 text-sm dark:border-slate-800">
        <summary className="cursor-pointer font-medium">Retries, missed fires and overlap</summary>
        <div className="mt-3 grid gap-4 md:grid-cols-3">
          <Field label="Timeout (seconds)" htmlFor={f("timeout")} hint="1 to 86400">
            <input id={f("timeout")} name="timeout_seconds" inputMode="numeric" defaultValue={initial.timeout_seconds} className={textInput} />
          </Field>
          <Field label="Retries" htmlFor={f("retries")} hint="0 to 10">
            <input id={f("retries")} name="max_retries" inputMode="numeric" defaultValue={initial.max_retries} className={textInput} />
          </Field>
          <Field label="Retry delay (seconds)" htmlFor={f("delay")} hint="1 to 3600">
            <input id={f("delay")} name="retry_delay_seconds" inputMode="numeric" defaultValue={initial.retry_delay_seconds} className={textInput} />
          </Field>
          <Field label="Missed fires" htmlFor={f("misfire")} hint="What happens to slots missed while no scheduler ran.">
            <select id={f("misfire")} name="misfire_policy" defaultValue={initial.misfire_policy} className={textInput}>
              {MISFIRE_CHOICES.map((c) => (
                <option key={c.value} value={c.value}>
                  {c.label}
                </option>
              ))}
            </select>
          </Field>
          <Field label="Catch-up limit" htmlFor={f("catchup")} hint="1 to 1000 slots">
            <input id={f("catchup")} name="catch_up_limit" inputMode="numeric" defaultValue={initial.catch_up_limit} className={textInput} />
          </Field>
          <Field label="Jitter (seconds)" htmlFor={f("jitter")} hint="0 to 300: a random delay spreading fires out">
            <input id={f("jitter")} name="jitter_seconds" inputMode="numeric" defaultValue={initial.jitter_seconds} className={textInput} />
          </Field>
          <label className="flex items-center gap-2 md:col-span-3">
            <input type="checkbox" name="allow_overlap" defaultChecked={initial.allow_overlap} /> Allow a fire to start while the previous one still runs
          </label>
        </div>
      </details>

      {owners && (
        <div className="max-w-sm">
          <Field label="For user" htmlFor={f("owner")}>
            <select id={f("owner")} name="userId" defaultValue={owners.selected} className={textInput}>
              {owners.options.map((o) => (
                <option key={o.id} value={o.id}>
                  {o.label}
                </option>
              ))}
            </select>
          </Field>
        </div>
      )}

      <div className="flex flex-wrap items-center gap-3">
        <button type="submit" disabled={pending} className="h-9 rounded bg-slate-900 px-3 text-sm font-medium text-white hover:bg-slate-700 disabled:opacity-60 dark:bg-slate-100 dark:text-slate-900">
          {pending ? "Saving…" : submitLabel}
        </button>
        <ActionResult state={state} />
      </div>
    </form>
  );
}
