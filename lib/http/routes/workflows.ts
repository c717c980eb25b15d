import { z } from "zod";
import { hasScope, type Principal } from "../../auth/principal.ts";
import type { Settings } from "../../config/settings.ts";
import type { HumanReview, WorkflowDefinition, WorkflowStep } from "../../config/workflow.ts";
import type { RuntimeAgent } from "../../runtime/agents.ts";
import { findAgent, toRuntimeAgent } from "../../runtime/agents.ts";
import { toRuntimeTeam } from "../../runtime/team/team-runtime.ts";
import { findWorkflow } from "../../runtime/workflow/workflow-runtime.ts";
import { HttpError } from "../../errors/http-error.ts";
import { defineRoute } from "../route.ts";
import { WorkflowParams, WorkflowResponseSchema, WorkflowRunParams, WorkflowSummarySchema } from "../schemas/agents.ts";
import { agentResponse } from "./agents.ts";
import { componentRunRoutes, readsComponent, type ComponentSpec } from "./component-runs.ts";
import { teamResponse } from "./teams.ts";
import { componentFields, listedStoredComponents } from "./stored-components.ts";

/** Agno's HumanReview.to_dict(), field for field. */
function humanReviewDict(review: HumanReview | undefined) {
  const r = review ?? {};
  return {
    requires_confirmation: !!r.requiresConfirmation,
    confirmation_message: r.confirmationMessage ?? null,
    requires_user_input: !!r.requiresUserInput,
    user_input_message: r.userInputMessage ?? null,
    user_input_schema: r.userInputSchema
      ? r.userInputSchema.map((f) => ({
          name: f.name,
          field_type: f.fieldType ?? "str",
          description: f.description ?? null,
          required: f.required ?? true,
          ...(f.allowedValues ? { allowed_values: f.allowedValues } : {}),
        }))
      : null,
    allow_multiple_selections: !!r.allowMultipleSelections,
    requires_output_review: !!r.requiresOutputReview,
    output_review_message: r.outputReviewMessage ?? null,
    requires_iteration_review: !!r.requiresIterationReview,
    iteration_review_message: r.iterationReviewMessage ?? null,
    on_reject: r.onReject ?? "cancel",
    on_error: r.onError ?? "fail",
    max_retries: r.maxRetries ?? 3,
    timeout: r.timeout ?? null,
    on_timeout: r.onTimeout ?? "cancel",
  };
}

/** A step as Agno's `to_dict()` describes it, its agent or team expanded as GET /agents and /teams report them. */
function stepDict(step: WorkflowStep, settings: Settings): Record<string, unknown> {
  const common = { type: step.type, name: step.name, description: step.description ?? null };
  switch (step.type) {
    case "Step":
      return {
        ...common,
        max_retries: step.maxRetries ?? 3,
        skip_on_failure: !!step.skipOnFailure,
        human_review: humanReviewDict(step.humanReview),
        ...(step.agent ? { agent_id: step.agent.id, agent: agentResponse(findAgent(settings, step.agent.id) ?? { ...toRuntimeAgent(step.agent), prices: settings.metrics.prices }, settings) } : {}),
        ...(step.team ? { team_id: step.team.id, team: teamResponse(toRuntimeTeam(step.team, { prices: settings.metrics.prices, embedder: settings.knowledge.embedder }), settings) } : {}),
        ...(step.executor ? { executor_ref: step.executor.name || step.name } : {}),
      };
    case "Steps":
      return { ...common, steps: step.steps.map((s) => stepDict(s, settings)), human_review: humanReviewDict(step.humanReview) };
    case "Loop":
      return {
        ...common,
        steps: step.steps.map((s) => stepDict(s, settings)),
        max_iterations: step.maxIterations ?? 3,
        end_condition: step.endCondition ? step.endCondition.name || "end_condition" : null,
        end_condition_type: step.endCondition ? "function" : null,
        forward_iteration_output: !!step.forwardIterationOutput,
        human_review: humanReviewDict(step.humanReview),
      };
    case "Parallel":
      return { ...common, steps: step.steps.map((s) => stepDict(s, settings)) };
    case "Condition":
      return {
        ...common,
        steps: step.steps.map((s) => stepDict(s, settings)),
        else_steps: step.elseSteps ? step.elseSteps.map((s) => stepDict(s, settings)) : null,
        evaluator: typeof step.evaluator === "boolean" ? step.evaluator : step.evaluator.name || "evaluator",
        evaluator_type: typeof step.evaluator === "boolean" ? "bool" : "function",
        human_review: humanReviewDict(step.humanReview),
      };
    case "Router":
      return {
        ...common,
        choices: step.choices.map((s) => stepDict(s, settings)),
        selector: step.selector ? step.selector.name || "selector" : null,
        selector_type: step.selector ? "function" : null,
        human_review: humanReviewDict(step.humanReview),
      };
  }
}

