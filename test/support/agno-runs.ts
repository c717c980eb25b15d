import { upsertRun, upsertSession, type DataScope, type Db, type SessionInput } from "@/lib/db/index.ts";
import type { RunType } from "@/lib/db/runs/run-type.ts";

/**
 * Run dicts shaped like Agno's RunOutput / TeamRunOutput / WorkflowRunOutput as they are stored
 * in agno_runs.run_data, and a seeding helper that writes a session with its runs.
 */

let seq = 0;
export const uid = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${++seq}`;

export interface AgnoRunOptions {
  runId?: string;
  sessionId: string;
  agentId?: string;
  teamId?: string;
  workflowId?: string;
  parentRunId?: string;
  input?: unknown;
  content?: unknown;
  contentType?: string;
  /** Default: a system prompt, the user's input and the assistant's answer. */
  messages?: Record<string, unknown>[] | null;
  createdAt?: number;
  status?: string;
}

/** An agent/team run dict as Agno stores it. */
export function agnoRun(options: AgnoRunOptions): Record<string, unknown> {
  const input = options.input ?? "What is the capital of France?";
  const content = options.content ?? "Paris.";
  const createdAt = options.createdAt ?? 1_750_000_000;
  const messages =
    options.messages === undefined
      ? [
          { role: "system", content: "You are a helpful assistant.", created_at: createdAt },
          { role: "user", content: input, created_at: createdAt },
          { role: "assistant", content, created_at: createdAt, metrics: { total_tokens: 12 } },
        ]
      : options.messages;
  return {
    run_id: options.runId ?? uid("run"),
    session_id: options.sessionId,
    ...(options.agentId !== undefined ? { agent_id: options.agentId } : {}),
    ...(options.teamId !== undefined ? { team_id: options.teamId } : {}),
    ...(options.workflowId !== undefined ? { workflow_id: options.workflowId } : {}),
    ...(options.parentRunId !== undefined ? { parent_run_id: options.parentRunId } : {}),
    input: { input_content: input },
    content,
    content_type: options.contentType ?? "str",
    ...(messages ? { messages } : {}),
    metrics: { input_tokens: 8, output_tokens: 4, total_tokens: 12 },
    created_at: createdAt,
    status: options.status ?? "COMPLETED",
  };
}

/** Writes a session and its runs (in order) through lib/db, as the runtime would. */
export async function seedSession(db: Db, { scope, session, runs = [] }: { scope: DataScope; session: Partial<SessionInput> & { sessionId?: string }; runs?: Record<string, unknown>[] }) {
  const sessionId = session.sessionId ?? uid("session");
  const stored = await upsertSession(db, {
    scope,
    session: { sessionType: "agent", agentId: "assistant", ...session, sessionId },
  });
  for (const run of runs) {
    const runType: RunType = run.workflow_id ? "workflow" : run.team_id && !run.agent_id ? "team" : "agent";
    await upsertRun(db, {
      scope,
      run: {
        runId: String(run.run_id),
        sessionId,
        runType,
        agentId: (run.agent_id as string | undefined) ?? null,
        teamId: (run.team_id as string | undefined) ?? null,
        workflowId: (run.workflow_id as string | undefined) ?? null,
        parentRunId: (run.parent_run_id as string | undefined) ?? null,
        status: (run.status as string | undefined) ?? null,
        runData: { ...run, session_id: sessionId },
        createdAt: run.created_at as number | undefined,
      },
    });
  }
  return stored;
}
