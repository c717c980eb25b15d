import type { LanguageModelUsage } from "ai";
import { log } from "../log.ts";
import { knowledgeBaseOf } from "../knowledge/knowledge-bases.ts";
import { addUsage, messageText } from "../runtime/background-tasks.ts";
import type { RunExtension } from "../runtime/run-extensions.ts";
import type { RunState } from "../runtime/run-state.ts";
import type { LearningRun } from "./learning-run.ts";
import { machineOf } from "./machine.ts";

/** The run's view for its learning machine; undefined for a run whose agent learns nothing (or a workflow's). */
function learningRunOf(state: RunState, onUsage: (usage: LanguageModelUsage) => void, signal = state.live.controller.signal): LearningRun | undefined {
  if (state.agent.workflow || !state.model) return undefined;
  const machine = machineOf(state.agent.definition);
  if (!machine) return undefined;
  const { output } = state;
  const input = output.input?.input_content;
  return {
    db: state.db,
    model: state.model,
    learning: machine.learning,
    userId: output.user_id ?? null,
    sessionId: output.session_id,
    agentId: state.agent.team ? null : state.agent.definition.id,
    teamId: state.agent.team ? state.agent.definition.id : null,
    knowledge: state.agent.definition.knowledge ? knowledgeBaseOf(state.db, state.agent.definition.knowledge, state.agent.embedder ?? null) : undefined,
    input: typeof input === "string" ? input : input === undefined || input === null ? "" : JSON.stringify(input),
    signal,
    onUsage,
  };
}

/**
 * Learning as a run extension: what the agent's machine knows goes into the prompt, its agentic
 * stores' tools are offered, and its `always` stores extract from the run's input as a background
 * task (started as the model is called, awaited before the run completes or pauses). The usage
 * of every learning model call — background or through a tool — joins the run's metrics.
 */
export const learningExtension: RunExtension = {
  name: "learning",
  async promptContext(state) {
    const run = learningRunOf(state, (usage) => addUsage(state.output.metrics, usage));
    return run ? await machineOf(state.agent.definition)!.context(run) : [];
  },
  tools(state) {
    const run = learningRunOf(state, (usage) => addUsage(state.output.metrics, usage));
    return run ? machineOf(state.agent.definition)!.tools(run) : [];
  },
  backgroundTask(state, input) {
    const usages: LanguageModelUsage[] = [];
    const run = learningRunOf(state, (usage) => usages.push(usage), input.signal);
    const machine = machineOf(state.agent.definition);
    if (!run || !machine?.hasBackgroundWork(run)) return undefined;
    const messages = input.messages.map((m) => ({ role: m.role, text: messageText(m) }));
    // Every call's usage, whether or not a store failed (the usage of what ran is still spent).
    return machine.process(run, messages).then(
      () => usages,
      (error: unknown) => {
        if (usages.length === 0) throw error;
        if (!input.signal.aborted) log.warn(`[run ${state.output.run_id}] learning failed: ${(error as Error).message}`);
        return usages;
      },
    );
  },
};
