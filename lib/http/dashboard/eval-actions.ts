import { z } from "zod";
import { deleteEvalRuns, getEvalRun, type StoredEvalRun } from "../../db/evals/eval-runs.ts";
import { QueueFullError } from "../../errors/domain-errors.ts";
import { HttpError } from "../../errors/http-error.ts";
import { cancelEvalRun } from "../../evals/cancel-eval.ts";
import { EvalRunInputSchema, rerunInput } from "../../evals/eval-input.ts";
import { startEvalInBackground } from "../../evals/start-eval.ts";
import { planEvalFor } from "../eval-access.ts";
import { defineDashboardAction, type ActionContext, type ActionState } from "./action.ts";

/**
 * The Evals pages' actions, open to every signed-in user: start an eval (always in the background,
 * so the page can follow it live), cancel one, delete one. Each reads and writes through the
 * caller's scope, so a member touches only its own eval runs; another user's is "Eval run not
 * found", exactly like one that does not exist. A start is checked as `POST /eval-runs` checks it
 * (the same schema, Agno's rules, the right to run the agent).
 */
const EVALS_PAGE = "/dashboard/evals";

const text = z.string().optional();

/** The form as posted: every field text (a checkbox "on" or absent). */
const EvalFormFields = z.object({
  agent_id: text,
  eval_type: text,
  name: text,
  input: text,
  num_iterations: text,
  expected_output: text,
  additional_guidelines: text,
  additional_context: text,
  criteria: text,
  scoring_strategy: text,
  threshold: text,
  warmup_runs: text,
  expected_tool_calls: text,
  allow_additional_tool_calls: text,
  expected_tool_call_arguments: text,
  /** `<provider>::<model id>`, or empty for the agent's own model. */
  model: text,
  judge_model: text,
});

const blank = (value: string | undefined) => (value === undefined || value.trim() === "" ? undefined : value.trim());

/** A whole number typed in the form, or the text itself (the schema then names the field). */
const number = (value: string | undefined) => {
  const v = blank(value);
  return v === undefined ? undefined : /^-?\d+$/.test(v) ? Number(v) : v;
};

/** `<provider>::<id>` as the two fields of the request. */
function modelPair(value: string | undefined): [string, string] | [undefined, undefined] {
  const v = blank(value);
  if (!v) return [undefined, undefined];
  const at = v.indexOf("::");
  return at < 0 ? [undefined, undefined] : [v.slice(0, at), v.slice(at + 2)];
}

class FormIssue extends Error {}

/** The form's fields as the body `POST /eval-runs` takes; only what the chosen kind uses is sent. */
export function evalRequestFromForm(fields: z.infer<typeof EvalFormFields>): Record<string, unknown> {
  const kind = blank(fields.eval_type);
  const [modelProvider, modelId] = modelPair(fields.model);
  const [judgeProvider, judgeId] = modelPair(fields.judge_model);
  const body: Record<string, unknown> = {
    agent_id: blank(fields.agent_id),
    eval_type: kind,
    name: blank(fields.name),
    input: fields.input?.trim() ?? "",
    num_iterations: number(fields.num_iterations),
    model_id: modelId,
    model_provider: modelProvider,
  };
  if (kind === "accuracy" || kind === "agent_as_judge") {
    body.additional_guidelines = blank(fields.additional_guidelines);
    body.judge_model_id = judgeId;
    body.judge_model_provider = judgeProvider;
  }
  if (kind === "accuracy") {
    body.expected_output = blank(fields.expected_output) ?? "";
    body.additional_context = blank(fields.additional_context);
  }
  if (kind === "agent_as_judge") {
    body.criteria = blank(fields.criteria) ?? "";
    body.scoring_strategy = blank(fields.scoring_strategy);
    body.threshold = number(fields.threshold);
  }
  if (kind === "performance") body.warmup_runs = number(fields.warmup_runs);
  if (kind === "reliability") {
    body.expected_tool_calls = (fields.expected_tool_calls ?? "")
      .split(/[\s,]+/)
      .map((t) => t.trim())
      .filter(Boolean);
    body.allow_additional_tool_calls = fields.allow_additional_tool_calls === "on";
    const args = blank(fields.expected_tool_call_arguments);
    if (args) {
      try {
        body.expected_tool_call_arguments = JSON.parse(args);
      } catch {
        throw new FormIssue('expected_tool_call_arguments: not JSON; write an object such as {"add": {"a": 2}}');
      }
    }
  }
  return Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined));
}

