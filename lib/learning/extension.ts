import type { LanguageModelUsage } from "ai";
import { knowledgeBaseOf } from "../knowledge/knowledge-bases.ts";
import { addUsage, messageText } from "../runtime/background-tasks.ts";
import type { RunExtension } from "../runtime/run-extensions.ts";
import type { RunState } from "../runtime/run-state.ts";
import type { LearningRun } from "./learning-run.ts";
import { machineOf } from "./machine.ts";

/** The run's view for its learning machine; undefined for a run whose agent learns nothing (or a workflow's). */
function learningRunOf(state: RunState, onUsage: (usage: LanguageModelUsage) => void): LearningRun | undefined {
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
    signal: state.live.controller.signal,
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
    const run = learningRunOf(state, (usage) => usages.push(usage));
    const machine = machineOf(state.agent.definition);
    if (!run || !machine?.hasBackgroundWork(run)) return undefined;
    const messages = input.messages.map((m) => ({ role: m.role, text: messageText(m) }));
    return machine.process(run, messages).then(() => sumUsage(usages));
  },
};

function sumUsage(usages: readonly LanguageModelUsage[]): LanguageModelUsage | undefined {
  if (usages.length === 0) return undefined;
  const total = { inputTokens: 0, outputTokens: 0, totalTokens: 0, cachedInputTokens: 0, reasoningTokens: 0 } as LanguageModelUsage;
  for (const u of usages) {
    total.inputTokens = (total.inputTokens ?? 0) + (u.inputTokens ?? 0);
    total.outputTokens = (total.outputTokens ?? 0) + (u.outputTokens ?? 0);
    total.totalTokens = (total.totalTokens ?? 0) + (u.totalTokens ?? 0);
  }
  return total;
}
