import type { z } from "zod";
import type { SessionWithRuns, StoredSession } from "../../db/sessions/sessions.ts";
import { isoTime } from "../schemas/list-query.ts";
import type { AgentSessionDetailSchema, SessionSchema, TeamSessionDetailSchema, WorkflowSessionDetailSchema } from "../schemas/sessions.ts";
import { dict, dicts, runInput, str, stringifyInput } from "./run-views.ts";

/** Maps stored sessions (with their run dicts) to the Sessions API's response schemas. */

type Dict = Record<string, unknown>;

/** A session name derived from an input is at most this many characters (code points). */
export const MAX_DERIVED_NAME_LENGTH = 120;

/**
 * `text` cut to `max` code points, the last being "…" when anything was cut. Cuts fall between
 * code points (a surrogate pair is never split); only the head of a long text is walked.
 */
export function truncateName(text: string, max = MAX_DERIVED_NAME_LENGTH): string {
  if (text.length <= max) return text;
  let points = 0;
  let offset = 0;
  let cut = 0;
  for (const point of text) {
    if (++points > max) return `${text.slice(0, cut)}…`;
    offset += point.length;
    if (points === max - 1) cut = offset;
  }
  return text;
}

/**
 * Agno's get_session_name: `session_data.session_name`; else for workflows the first run's input
 * (JSON when structured) or "New <workflow name> Session"; else (agent/team — team only its own,
 * non-member runs) the first user message, else the first run input, else "". A name given to
 * the session is returned whole; one derived from an input is cut by truncateName.
 */
export function sessionName(session: StoredSession, runs: Dict[]): string {
  const stored = session.session_data?.session_name;
  if (typeof stored === "string") return stored;
  return truncateName(derivedSessionName(session, runs));
}

function derivedSessionName(session: StoredSession, runs: Dict[]): string {
  if (session.session_type === "workflow") {
    const input = runs[0]?.input;
    if (typeof input === "string") return input;
    if (input && typeof input === "object") return JSON.stringify(input);
    const name = str(session.workflow_data?.name);
    return name ? `New ${name} Session` : "";
  }
  const own = session.session_type === "team" ? runs.filter((run) => !run.agent_id) : runs;
  for (const run of own) {
    const firstUser = (dicts(run.messages) ?? []).find((m) => m.role === "user" && m.content);
    if (firstUser) return stringifyInput(firstUser.content);
    const input = dict(run.input);
    if (input?.input_content !== undefined && input.input_content !== null) return stringifyInput(input.input_content);
  }
  return "";
}

const SKIPPED_ROLES = new Set(["system", "developer"]);

/**
 * The conversation of a session: each top-level run's messages (member runs, system prompts and
 * messages replayed from history are left out); a run that stored no messages contributes its
 * input and content as a user and an assistant message.
 */
export function chatHistory(runs: Dict[], sessionType: StoredSession["session_type"]): Dict[] {
  const history: Dict[] = [];
  for (const run of runs) {
    if (run.parent_run_id || (sessionType === "team" && run.agent_id)) continue;
    const messages = dicts(run.messages);
    if (messages && messages.length > 0) {
      for (const message of messages) {
        if (message.from_history === true || SKIPPED_ROLES.has(String(message.role))) continue;
        history.push(message);
      }
      continue;
    }
    const createdAt = typeof run.created_at === "number" ? run.created_at : undefined;
    const input = runInput(run);
    if (input) history.push({ role: "user", content: input, ...(createdAt ? { created_at: createdAt } : {}) });
    if (run.content !== undefined && run.content !== null) {
      history.push({ role: "assistant", content: run.content, ...(createdAt ? { created_at: createdAt } : {}) });
    }
  }
  return history;
}

function metricsOf(session: StoredSession) {
  const metrics = dict(session.session_data?.session_metrics);
  const total = metrics?.total_tokens;
  return { metrics, total_tokens: typeof total === "number" ? total : null };
}

const times = (session: StoredSession) => {
  const created = isoTime(session.created_at);
  return { created_at: created, updated_at: isoTime(session.updated_at) ?? created };
};

export function toSessionSchema(session: StoredSession, name: string): z.infer<typeof SessionSchema> {
  const { metrics, total_tokens } = metricsOf(session);
  return {
    session_id: session.session_id,
    session_name: name,
    session_state: dict(session.session_data?.session_state),
    ...times(session),
    session_type: session.session_type,
    user_id: session.user_id,
    agent_id: session.agent_id,
    team_id: session.team_id,
    workflow_id: session.workflow_id,
    session_summary: session.summary,
    metrics,
    total_tokens,
    metadata: session.metadata,
  };
}

export type SessionDetail = z.infer<typeof AgentSessionDetailSchema> | z.infer<typeof TeamSessionDetailSchema> | z.infer<typeof WorkflowSessionDetailSchema>;

/** The detail schema of the session's type (agent, team or workflow). */
export function toSessionDetail(session: SessionWithRuns): SessionDetail {
  const common = {
    session_id: session.session_id,
    session_name: sessionName(session, session.runs),
    user_id: session.user_id,
    session_state: dict(session.session_data?.session_state),
    metadata: session.metadata,
    ...times(session),
  };
  const { metrics, total_tokens } = metricsOf(session);
  switch (session.session_type) {
    case "workflow":
      return {
        ...common,
        workflow_id: session.workflow_id,
        workflow_name: str(session.workflow_data?.name),
        session_data: session.session_data,
        workflow_data: session.workflow_data,
      };
    case "team":
      return {
        ...common,
        team_id: session.team_id,
        session_summary: session.summary,
        metrics,
        team_data: session.team_data,
        chat_history: chatHistory(session.runs, "team"),
        total_tokens,
      };
    default:
      return {
        ...common,
        agent_session_id: session.session_id,
        session_summary: session.summary,
        agent_id: session.agent_id,
        total_tokens,
        agent_data: session.agent_data,
        metrics,
        chat_history: chatHistory(session.runs, "agent"),
      };
  }
}
