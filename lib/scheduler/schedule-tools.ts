import { z } from "zod";
import { DEFAULT_SCHEDULER_SETTINGS } from "../config/settings.ts";
import type { Db } from "../db/open-database.ts";
import { unsafeSystemScope } from "../db/scope.ts";
import { deleteSchedule, listSchedules, type StoredSchedule } from "../db/schedules/schedules.ts";
import { HttpError } from "../errors/http-error.ts";
import { describeCron } from "./cron.ts";
import { createScheduleFor, disableScheduleFor, enableScheduleFor, runEndpointOf, scheduleOr404 } from "./manage.ts";
import { defineToolkit, defineTool, type Toolkit, type ToolContext, type ToolDefinition } from "../runtime/tools/types.ts";
import type { RunExtension } from "../runtime/run-extensions.ts";

/**
 * The schedules toolkit (`manageSchedules: true` on an agent): the agent manages its own user's
 * schedules of itself — schedules that run this agent with a message. What it creates is marked
 * `managed_by: "agent"` with the agent as target and the run and session that made it
 * (created_by_*; a pause, resume or delete by a later run stamps updated_by_*), so a fire refuses
 * a schedule later re-pointed elsewhere. It sees and changes only the run's user's schedules that
 * this agent manages; a run without a user has none.
 */

const MANAGED_BY = "agent";

function ownerScope(ctx: ToolContext) {
  if (!ctx.userId) throw new Error("Schedules need a user: this run has none.");
  return unsafeSystemScope("a tool of the run manages its own user's schedules", { actingAs: ctx.userId });
}

const view = (s: StoredSchedule) => ({
  id: s.id,
  name: s.name,
  cron_expr: s.cron_expr,
  in_words: describeCron(s.cron_expr),
  timezone: s.timezone,
  message: (s.payload as { message?: unknown } | null)?.message ?? null,
  enabled: s.enabled,
  next_run_at: s.next_run_at === null ? null : new Date(s.next_run_at * 1000).toISOString(),
});

/** A tool failure the model can act on (an HttpError's detail), never a thrown stack. */
async function answer<T>(work: () => Promise<T>): Promise<T | { error: string }> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof HttpError) return { error: typeof error.detail === "string" ? error.detail : JSON.stringify(error.detail) };
    throw error;
  }
}

async function mine(db: Db, ctx: ToolContext, agentId: string, id: string): Promise<StoredSchedule> {
  const schedule = await scheduleOr404(db, ownerScope(ctx), id);
  if (schedule.managed_by !== MANAGED_BY || schedule.target_id !== agentId) throw new HttpError(404, "Schedule not found");
  return schedule;
}

/**
 * The toolkit for one agent. Its user is capped at `maxSchedulesPerUser` schedules, as the API caps
 * a member (default: the scheduler's default cap).
 */
export function schedulesToolkit({ db, agentId, maxSchedulesPerUser = DEFAULT_SCHEDULER_SETTINGS.maxSchedulesPerUser }: { db: Db; agentId: string; maxSchedulesPerUser?: number }): Toolkit {
  const by = (ctx: ToolContext) => ({ runId: ctx.runId, sessionId: ctx.sessionId });
  return defineToolkit({
    id: "schedules",
    name: "Schedules",
    tools: [
      defineTool({
        name: "create_schedule",
        description:
          "Schedule yourself to run later with a message, on a 5-field cron expression (minute hour day-of-month month day-of-week) in an IANA time zone. The name must start with a letter or digit and use only letters, digits, '.', '_' and '-'.",
        parameters: z.object({
          name: z.string().min(1).max(255),
          cron_expr: z.string().min(1).max(128),
          message: z.string().min(1),
          timezone: z.string().max(64).optional(),
        }),
        execute: ({ name, cron_expr, message, timezone }, ctx) =>
          answer(async () => {
            if (!/^[a-zA-Z0-9][a-zA-Z0-9._-]*$/.test(name)) throw new HttpError(422, "Name must start with alphanumeric and contain only alphanumeric, '.', '_', '-'");
            const scope = ownerScope(ctx);
            const created = await createScheduleFor(db, {
              scope,
              owner: ctx.userId,
              definition: {
                name,
                cron_expr,
                endpoint: runEndpointOf("agent", agentId),
                method: "POST",
                payload: { message },
                timezone: timezone ?? "UTC",
                timeout_seconds: 3600,
                max_retries: 0,
                retry_delay_seconds: 60,
              },
              provenance: { managed_by: MANAGED_BY, target_type: "agent", target_id: agentId, created_by_run_id: ctx.runId, created_by_session_id: ctx.sessionId },
              maxSchedulesPerOwner: maxSchedulesPerUser,
            });
            return view(created);
          }),
      }),
      defineTool({
        name: "list_schedules",
        description: "List the schedules you manage for this user.",
        parameters: z.object({}),
        execute: async (_args, ctx) => {
          const { schedules } = await listSchedules(db, { scope: ownerScope(ctx), page: 1, limit: 1000 });
          return schedules.filter((s) => s.managed_by === MANAGED_BY && s.target_id === agentId).map(view);
        },
      }),
      defineTool({
        name: "pause_schedule",
        description: "Pause (disable) one of your schedules by its id.",
        parameters: z.object({ id: z.string().min(1) }),
        execute: ({ id }, ctx) => answer(async () => view(await disableScheduleFor(db, { scope: ownerScope(ctx), existing: await mine(db, ctx, agentId, id), by: by(ctx) }))),
      }),
      defineTool({
        name: "resume_schedule",
        description: "Resume (enable) one of your paused schedules by its id.",
        parameters: z.object({ id: z.string().min(1) }),
        execute: ({ id }, ctx) => answer(async () => view(await enableScheduleFor(db, { scope: ownerScope(ctx), existing: await mine(db, ctx, agentId, id), by: by(ctx) }))),
      }),
      defineTool({
        name: "delete_schedule",
        description: "Delete one of your schedules by its id.",
        parameters: z.object({ id: z.string().min(1) }),
        execute: ({ id }, ctx) =>
          answer(async () => {
            await mine(db, ctx, agentId, id);
            await deleteSchedule(db, { scope: ownerScope(ctx), id });
            return { deleted: id };
          }),
      }),
    ],
  });
}

/** Schedule management in an agent's runs: the schedules toolkit for an agent with `manageSchedules`. */
export const schedulesRunExtension: RunExtension = {
  name: "schedules",
  tools({ db, agent }) {
    if (!agent.definition.manageSchedules) return [];
    return schedulesToolkit({ db, agentId: agent.definition.id, maxSchedulesPerUser: agent.maxSchedulesPerUser }).tools as ToolDefinition<unknown>[];
  },
};