/** Agno's WorkflowResponse. */
export function workflowResponse(workflow: RuntimeAgent, settings: Settings) {
  const d = workflow.workflow!.definition;
  return {
    id: d.id,
    name: d.name,
    db_id: settings.database.id,
    description: d.description ?? null,
    input_schema: d.inputSchema ?? null,
    steps: d.steps.map((s) => stepDict(s, settings)),
    agent: null,
    team: null,
    metadata: d.metadata ?? null,
    workflow_agent: false,
    is_factory: false,
    factory_input_schema: null,
    ...componentFields(workflow),
  };
}

/** The workflows as components with run routes: `/workflows/{workflow_id}`, 404 "Workflow not found" for an unknown one. */
const WORKFLOW_COMPONENT: ComponentSpec = {
  type: "workflow",
  base: "/workflows/{workflow_id}",
  params: WorkflowParams,
  runParams: WorkflowRunParams,
  tag: "Workflows",
  a: "a workflow",
  output: "WorkflowRunOutput",
  find: findWorkflow,
  notFound: "Workflow not found",
};

const READS_WORKFLOW = readsComponent(WORKFLOW_COMPONENT);

/** Agno's WorkflowSummaryResponse of a configured workflow (GET /workflows, /config). */
export function workflowSummary(w: WorkflowDefinition, settings: Settings): z.infer<typeof WorkflowSummarySchema> {
  return { id: w.id, name: w.name, description: w.description ?? null, db_id: settings.database.id, is_component: false, current_version: null, stage: null };
}

export const listWorkflows = defineRoute({
  method: "GET",
  path: "/workflows",
  summary: "List the workflows: those defined in code, then the stored (Studio) ones the caller may run",
  tags: ["Workflows"],
  access: { permission: "workflows:read", listFilter: true },
  response: z.array(WorkflowSummarySchema),
  excludeNone: true,
  handler: async ({ settings, principal }) => [
    ...settings.workflows.filter((w) => hasScope(principal, `workflows:${w.id}:read`)).map((w) => workflowSummary(w, settings)),
    ...(await listedStoredComponents(settings, principal, "workflow")).map((w) => ({ ...workflowSummary(w.workflow!.definition, settings), ...componentFields(w) })),
  ],
});

export const getWorkflow = defineRoute({
  method: "GET",
  path: "/workflows/{workflow_id}",
  summary: "One workflow, with its steps and input schema",
  ...READS_WORKFLOW,
  // Workflows defined in code have no versions: any version named is an unknown one. A stored
  // workflow's `version` names one of its versions (a draft for its owner or an admin).
  resource: async (input: { params: { workflow_id: string }; query: { version?: string } }, context: { settings: Settings; principal: Principal }) => {
    const workflow = await READS_WORKFLOW.resource(input, context);
    if (input.query.version !== undefined && !workflow.stored) throw new HttpError(404, WORKFLOW_COMPONENT.notFound);
    return workflow;
  },
  params: WorkflowParams,
  query: z.object({ version: z.string().optional() }),
  response: WorkflowResponseSchema,
  excludeNone: true,
  handler: ({ resource: workflow, settings }) => workflowResponse(workflow, settings),
});

/** The workflows' run routes: the agents' own implementation (lib/http/routes/component-runs.ts). */
export const WORKFLOW_RUN_ROUTES = componentRunRoutes(WORKFLOW_COMPONENT);

export const WORKFLOW_ROUTES = [listWorkflows, getWorkflow, ...WORKFLOW_RUN_ROUTES];
