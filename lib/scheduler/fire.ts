import { unsafeLinkApprovalsToSchedule } from "../db/approvals/approvals.ts";
import type { Settings } from "../config/settings.ts";
import type { Db } from "../db/open-database.ts";
import { unsafeSystemScope, type DataScope } from "../db/scope.ts";
import type { JobFence } from "../db/jobs/job-fence.ts";
import {
  createScheduleRun as recordScheduleRun,
  FireLeaseLostError,
  otherFireRunning,
  scheduleRunsForSlot,
  unsafeDisableSchedule,
  updateScheduleRun,
  type ScheduleRunUpdate,
  type StoredSchedule,
  type StoredScheduleRun,
} from "../db/schedules/schedules.ts";
import { log } from "../log.ts";
import type { EndpointCaller, EndpointResult } from "./endpoint-port.ts";
import { parseScheduleEndpoint, type RunTarget } from "./endpoint.ts";
import { runEndpointOf } from "./manage.ts";
import { runWatch } from "./run-watch.ts";

/**
 * One fire of a schedule: up to max_retries + 1 attempts, each recorded as a schedule run (owned
 * by the schedule's owner), retry_delay_seconds apart, stopping at the first success or pause.
 * A run endpoint is submitted as a background run (stream=false, background=true; with the durable
 * queue an Idempotency-Key of the schedule and slot, so a fire taken over after its worker died
 * never starts a second run) and followed to its end or timeout_seconds; COMPLETED → success,
 * PAUSED → paused (with its requirements), anything else → failed, as Agno records them. A run
 * that cannot be read back (its row gone, or its read answering 404) fails the attempt at once.
 * Any other endpoint is one JSON request: 2xx → success.
 *
 * The endpoint is read as create and PATCH read it (endpoint.ts), and called by the path that
 * reading gives: one a fire would not read as written (a row stored before that check, or written
 * by other means) fails the fire and disables the schedule with `invalid_endpoint: …`.
 *
 * A fire taken over (its job claimed again after its worker died) adopts the attempt left
 * running for its slot and follows the same run; a slot that already succeeded fires nothing.
 */

export interface FireRequest {
  db: Db;
  settings: Settings;
  schedule: StoredSchedule;
  /** The cron slot (epoch seconds); null for a manual trigger. */
  slot: number | null;
  caller: EndpointCaller;
  signal?: AbortSignal;
  /** The fire job's claim: attempts are recorded only while it holds (a fire taken over records nothing beside its taker). */
  fence?: JobFence;
}

