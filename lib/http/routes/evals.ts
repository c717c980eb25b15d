import type { z } from "zod";
import { deleteEvalRuns, getEvalRun, listEvalRuns, renameEvalRun, type StoredEvalRun } from "../../db/evals/eval-runs.ts";
import { HttpError } from "../../errors/http-error.ts";
import { flatPerformanceData } from "../../evals/performance.ts";
import { cancelEvalRun } from "../../evals/cancel-eval.ts";
import { isCancelReason } from "../../evals/eval-registry.ts";
import { EvalFailedError, EvalStoppedError } from "../../evals/run-eval.ts";
import { runEvalNow, startEvalInBackground } from "../../evals/start-eval.ts";
import { planEvalFor } from "../eval-access.ts";
import { defineRoute, type DataLoaderContext } from "../route.ts";
import { DeleteEvalRunsBody, EvalListSchema, EvalRunParams, EvalRunQuery, EvalSchema, ListEvalRunsQuery, RunEvalBody, RunEvalQuery, UpdateEvalRunBody } from "../schemas/evals.ts";
import { pageOf } from "../schemas/list-query.ts";
import { utcTimestamp } from "./metrics.ts";

/**
 * Agno's Evals API over lib/evals: evals:read (list, get), evals:write (run, rename, cancel), evals:delete.
 * Eval runs are owned by whoever ran them: a member reads and changes its own, an admin everyone's
 * or one user's (`user_id=`). Running an eval runs the agent, so it also needs the caller's right
 * to run that agent (lib/http/eval-access.ts), which Agno does not check.
 */

const TAGS = ["Evals"];
export const EVAL_TABLES = ["agno_eval_runs"] as const;

/** Eval runs are read where Agno's `db_id`/`table` query picks; an admin acts for the query's `user_id`. */
const EVAL_DATA = { db: { selectFrom: "query", tables: EVAL_TABLES }, userFrom: "query" } as const;

export function toEvalSchema(run: StoredEvalRun): z.infer<typeof EvalSchema> {
  return {
    id: run.run_id,
    agent_id: run.agent_id,
    model_id: run.model_id,
    model_provider: run.model_provider,
    team_id: run.team_id,
    workflow_id: run.workflow_id,
    name: run.name,
    evaluated_component_name: run.evaluated_component_name,
    eval_type: run.eval_type,
    eval_data: run.eval_data,
    eval_input: run.eval_input,
    created_at: utcTimestamp(run.created_at),
    // Agno: a row without updated_at reports its created_at.
    updated_at: utcTimestamp(run.updated_at ?? run.created_at),
    user_id: run.user_id,
    status: run.run_status,
    run_details: run.run_details,
  };
}

const evalRunNotFound = (id: string) => new HttpError(404, `Eval run with id '${id}' not found`);

/** The eval run the path names, in the caller's scope; 404 otherwise. */
async function pathEvalRun({ params }: { params: { eval_run_id: string } }, { data }: DataLoaderContext): Promise<StoredEvalRun> {
  const { db, scope } = await data();
  const run = await getEvalRun(db, { scope, id: params.eval_run_id });
  if (!run) throw evalRunNotFound(params.eval_run_id);
  return run;
}

export const listEvalRunsRoute = defineRoute({
  method: "GET",
  path: "/eval-runs",
  summary: "List eval runs (filter by agent, team, workflow, model, evaluated type and eval kinds; paginated and sorted)",
  tags: TAGS,
  access: { permission: "evals:read" },
  query: ListEvalRunsQuery,
  response: EvalListSchema,
  data: EVAL_DATA,
  handler: async ({ input: { query }, scope, db }) => {
    const started = performance.now();
    const { runs, totalCount } = await listEvalRuns(db, {
      scope,
      filters: { agentId: query.agent_id, teamId: query.team_id, workflowId: query.workflow_id, modelId: query.model_id, componentType: query.type, evalTypes: query.eval_types },
      page: query.page,
      limit: query.limit,
      sortBy: query.sort_by,
      sortOrder: query.sort_order,
    });
    return pageOf(runs.map(toEvalSchema), { page: query.page, limit: query.limit, totalCount, startedMs: started });
  },
});

