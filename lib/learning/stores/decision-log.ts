import { z } from "zod";
import type { DecisionLogConfig, ResolvedStore } from "../../config/learning-config.ts";
import { decisionLearningId, getLearning, searchLearnings, updateLearning, upsertLearning } from "../../db/index.ts";
import { defineTool, type ToolDefinition } from "../../runtime/tools/types.ts";
import { isoNow, unsafeSharedLearningScope, userLearningScope, type LearningRun } from "../learning-run.ts";

/** Agno's DecisionLog content: a choice the agent made, why, and later how it turned out (`dec_<8 hex>`). */
export interface DecisionLog {
  id: string;
  decision: string;
  reasoning: string | null;
  decision_type: string | null;
  context: string | null;
  alternatives: string[] | null;
  confidence: number | null;
  outcome: string | null;
  outcome_quality: string | null;
  tags: string[] | null;
  session_id: string | null;
  user_id: string | null;
  agent_id: string | null;
  team_id: string | null;
  created_at: string | null;
  updated_at: string | null;
}

const DEFAULT_IN_CONTEXT = 5;

/**
 * The decision log (Agno's DecisionLogStore, `agentic` only): `log_decision`, `record_outcome`
 * and `search_decisions`. A decision made in a user's run belongs to that user.
 */
export class DecisionLogStore {
  readonly learningType = "decision_log";
  constructor(readonly store: ResolvedStore<DecisionLogConfig>) {}

  private scope(run: LearningRun) {
    return run.userId ? userLearningScope(run.userId) : unsafeSharedLearningScope();
  }

  private component(run: LearningRun) {
    return run.agentId ? { agentId: run.agentId } : run.teamId ? { teamId: run.teamId } : {};
  }

  async log(run: LearningRun, args: { decision: string; reasoning?: string; decision_type?: string; context?: string; alternatives?: string; confidence?: number }): Promise<DecisionLog> {
    const now = isoNow();
    const id = decisionLearningId();
    const decision: DecisionLog = {
      id,
      decision: args.decision,
      reasoning: args.reasoning ?? null,
      decision_type: args.decision_type ?? null,
      context: args.context ?? null,
      alternatives: args.alternatives
        ? args.alternatives
            .split(",")
            .map((a) => a.trim())
            .filter(Boolean)
        : null,
      confidence: args.confidence ?? null,
      outcome: null,
      outcome_quality: null,
      tags: null,
      session_id: run.sessionId,
      user_id: run.userId,
      agent_id: run.agentId,
      team_id: run.teamId,
      created_at: now,
      updated_at: now,
    };
    await upsertLearning(run.db, {
      scope: this.scope(run),
      learning: {
        learningId: id,
        learningType: this.learningType,
        userId: run.userId,
        agentId: run.agentId,
        teamId: run.teamId,
        sessionId: run.sessionId,
        content: decision as unknown as Record<string, unknown>,
      },
    });
    return decision;
  }

  async recordOutcome(run: LearningRun, args: { decision_id: string; outcome: string; outcome_quality?: string }): Promise<string> {
    const scope = this.scope(run);
    const row = await getLearning(run.db, { scope, learningId: args.decision_id });
    if (!row || row.learning_type !== this.learningType || row.user_id !== run.userId) return `Decision ${args.decision_id} not found`;
    const content = { ...(row.content as unknown as DecisionLog), outcome: args.outcome, outcome_quality: args.outcome_quality ?? null, updated_at: isoNow() };
    await updateLearning(run.db, { scope, learningId: args.decision_id, content: content as unknown as Record<string, unknown> });
    return `Outcome recorded for ${args.decision_id}`;
  }

  async search(run: LearningRun, { query, limit }: { query?: string; limit: number }): Promise<DecisionLog[]> {
    const rows = await searchLearnings(run.db, { scope: this.scope(run), learningType: this.learningType, ...this.component(run), ...(run.userId ? { userId: run.userId } : {}), query, limit });
    return rows.filter((r) => r.user_id === run.userId).map((r) => r.content as unknown as DecisionLog);
  }

  tools(run: LearningRun): ToolDefinition<unknown>[] {
    return [
      defineTool({
        name: "log_decision",
        description: "Record a significant decision you made: what, why, the situation, the alternatives (comma-separated) and your confidence (0 to 1).",
        parameters: z.object({
          decision: z.string().min(1),
          reasoning: z.string().optional(),
          decision_type: z.string().optional(),
          context: z.string().optional(),
          alternatives: z.string().optional(),
          confidence: z.number().min(0).max(1).optional(),
        }),
        execute: async (args) => `Decision logged: ${(await this.log(run, args)).id}`,
      }),
      defineTool({
        name: "record_outcome",
        description: "Record how an earlier decision turned out (outcome_quality: good, bad or neutral).",
        parameters: z.object({ decision_id: z.string().min(1), outcome: z.string().min(1), outcome_quality: z.string().optional() }),
        execute: (args) => this.recordOutcome(run, args),
      }),
      defineTool({
        name: "search_decisions",
        description: "Search your earlier decisions by text.",
        parameters: z.object({ query: z.string().optional(), limit: z.number().int().min(1).max(50).optional() }),
        execute: async ({ query, limit }) => {
          const found = await this.search(run, { query, limit: limit ?? 5 });
          return found.length > 0 ? found.map(describeDecision).join("\n") : "No matching decisions.";
        },
      }),
    ] as ToolDefinition<unknown>[];
  }

  async context(run: LearningRun): Promise<string> {
    const max = this.store.config.maxDecisionsInContext ?? DEFAULT_IN_CONTEXT;
    if (max === 0) return "";
    const recent = await this.search(run, { limit: max });
    if (recent.length === 0) return "";
    return `<decision_log>\nYour recent decisions:\n${recent.map(describeDecision).join("\n")}\n</decision_log>`;
  }
}

function describeDecision(d: DecisionLog): string {
  return `- [${d.id}] ${d.decision}${d.reasoning ? ` (because ${d.reasoning})` : ""}${d.outcome ? ` → ${d.outcome}${d.outcome_quality ? ` (${d.outcome_quality})` : ""}` : ""}`;
}