/** Aborted while sleeping or following: the fire stops where it is (the job is taken over, or the process stops). */
export class FireAbortedError extends Error {
  override readonly name = "FireAbortedError";
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new FireAbortedError(String(signal.reason ?? "aborted")));
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new FireAbortedError(String(signal?.reason ?? "aborted")));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** A payload value as a form field (Agno's `_to_form_value`). */
function formValue(value: unknown): string {
  if (typeof value === "boolean") return value ? "true" : "false";
  if (value !== null && typeof value === "object") return JSON.stringify(value);
  return String(value);
}

interface AttemptOutcome {
  status: "success" | "failed" | "paused";
  status_code: number | null;
  error: string | null;
  run_id: string | null;
  session_id: string | null;
  input: Record<string, unknown> | null;
  output: Record<string, unknown> | null;
  requirements: Record<string, unknown>[] | null;
}

const failed = (error: string, extra: Partial<AttemptOutcome> = {}): AttemptOutcome => ({
  status: "failed",
  status_code: null,
  error,
  run_id: null,
  session_id: null,
  input: null,
  output: null,
  requirements: null,
  ...extra,
});

const errorText = (result: EndpointResult): string => {
  const detail = (result.body as { detail?: unknown } | null)?.detail;
  return typeof detail === "string" ? detail : result.text;
};

const asObject = (v: unknown): Record<string, unknown> | null => (v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : null);

/**
 * The Idempotency-Key of an attempt's run: the schedule and slot (a retry attempt adds its number).
 * Not the fire job's own key (`schedule:<id>:<slot>`, lib/scheduler/tick.ts): keys are unique per
 * owner across every job kind.
 */
export function fireIdempotencyKey(scheduleId: string, slot: number | null, attempt: number, manualId: string): string {
  const base = slot === null ? `schedule-run:${scheduleId}:manual:${manualId}` : `schedule-run:${scheduleId}:${slot}`;
  return attempt > 1 ? `${base}:attempt:${attempt}` : base;
}

const TERMINAL = new Set(["COMPLETED", "CANCELLED", "ERROR", "PAUSED"]);
/** A run read back that is not ended yet (a replica's copy behind the watch): looked at again after this. */
const FOLLOW_RETRY_MS = 200;
/** A submit the run queue refused as full (429) is made again after this. */
const QUEUE_FULL_RETRY_MS = 1000;
/** The error of an attempt whose accepted run can no longer be read (deleted, or its read answers 404). */
export const RUN_UNREADABLE = "the run is no longer readable";

async function callRunEndpoint(
  request: FireRequest,
  path: string,
  target: RunTarget,
  idempotencyKey: string,
  onSubmitted: (runId: string, sessionId: string) => Promise<void>,
  adopted: { runId: string; sessionId: string } | null,
): Promise<AttemptOutcome> {
  const { schedule, caller, settings, signal } = request;
  let runId = adopted?.runId ?? null;
  let sessionId = adopted?.sessionId ?? null;
  if (!runId || !sessionId) {
    const form: Record<string, string> = {};
    for (const [k, v] of Object.entries(schedule.payload ?? {})) {
      if (["stream", "background", "version", "user_id"].includes(k) || v === null || v === undefined) continue;
      form[k] = formValue(v);
    }
    form.stream = "false";
    form.background = "true";
    // The owner wins over the payload: a schedule never runs as another user.
    if (schedule.user_id !== null) form.user_id = schedule.user_id;
    const submit = () =>
      caller({
        method: "POST",
        path,
        owner: schedule.user_id,
        as: "scheduler",
        form,
        headers: settings.queue.durable ? { "idempotency-key": idempotencyKey } : {},
      });
    let submitted = await submit();
    // A full run queue (429) is back-pressure, not a failure of this fire: it submits again (the
    // Idempotency-Key makes that safe) until timeout_seconds have passed.
    const submitDeadline = Date.now() + schedule.timeout_seconds * 1000;
    while (submitted.status === 429 && Date.now() + QUEUE_FULL_RETRY_MS < submitDeadline) {
      await sleep(QUEUE_FULL_RETRY_MS, signal);
      submitted = await submit();
    }
    if (submitted.status >= 400) return failed(errorText(submitted), { status_code: submitted.status });
    const body = asObject(submitted.body);
    runId = typeof body?.run_id === "string" ? body.run_id : null;
    sessionId = typeof body?.session_id === "string" ? body.session_id : null;
    if (!runId || !sessionId)
      return failed(`Missing run_id or session_id in background run response: ${submitted.text.slice(0, 500)}`, { status_code: submitted.status, run_id: runId, session_id: sessionId });
    await onSubmitted(runId, sessionId);
  }
  const deadline = Date.now() + schedule.timeout_seconds * 1000;
  const runPath = `/${target.type}/${encodeURIComponent(target.id)}/runs/${encodeURIComponent(runId)}?session_id=${encodeURIComponent(sessionId)}`;
  for (;;) {
    // The process's run watch says when it ended (one statement for every fire waiting); the run
    // is then read back through the route table, in the owner's scope, as Agno's executor does.
    const waited =
      Date.now() < deadline
        ? await runWatch(request.db)
            .until(runId, deadline, signal)
            .catch((error: unknown) => {
              throw new FireAbortedError(error instanceof Error ? error.message : String(error));
            })
        : "timeout";
    if (waited === "timeout") return failed(`Polling timed out after ${schedule.timeout_seconds}s for run ${runId}`, { run_id: runId, session_id: sessionId });
    // Its row is gone (deleted with its session, say): nothing will ever end it.
    if (waited === "gone") return failed(RUN_UNREADABLE, { run_id: runId, session_id: sessionId });
    const polled = await caller({ method: "GET", path: runPath, owner: schedule.user_id, as: "scheduler" }).catch((error: Error) => {
      log.warn(`[scheduler] reading run ${runId} of schedule ${schedule.id}: ${error.message}`);
      return null;
    });
    if (!polled) {
      await sleep(FOLLOW_RETRY_MS, signal);
      continue;
    }
    // The run was accepted and has ended, yet its owner cannot read it: waiting changes nothing.
    if (polled.status === 404) return failed(RUN_UNREADABLE, { status_code: 404, run_id: runId, session_id: sessionId });
    if (polled.status >= 400) return failed(errorText(polled), { status_code: polled.status, run_id: runId, session_id: sessionId });
    const run = asObject(polled.body);
    const status = typeof run?.status === "string" ? run.status : null;
    if (!run || !status || !TERMINAL.has(status)) {
      await sleep(FOLLOW_RETRY_MS, signal);
      continue;
    }
    const content = run.content;
    return {
      status: status === "COMPLETED" ? "success" : status === "PAUSED" ? "paused" : "failed",
      status_code: polled.status,
      error: status === "COMPLETED" || status === "PAUSED" ? null : typeof run.error === "string" ? run.error : status === "CANCELLED" ? "Run was cancelled" : `Run failed with status ${status}`,
      run_id: runId,
      session_id: sessionId,
      input: asObject(run.input),
      output: content === null || content === undefined ? null : { content, content_type: run.content_type ?? null },
      requirements: status === "PAUSED" && Array.isArray(run.requirements) && run.requirements.length > 0 ? (run.requirements as Record<string, unknown>[]) : null,
    };
  }
}

async function callOtherEndpoint(request: FireRequest, path: string): Promise<AttemptOutcome> {
  const { schedule, caller } = request;
  const payload = schedule.payload && Object.keys(schedule.payload).length > 0 ? schedule.payload : undefined;
  const result = await caller({ method: schedule.method, path, owner: schedule.user_id, as: "admin", json: payload });
  const ok = result.status >= 200 && result.status < 300;
  return {
    ...failed(ok ? "" : errorText(result), { status_code: result.status }),
    status: ok ? "success" : "failed",
    error: ok ? null : errorText(result),
    // Beyond Agno (which records none): an object the endpoint answered with.
    output: ok ? asObject(result.body) : null,
  };
}

/** The scope a fire writes in: its schedule's owner (the shared rows for an owner-less one). */
export const fireScope = (schedule: StoredSchedule): DataScope => unsafeSystemScope("a fire acts for its schedule's owner", { actingAs: schedule.user_id });

/** Records an attempt under the fire job's claim; a lost claim stops the fire where it is. */
function attemptRecorder(request: FireRequest, scope: DataScope) {
  return (run: Parameters<typeof recordScheduleRun>[1]["run"]) =>
    recordScheduleRun(request.db, { scope, run, fence: request.fence }).catch((error: unknown) => {
      throw error instanceof FireLeaseLostError ? new FireAbortedError(error.message) : error;
    });
}

/**
 * Runs one fire (see the file's comment). Returns the last attempt's record, or null when the slot
 * had already been fired to its end. Throws FireAbortedError when `signal` aborts meanwhile (the
 * attempt it was in stays "running", for whoever takes the fire over).
 */
export async function executeFire(request: FireRequest): Promise<StoredScheduleRun | null> {
  const { db, schedule, slot, signal } = request;
  const scope = fireScope(schedule);
  const createScheduleRun = attemptRecorder(request, scope);
  const now = nowSeconds();

  // Taken over: what the slot already holds decides where this fire resumes.
  const earlier = slot === null ? [] : await scheduleRunsForSlot(db, { scope, scheduleId: schedule.id, slot });
  const finished = earlier.find((r) => r.status === "success" || r.status === "paused" || r.status === "skipped");
  if (finished) return null;
  let adopt = [...earlier].reverse().find((r) => r.status === "running") ?? null;
  let attempt = adopt ? adopt.attempt : earlier.length + 1;

  // The endpoint as create and PATCH read it: one a fire would not call as written never runs.
  const endpoint = parseScheduleEndpoint(schedule.endpoint, schedule.method);
  if (!endpoint.ok) {
    const error = `Schedule ${schedule.id} endpoint '${schedule.endpoint}' cannot be fired: ${endpoint.problem}; refusing to execute`;
    const record = adopt ?? (await createScheduleRun({ scheduleId: schedule.id, attempt, scheduledFor: slot }));
    await unsafeDisableSchedule(db, { id: schedule.id, reason: `invalid_endpoint: ${endpoint.problem}` });
    return (await updateScheduleRun(db, { scope, id: record.id, updates: { status: "failed", error, completed_at: nowSeconds() } })) ?? record;
  }

  // A manual trigger is not a slot: it runs whatever else is running.
  if (slot !== null && earlier.length === 0 && !schedule.allow_overlap) {
    // A previous fire still running: this slot is skipped, and says so.
    const since = now - schedule.timeout_seconds * (schedule.max_retries + 1) - schedule.retry_delay_seconds * schedule.max_retries - 60;
    const running = await otherFireRunning(db, { scope, scheduleId: schedule.id, slot, since });
    if (running) {
      return createScheduleRun({
        scheduleId: schedule.id,
        attempt: 1,
        scheduledFor: slot,
        status: "skipped",
        completedAt: now,
        error: `Skipped: the previous fire (schedule run ${running.id}) is still running and allow_overlap is off`,
      });
    }
  }

  // A schedule an agent manages must fire the component its provenance names.
  if (schedule.managed_by !== null && schedule.target_type && schedule.target_id) {
    const expected = runEndpointOf(schedule.target_type as "agent" | "team" | "workflow", schedule.target_id);
    if (schedule.endpoint.replace(/\/$/, "") !== expected) {
      const error = `Schedule ${schedule.id} endpoint '${schedule.endpoint}' does not match its provenance target ${schedule.target_type}:${schedule.target_id}; refusing to execute`;
      const record = adopt ?? (await createScheduleRun({ scheduleId: schedule.id, attempt, scheduledFor: slot }));
      await unsafeDisableSchedule(db, { id: schedule.id, reason: `endpoint_drift:${schedule.endpoint}!=${schedule.target_type}:${schedule.target_id}` });
      return (await updateScheduleRun(db, { scope, id: record.id, updates: { status: "failed", error, completed_at: nowSeconds() } })) ?? record;
    }
  }

  const target = endpoint.run;
  const maxAttempts = Math.max(1, schedule.max_retries + 1);
  const manualId = crypto.randomUUID();
  let last: StoredScheduleRun | null = null;
  for (; attempt <= maxAttempts; attempt++) {
    const record = adopt ?? (await createScheduleRun({ scheduleId: schedule.id, attempt, scheduledFor: slot }));
    const adopted = adopt?.run_id && adopt.session_id ? { runId: adopt.run_id, sessionId: adopt.session_id } : null;
    adopt = null;
    let outcome: AttemptOutcome;
    try {
      outcome = target
        ? await callRunEndpoint(
            request,
            endpoint.path,
            target,
            fireIdempotencyKey(schedule.id, slot, attempt, manualId),
            async (runId, sessionId) => void (await updateScheduleRun(db, { scope, id: record.id, updates: { run_id: runId, session_id: sessionId } })),
            adopted,
          )
        : await callOtherEndpoint(request, endpoint.path);
    } catch (error) {
      if (error instanceof FireAbortedError) throw error;
      outcome = failed((error as Error).message ?? String(error));
      log.warn(`[scheduler] schedule ${schedule.id} attempt ${attempt} failed: ${outcome.error}`);
    }
    const updates: ScheduleRunUpdate = { ...outcome, completed_at: nowSeconds() };
    last = (await updateScheduleRun(db, { scope, id: record.id, updates })) ?? { ...record, ...updates };
    // A run that paused for an approval: the approval names the schedule and this fire's record.
    if (outcome.status === "paused" && outcome.run_id) await unsafeLinkApprovalsToSchedule(db, { runId: outcome.run_id, scheduleId: schedule.id, scheduleRunId: record.id });
    if (outcome.status === "success" || outcome.status === "paused") break;
    if (attempt < maxAttempts) await sleep(schedule.retry_delay_seconds * 1000, signal);
  }
  return last;
}