export const runEvalRoute = defineRoute({
  method: "POST",
  path: "/eval-runs",
  summary: "Run an eval of an agent and store the result (background=true: 202 with the PENDING eval run, run as a job with the durable queue)",
  tags: TAGS,
  access: { permission: "evals:write" },
  query: RunEvalQuery,
  body: RunEvalBody,
  response: EvalSchema,
  data: { db: { selectFrom: "query", tables: EVAL_TABLES } },
  handler: async ({ input: { query, body }, principal, scope, db, settings }) => {
    const plan = await planEvalFor(settings, db, principal, body);
    const userId = principal.userId ?? null;
    if (query.background ?? body.background ?? false) {
      const { run } = await startEvalInBackground({ db, settings, plan, scope, userId });
      return new Response(JSON.stringify(toEvalSchema(run)), { status: 202, headers: { "content-type": "application/json" } });
    }
    try {
      const run = await runEvalNow({ db, plan, scope, userId });
      const answer = toEvalSchema(run);
      // Agno answers a performance eval's POST with its flat result; the stored row keeps {result, runs}.
      return run.eval_type === "performance" ? { ...answer, eval_data: flatPerformanceData(run.eval_data) } : answer;
    } catch (error) {
      if (error instanceof EvalFailedError) throw new HttpError(502, `The eval failed (eval run ${error.evalRunId}, stored with status ERROR): ${error.message}`, { id: error.evalRunId });
      if (isCancelReason(error) || error instanceof EvalStoppedError) throw new HttpError(409, "The eval was cancelled or deleted while it ran");
      throw error;
    }
  },
});

export const deleteEvalRunsRoute = defineRoute({
  method: "DELETE",
  path: "/eval-runs",
  summary: "Delete several eval runs (the caller's own; an admin's: any)",
  tags: TAGS,
  access: { permission: "evals:delete" },
  query: EvalRunQuery.omit({ user_id: true }),
  body: DeleteEvalRunsBody,
  status: 204,
  data: { db: { selectFrom: "query", tables: EVAL_TABLES } },
  handler: async ({ input: { body }, scope, db }) => {
    await deleteEvalRuns(db, { scope, ids: body.eval_run_ids });
  },
});

export const getEvalRunRoute = defineRoute({
  method: "GET",
  path: "/eval-runs/{eval_run_id}",
  summary: "One eval run: its result, or where it stands while it runs",
  tags: TAGS,
  access: { permission: "evals:read" },
  params: EvalRunParams,
  query: EvalRunQuery,
  response: EvalSchema,
  data: EVAL_DATA,
  resource: pathEvalRun,
  handler: ({ resource: run }) => toEvalSchema(run),
});

export const renameEvalRunRoute = defineRoute({
  method: "PATCH",
  path: "/eval-runs/{eval_run_id}",
  summary: "Rename an eval run",
  tags: TAGS,
  access: { permission: "evals:write" },
  params: EvalRunParams,
  query: EvalRunQuery,
  body: UpdateEvalRunBody,
  response: EvalSchema,
  data: EVAL_DATA,
  handler: async ({ input: { params, body }, scope, db }) => {
    const run = await renameEvalRun(db, { scope, id: params.eval_run_id, name: body.name });
    if (!run) throw evalRunNotFound(params.eval_run_id);
    return toEvalSchema(run);
  },
});

export const deleteEvalRunRoute = defineRoute({
  method: "DELETE",
  path: "/eval-runs/{eval_run_id}",
  summary: "Delete an eval run",
  tags: TAGS,
  access: { permission: "evals:delete" },
  params: EvalRunParams,
  query: EvalRunQuery,
  status: 204,
  data: EVAL_DATA,
  handler: async ({ input: { params }, scope, db }) => {
    const deleted = await deleteEvalRuns(db, { scope, ids: [params.eval_run_id] });
    if (deleted === 0) throw evalRunNotFound(params.eval_run_id);
  },
});

export const cancelEvalRunRoute = defineRoute({
  method: "POST",
  path: "/eval-runs/{eval_run_id}/cancel",
  summary: "Cancel an eval run that has not ended (Agentry): it stops wherever it runs and is stored CANCELLED; an ended run is answered as it is",
  tags: TAGS,
  access: { permission: "evals:write" },
  params: EvalRunParams,
  query: EvalRunQuery,
  response: EvalSchema,
  data: EVAL_DATA,
  handler: async ({ input: { params }, scope, db, settings }) => {
    const run = await cancelEvalRun(db, settings, { scope, id: params.eval_run_id });
    if (!run) throw evalRunNotFound(params.eval_run_id);
    return toEvalSchema(run);
  },
});

export const EVAL_ROUTES = [listEvalRunsRoute, runEvalRoute, deleteEvalRunsRoute, getEvalRunRoute, renameEvalRunRoute, deleteEvalRunRoute, cancelEvalRunRoute];
