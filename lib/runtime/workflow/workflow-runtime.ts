import type { AgentDefinition } from "../../config/define.ts";
import type { Settings } from "../../config/settings.ts";
import type { StepDef, WorkflowDefinition } from "../../config/workflow.ts";
import { toRuntimeAgent, type RuntimeAgent, type WorkflowRunner } from "../agents.ts";
import type { RunState } from "../run-state.ts";
import { toRuntimeTeam } from "../team/team-runtime.ts";
import { runFrom, type Exec } from "./engine.ts";
import { continueWorkflowRun } from "./review.ts";

type Extras = Pick<RuntimeAgent, "prices" | "embedder">;

/**
 * A workflow as the runtime runs it: a runtime agent standing for the workflow (its id and name;
 * no model, no tools of its own) carrying the workflow, so a workflow run is the same run as an
 * agent's — started, queued, streamed, cancelled and resumed by the same code — whose execution is
 * the step engine (./engine.ts) instead of the model loop.
 */
export function toRuntimeWorkflow(definition: WorkflowDefinition, extras: Extras): RuntimeAgent {
  const executors = new WeakMap<StepDef, RuntimeAgent>();
  const executorFor = (step: StepDef): RuntimeAgent => {
    let executor = executors.get(step);
    if (!executor) {
      executor = step.team ? toRuntimeTeam(step.team, extras) : { ...toRuntimeAgent(step.agent!), ...extras };
      executors.set(step, executor);
    }
    return executor;
  };
  const exec = (state: RunState, input: string): Exec => ({ state, definition, executorFor, input, collected: [] });
  const workflow: WorkflowRunner = {
    definition,
    run(state: RunState, message: string) {
      // storeEvents keeps every event with the run (off by default, as Agno's store_events; durable runs keep them anyway).
      if (definition.storeEvents === true) state.keepEvents = true;
      (state.output.metrics as unknown as { steps: Record<string, unknown> }).steps = {};
      return runFrom(exec(state, message));
    },
    continue(request) {
      return continueWorkflowRun({
        ...request,
        exec: (state) => {
          if (definition.storeEvents === true) state.keepEvents = true;
          return exec(state, typeof state.output.input === "string" ? state.output.input : JSON.stringify(state.output.input ?? ""));
        },
      });
    },
  };
  const standIn: AgentDefinition = { id: definition.id, name: definition.name, description: definition.description, model: null, metadata: definition.metadata };
  return { ...toRuntimeAgent(standIn), ...extras, workflow };
}

const cache = new WeakMap<WorkflowDefinition, RuntimeAgent>();

/** The configured workflow with this id, or undefined. */
export function findWorkflow(settings: Settings, workflowId: string): RuntimeAgent | undefined {
  const definition = settings.workflows.find((w) => w.id === workflowId);
  if (!definition) return undefined;
  let workflow = cache.get(definition);
  if (!workflow || workflow.prices !== settings.metrics.prices || workflow.embedder !== settings.knowledge.embedder) {
    cache.set(definition, (workflow = toRuntimeWorkflow(definition, { prices: settings.metrics.prices, embedder: settings.knowledge.embedder })));
  }
  return workflow;
}
