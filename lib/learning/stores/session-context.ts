import { z } from "zod";
import type { ResolvedStore, SessionContextConfig } from "../../config/learning-config.ts";
import { getLearning, sessionContextLearningId, upsertLearning } from "../../db/index.ts";
import { extractFor, isoNow, unsafeSharedLearningScope, userLearningScope, type LearningRun } from "../learning-run.ts";

/** Agno's SessionContext content: where a session stands (`session_context_<session_id>`). */
export interface SessionContext {
  session_id: string;
  user_id: string | null;
  summary: string | null;
  goal: string | null;
  plan: string[] | null;
  progress: string[] | null;
  agent_id: string | null;
  team_id: string | null;
  created_at: string | null;
  updated_at: string | null;
}

/** The session context store (Agno's SessionContextStore, `always` only): a running summary of the session, with goal, plan and progress when planning is on. */
export class SessionContextStore {
  readonly learningType = "session_context";
  constructor(readonly store: ResolvedStore<SessionContextConfig>) {}

  private scope(run: LearningRun) {
    return run.userId ? userLearningScope(run.userId) : unsafeSharedLearningScope();
  }

  async get(run: LearningRun): Promise<SessionContext | undefined> {
    const row = await getLearning(run.db, { scope: this.scope(run), learningId: sessionContextLearningId(run.sessionId) });
    return row ? (row.content as unknown as SessionContext) : undefined;
  }

  async extract(run: LearningRun, conversation: string): Promise<void> {
    if (!conversation.trim()) return;
    const existing = await this.get(run);
    const planning = !!this.store.config.enablePlanning;
    const parameters = planning
      ? z.object({
          summary: z.string().min(1).describe("What the session is about and what has happened so far"),
          goal: z.string().optional().describe("What the user is trying to accomplish"),
          plan: z.array(z.string()).optional().describe("Steps to achieve the goal"),
          progress: z.array(z.string()).optional().describe("Which steps have been completed"),
        })
      : z.object({ summary: z.string().min(1).describe("What the session is about and what has happened so far") });
    await extractFor(run, {
      system:
        "You keep the context of a conversation session: a short summary of what it is about and what has happened" +
        (planning ? ", and the user's goal, the plan towards it and the progress made" : "") +
        ". Call save_session_context once with the updated context.\n\n" +
        `Current context:\n${existing ? JSON.stringify({ summary: existing.summary, goal: existing.goal, plan: existing.plan, progress: existing.progress }) : "(none)"}` +
        (this.store.config.additionalInstructions ? `\n\n${this.store.config.additionalInstructions}` : ""),
      prompt: `The session so far:\n\n${conversation}`,
      tools: [
        {
          name: "save_session_context",
          description: "Save the session's updated context.",
          parameters,
          execute: async (args) => {
            const now = isoNow();
            const given = args as { summary: string; goal?: string; plan?: string[]; progress?: string[] };
            const content: SessionContext = {
              session_id: run.sessionId,
              user_id: run.userId,
              summary: given.summary,
              goal: given.goal ?? existing?.goal ?? null,
              plan: given.plan ?? existing?.plan ?? null,
              progress: given.progress ?? existing?.progress ?? null,
              agent_id: run.agentId,
              team_id: run.teamId,
              created_at: existing?.created_at ?? now,
              updated_at: now,
            };
            await upsertLearning(run.db, {
              scope: this.scope(run),
              learning: {
                learningId: sessionContextLearningId(run.sessionId),
                learningType: this.learningType,
                sessionId: run.sessionId,
                userId: run.userId,
                agentId: run.agentId,
                teamId: run.teamId,
                content: content as unknown as Record<string, unknown>,
              },
            });
            return "Session context saved";
          },
        },
      ],
      maxToolCalls: 1,
    });
  }

  async context(run: LearningRun): Promise<string> {
    const context = await this.get(run);
    if (!context?.summary) return "";
    const parts = [`Summary: ${context.summary}`];
    if (context.goal) parts.push(`Goal: ${context.goal}`);
    if (context.plan?.length) parts.push(`Plan:\n${context.plan.map((s, i) => `${i + 1}. ${s}`).join("\n")}`);
    if (context.progress?.length) parts.push(`Progress:\n${context.progress.map((s) => `- ${s}`).join("\n")}`);
    return `<session_context>\n${parts.join("\n")}\n</session_context>`;
  }
}
