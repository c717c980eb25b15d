import type { ScheduleListItem } from "@/lib/db/schedules/schedule-list.ts";
import type { ActionState } from "@/lib/http/dashboard/action.ts";

/** What a schedule targets, said the way a person reads it: "agent assistant", or "GET /metrics". */
export interface ScheduleTarget {
  label: string;
  /** The component's dashboard page, for a run endpoint of an agent. */
  href: string | null;
}

/** A schedule as the table shows it: the listed item, its expression in words, its target and whose it is. */
export interface ScheduleRow extends ScheduleListItem {
  cron_words: string;
  target: ScheduleTarget;
  /** The owner's email when they are a dashboard user, else their user id; null for a shared schedule. */
  owner: string | null;
}

/** A server action as the schedule forms and buttons receive it from the page. */
export type ScheduleAction = (previous: ActionState, formData: FormData) => Promise<ActionState>;

/** The dashboard page of a schedule. */
export const scheduleHref = (id: string) => `/dashboard/schedules/${encodeURIComponent(id)}`;

/** The dashboard page of a run a schedule run started. */
export const runHref = (runId: string, sessionId: string | null) => `/dashboard/runs/${encodeURIComponent(runId)}${sessionId ? `?session_id=${encodeURIComponent(sessionId)}` : ""}`;

/** What a schedule form starts from: a stored schedule's fields as the form's text (or the defaults for a new one). */
export interface ScheduleFormValues {
  name: string;
  description: string;
  cron_expr: string;
  timezone: string;
  /** `agent`: an agent's run endpoint with only a message; `endpoint`: anything else. */
  target: "agent" | "endpoint";
  agent_id: string;
  message: string;
  method: string;
  endpoint: string;
  /** The payload as JSON text ("" for none). */
  payload: string;
  timeout_seconds: number;
  max_retries: number;
  retry_delay_seconds: number;
  misfire_policy: string;
  catch_up_limit: number;
  allow_overlap: boolean;
  jitter_seconds: number;
}

/** The misfire policies, as the form offers them (lib/db/schedules/schedules.ts: MISFIRE_POLICIES). */
export const MISFIRE_CHOICES = [
  { value: "fire_once", label: "Fire once for all missed slots" },
  { value: "skip", label: "Skip missed slots" },
  { value: "catch_up", label: "Catch up every missed slot (up to the limit)" },
] as const;
