import "server-only";
import type { ScheduleListItem } from "@/lib/db/schedules/schedule-list.ts";
import type { StoredSchedule } from "@/lib/db/schedules/schedules.ts";
import { describeCron } from "@/lib/scheduler/cron.ts";
import { runEndpointTarget } from "@/lib/scheduler/manage.ts";
import type { ScheduleFormValues, ScheduleRow, ScheduleTarget } from "./schedule-row.ts";

/** What a schedule runs: an agent, team or workflow by its run endpoint, else the method and path. */
export function scheduleTarget(schedule: Pick<StoredSchedule, "endpoint" | "method">): ScheduleTarget {
  const target = runEndpointTarget(schedule.endpoint, schedule.method);
  if (!target) return { label: `${schedule.method} ${schedule.endpoint}`, href: null };
  const kind = target.type.slice(0, -1);
  return { label: `${kind} ${target.id}`, href: target.type === "agents" ? `/dashboard/agents/${encodeURIComponent(target.id)}` : null };
}

/** A listed schedule as its table row, the owner named from the admin's user labels. */
export function scheduleRowOf(item: ScheduleListItem, ownerLabel: (userId: string | null) => string | null): ScheduleRow {
  return { ...item, cron_words: describeCron(item.cron_expr), target: scheduleTarget(item), owner: ownerLabel(item.user_id) };
}

/** A new schedule's form: Agno's defaults, the first agent chosen. */
export function newScheduleValues(firstAgentId: string | undefined): ScheduleFormValues {
  return {
    name: "",
    description: "",
    cron_expr: "",
    timezone: "UTC",
    target: "agent",
    agent_id: firstAgentId ?? "",
    message: "",
    method: "POST",
    endpoint: "",
    payload: "",
    timeout_seconds: 3600,
    max_retries: 0,
    retry_delay_seconds: 60,
    misfire_policy: "fire_once",
    catch_up_limit: 10,
    allow_overlap: false,
    jitter_seconds: 0,
  };
}

/**
 * A stored schedule as its edit form: the agent form when it runs an agent's run endpoint with a
 * payload of one message, the raw endpoint form otherwise.
 */
export function scheduleFormValues(schedule: StoredSchedule): ScheduleFormValues {
  const target = runEndpointTarget(schedule.endpoint, schedule.method);
  const payload = schedule.payload ?? {};
  const simple = target?.type === "agents" && Object.keys(payload).every((k) => k === "message") && typeof payload.message === "string";
  return {
    name: schedule.name,
    description: schedule.description ?? "",
    cron_expr: schedule.cron_expr,
    timezone: schedule.timezone,
    target: simple ? "agent" : "endpoint",
    agent_id: simple ? target.id : "",
    message: simple ? String(payload.message) : "",
    method: schedule.method,
    endpoint: schedule.endpoint,
    payload: schedule.payload ? JSON.stringify(schedule.payload, null, 2) : "",
    timeout_seconds: schedule.timeout_seconds,
    max_retries: schedule.max_retries,
    retry_delay_seconds: schedule.retry_delay_seconds,
    misfire_policy: schedule.misfire_policy,
    catch_up_limit: schedule.catch_up_limit,
    allow_overlap: schedule.allow_overlap,
    jitter_seconds: schedule.jitter_seconds,
  };
}
