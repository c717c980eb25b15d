import type { z } from "zod";
import type { SessionType } from "../../db/sessions/sessions.ts";
import { isoTime } from "../schemas/list-query.ts";
import type { AnyRunSchema, RunSchema, TeamRunSchema, WorkflowRunSchema } from "../schemas/sessions.ts";

/** Maps stored run dicts (Agno's RunOutput/TeamRunOutput/WorkflowRunOutput) to the API's run schemas. */

type Dict = Record<string, unknown>;

const isDict = (v: unknown): v is Dict => !!v && typeof v === "object" && !Array.isArray(v);
export const str = (v: unknown): string | null => (typeof v === "string" ? v : null);
export const dict = (v: unknown): Dict | null => (isDict(v) ? v : null);
export const dicts = (v: unknown): Dict[] | null => (Array.isArray(v) ? v.filter(isDict) : null);
const int = (v: unknown): number | null => (typeof v === "number" && Number.isInteger(v) ? v : null);
const array = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** Agno's stringify_input_content: strings as they are, a user message's content, else JSON. */
export function stringifyInput(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    const first = content[0];
    if (isDict(first) && first.role === "user") return typeof first.content === "string" ? first.content : JSON.stringify(first.content ?? content);
    return JSON.stringify(content);
  }
  if (isDict(content)) return JSON.stringify(content, null, 2);
  return content === undefined || content === null ? "" : String(content);
}

/** The last user message's content among `messages`, or null. */
function lastUserMessage(messages: unknown): string | null {
  const list = dicts(messages) ?? [];
  for (let i = list.length - 1; i >= 0; i--) {
    if (list[i].role === "user") return stringifyInput(list[i].content);
  }
  return null;
}

/**
 * The run's input as a string: `input.input_content` for agent and team runs; for workflow runs
 * the `input` itself (JSON when structured), then the first step's last user message; finally the
 * last user message of the run, else "".
 */
export function runInput(run: Dict, isWorkflow = false): string {
  const input = run.input;
  if (!isWorkflow && isDict(input) && input.input_content !== undefined && input.input_content !== null) {
    return stringifyInput(input.input_content);
  }
  if (isWorkflow) {
    if (input !== undefined && input !== null) return typeof input === "string" ? input : JSON.stringify(input);
    const firstStep = dicts(run.step_executor_runs)?.[0];
    const fromStep = firstStep ? lastUserMessage(firstStep.messages) : null;
    if (fromStep !== null) return fromStep;
  }
  return lastUserMessage(run.messages) ?? "";
}

const content = (v: unknown): string | Dict | unknown[] | null => (v === undefined || v === null ? null : typeof v === "string" || Array.isArray(v) || isDict(v) ? v : String(v));

function mediaAndReasoning(run: Dict) {
  return {
    reasoning_content: str(run.reasoning_content),
    reasoning_steps: dicts(run.reasoning_steps),
    reasoning_messages: dicts(run.reasoning_messages),
    references: dicts(run.references),
    citations: dict(run.citations),
    images: dicts(run.images),
    videos: dicts(run.videos),
    audio: dicts(run.audio),
    files: dicts(run.files),
    response_audio: dict(run.response_audio),
  };
}

type RunOut = z.infer<typeof RunSchema>;
type TeamRunOut = z.infer<typeof TeamRunSchema>;
type WorkflowRunOut = z.infer<typeof WorkflowRunSchema>;

function runCommon(run: Dict): Omit<RunOut, "agent_id"> {
  const input = dict(run.input) ?? {};
  const messages = dicts(run.messages);
  const tools = dicts(run.tools);
  const events = dicts(run.events);
  return {
    run_id: String(run.run_id ?? ""),
    parent_run_id: str(run.parent_run_id),
    user_id: str(run.user_id),
    status: str(run.status),
    run_input: runInput(run),
    content: content(run.content),
    run_response_format: (run.content_type ?? "str") === "str" ? "text" : "json",
    metrics: dict(run.metrics),
    messages: messages?.length ? messages : null,
    tools: tools?.length ? tools : null,
    events: events?.length ? events : null,
    created_at: isoTime(run.created_at),
    session_state: dict(run.session_state),
    ...mediaAndReasoning(run),
    input_media: {
      images: array(input.images),
      videos: array(input.videos),
      audio: array(input.audio ?? input.audios),
      files: array(input.files),
    },
    followups: Array.isArray(run.followups) ? run.followups.filter((f): f is string => typeof f === "string") : null,
    forked_from_run_id: str(run.forked_from_run_id),
    forked_from_message_index: int(run.forked_from_message_index),
    forked_from_session_id: str(run.forked_from_session_id),
    regenerated_from: str(run.regenerated_from),
    last_checkpoint_at_message_index: int(run.last_checkpoint_at_message_index),
  };
}

/**
 * A stored or finished run as the API answers it whole (a run's poll, a non-streamed run's
 * answer): without `external_state`, which an external agent's adapter keeps for the session's
 * next run (the Claude Agent SDK's session id) and which stays stored, not shown.
 */
export function shownRun<T extends object>(run: T): Omit<T, "external_state"> {
  const { external_state: _kept, ...shown } = run as T & { external_state?: unknown };
  return shown;
}

export const toRunSchema = (run: Dict): RunOut => ({ ...runCommon(run), agent_id: str(run.agent_id) });
export const toTeamRunSchema = (run: Dict): TeamRunOut => ({ ...runCommon(run), team_id: str(run.team_id) });

export function toWorkflowRunSchema(run: Dict): WorkflowRunOut {
  return {
    run_id: String(run.run_id ?? ""),
    run_input: runInput(run, true),
    events: dicts(run.events),
    workflow_id: str(run.workflow_id),
    user_id: str(run.user_id),
    content: content(run.content),
    content_type: str(run.content_type),
    status: str(run.status),
    step_results: dicts(run.step_results),
    step_executor_runs: dicts(run.step_executor_runs),
    step_requirements: dicts(run.step_requirements),
    pause_kind: str(run.pause_kind),
    paused_step_name: str(run.paused_step_name),
    paused_step_index: int(run.paused_step_index),
    metrics: dict(run.metrics),
    created_at: isoTime(run.created_at),
    ...mediaAndReasoning(run),
  };
}

/**
 * One run as its session type shows it, as Agno's `GET /sessions/{id}/runs` does: agent sessions →
 * RunSchema; team sessions → RunSchema for member runs (agent_id), TeamRunSchema for team runs,
 * else dropped (null); workflow sessions → WorkflowRunSchema, TeamRunSchema or RunSchema.
 */
export function toSessionRun(run: Dict, sessionType: SessionType): z.infer<typeof AnyRunSchema> | null {
  if (sessionType === "agent") return toRunSchema(run);
  if (sessionType === "team") {
    if (run.agent_id) return toRunSchema(run);
    return run.team_id ? toTeamRunSchema(run) : null;
  }
  if (run.workflow_id) return toWorkflowRunSchema(run);
  return run.team_id ? toTeamRunSchema(run) : toRunSchema(run);
}