/** An HTTP-shaped refusal as the form shows it. */
function refusal(error: unknown): ActionState | null {
  if (error instanceof FormIssue) return { ok: false, status: 422, error: error.message };
  if (error instanceof HttpError) return { ok: false, status: error.status, error: typeof error.detail === "string" ? error.detail : JSON.stringify(error.detail) };
  if (error instanceof QueueFullError) return { ok: false, status: 429, error: "The job queue is full; try again in a moment." };
  return null;
}

/**
 * Starts an eval in the background from a request body (checked as `POST /eval-runs` checks it)
 * and answers with its page; a refusal comes back as the form's error, `invalid` before a
 * schema's message.
 */
async function startFrom(
  { principal, scope, db, settings }: Pick<ActionContext<unknown>, "principal" | "scope" | "db" | "settings">,
  body: () => Record<string, unknown>,
  { invalid, started }: { invalid: string; started: (run: StoredEvalRun) => string },
): Promise<ActionState> {
  try {
    const parsed = EvalRunInputSchema.safeParse(body());
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      return { ok: false, status: 422, error: `${invalid}${issue.path.join(".") || "form"}: ${issue.message}` };
    }
    // The form does not offer external agents (defineExternalAgent): lib/evals runs agents defined with defineAgent.
    const external = settings.externalAgents.find((agent) => agent.id === parsed.data.agent_id);
    if (external) return { ok: false, status: 422, error: `${invalid}agent_id: '${external.id}' is an external agent (${external.framework}); evals run agents defined with defineAgent` };
    const plan = await planEvalFor(settings, db, principal, parsed.data);
    const { run } = await startEvalInBackground({ db, settings, plan, scope, userId: principal.userId ?? null });
    return { ok: true, message: started(run), href: `${EVALS_PAGE}/${encodeURIComponent(run.run_id)}` };
  } catch (error) {
    const refused = refusal(error);
    if (refused) return refused;
    throw error;
  }
}

export const startEvalAction = defineDashboardAction({
  name: "startEval",
  access: "signed-in",
  input: EvalFormFields,
  revalidate: EVALS_PAGE,
  handler: (ctx) => startFrom(ctx, () => evalRequestFromForm(ctx.input), { invalid: "", started: (run) => `Eval started${run.name ? `: ${run.name}` : ""}.` }),
});

const EvalRunField = z.object({ evalRunId: z.string().min(1, "which eval run?") });

export const cancelEvalAction = defineDashboardAction({
  name: "cancelEval",
  access: "signed-in",
  input: EvalRunField,
  revalidate: EVALS_PAGE,
  async handler({ input, scope, db, settings }) {
    const run = await cancelEvalRun(db, settings, { scope, id: input.evalRunId });
    if (!run) return { ok: false, status: 404, error: "Eval run not found." };
    return run.run_status === "CANCELLED" ? { ok: true, message: "Cancelled." } : { ok: true, message: `It had already ended (${run.run_status}).` };
  },
});

export const deleteEvalAction = defineDashboardAction({
  name: "deleteEval",
  access: "signed-in",
  input: EvalRunField,
  revalidate: EVALS_PAGE,
  async handler({ input, scope, db }) {
    const deleted = await deleteEvalRuns(db, { scope, ids: [input.evalRunId] });
    if (deleted === 0) return { ok: false, status: 404, error: "Eval run not found." };
    return { ok: true, message: "Deleted.", href: EVALS_PAGE };
  },
});

/** Runs an eval again as it was run (its stored input, kind, agent, name and model), so its trend gains a point. */
export const rerunEvalAction = defineDashboardAction({
  name: "rerunEval",
  access: "signed-in",
  input: EvalRunField,
  revalidate: EVALS_PAGE,
  async handler(ctx) {
    const run = await getEvalRun(ctx.db, { scope: ctx.scope, id: ctx.input.evalRunId });
    if (!run) return { ok: false, status: 404, error: "Eval run not found." };
    return startFrom(ctx, () => rerunInput(run), { invalid: "This eval run cannot be run again: ", started: () => "Started again." });
  },
});
