import { z } from "zod";
import { EVAL_RUN_STATUSES, EVAL_TYPES } from "../../db/evals/eval-runs.ts";
import { EvalRunInputSchema } from "../../evals/eval-input.ts";
import { BoolQuery, DbSelectionQuery, JsonObject, PageQuery, SortOrder, paginated } from "./list-query.ts";

/** Request and response shapes of Agno's Evals API (`/eval-runs`). */

// ── requests ────────────────────────────────────────────────────────────────────────────────

/**
 * Agno's `eval_types` filter: a comma-separated list of kinds; any other value is a 422 naming it
 * and the valid kinds (Agno's message).
 */
const EvalTypesQuery = z
  .string()
  .optional()
  .transform((value, ctx) => {
    if (!value) return undefined;
    const kinds = value.split(",").map((item) => item.trim());
    const bad = kinds.find((kind) => !(EVAL_TYPES as readonly string[]).includes(kind));
    if (bad !== undefined) {
      ctx.addIssue({ code: "custom", message: `Invalid eval_type: '${bad}' is not a valid EvalType. Valid types: ${EVAL_TYPES.join(", ")}` });
      return z.NEVER;
    }
    return kinds as (typeof EVAL_TYPES)[number][];
  });

export const ListEvalRunsQuery = z.object({
  agent_id: z.string().optional(),
  team_id: z.string().optional(),
  workflow_id: z.string().optional(),
  model_id: z.string().optional(),
  /** Which kind of component was evaluated. */
  type: z.enum(["agent", "team", "workflow"]).optional(),
  eval_types: EvalTypesQuery,
  ...PageQuery,
  /** Any field name: one Agentry does not sort by keeps the default order (created_at), as Agno does. */
  sort_by: z.string().default("created_at"),
  sort_order: SortOrder,
  /** Admins: one user's eval runs (a member always reads its own). */
  user_id: z.string().optional(),
  ...DbSelectionQuery,
});

export const EvalRunQuery = z.object({ user_id: z.string().optional(), ...DbSelectionQuery });

export const RunEvalQuery = z.object({
  /** Agentry: run in the background and answer 202 with the PENDING eval run at once. */
  background: BoolQuery.optional(),
  ...DbSelectionQuery,
});

/** Agno's EvalRunInput, plus Agentry's `background` (as the query's). */
export const RunEvalBody = EvalRunInputSchema.extend({ background: z.boolean().nullish() });

export const EvalRunParams = z.object({ eval_run_id: z.string().min(1) });

/** At most MAX_DELETE ids a call (each is a bound parameter; the drivers' limits are far above it). */
export const MAX_DELETE = 1000;

export const DeleteEvalRunsBody = z.object({
  eval_run_ids: z.array(z.string().min(1)).min(1, "eval_run_ids must list at least one id").max(MAX_DELETE, `eval_run_ids may list at most ${MAX_DELETE} ids a call`),
});

export const UpdateEvalRunBody = z.object({ name: z.string().min(1).max(255) });

// ── responses ───────────────────────────────────────────────────────────────────────────────

/**
 * Agno's EvalSchema, plus v3's `user_id` and Agentry's `status` (PENDING, RUNNING, COMPLETED,
 * ERROR, CANCELLED) and `run_details` (progress, the agent runs made, the judge, an error).
 */
export const EvalSchema = z.object({
  id: z.string(),
  agent_id: z.string().nullable(),
  model_id: z.string().nullable(),
  model_provider: z.string().nullable(),
  team_id: z.string().nullable(),
  workflow_id: z.string().nullable(),
  name: z.string().nullable(),
  evaluated_component_name: z.string().nullable(),
  eval_type: z.enum(EVAL_TYPES),
  eval_data: JsonObject,
  eval_input: JsonObject.nullable(),
  created_at: z.string().nullable(),
  updated_at: z.string().nullable(),
  user_id: z.string().nullable(),
  status: z.enum(EVAL_RUN_STATUSES),
  run_details: JsonObject.nullable(),
});

export const EvalListSchema = paginated(EvalSchema);
