import { z } from "zod";
import { DbSelectionQuery, JsonObject, PageQuery, SortOrder, paginated } from "./list-query.ts";

/** Request and response shapes of Agno's Sessions API (`/sessions`). */

export const SessionTypeSchema = z.enum(["agent", "team", "workflow"]);

const Nullable = {
  string: z.string().nullable(),
  object: JsonObject.nullable(),
  list: z.array(JsonObject).nullable(),
  int: z.number().int().nullable(),
};

// ── requests ────────────────────────────────────────────────────────────────────────────────

export const SessionParams = z.object({ session_id: z.string().min(1) });
export const SessionRunParams = z.object({ session_id: z.string().min(1), run_id: z.string().min(1) });

export const ListSessionsQuery = z.object({
  type: SessionTypeSchema.optional(),
  component_id: z.string().min(1).optional(),
  user_id: z.string().optional(),
  session_name: z.string().optional(),
  ...PageQuery,
  sort_by: z.enum(["created_at", "updated_at", "session_id"]).default("created_at"),
  sort_order: SortOrder,
  ...DbSelectionQuery,
});

/** `type` omitted = whatever type the session has. */
export const SessionQuery = z.object({ type: SessionTypeSchema.optional(), user_id: z.string().optional(), ...DbSelectionQuery });

export const SessionRunsQuery = SessionQuery.extend({
  created_after: z.coerce.number().int().optional(),
  created_before: z.coerce.number().int().optional(),
});

export const CreateSessionQuery = z.object({ type: SessionTypeSchema.default("agent"), ...DbSelectionQuery });

export const CreateSessionBody = z.object({
  session_id: z.string().min(1).nullish(),
  session_name: z.string().nullish(),
  session_state: JsonObject.nullish(),
  metadata: JsonObject.nullish(),
  user_id: z.string().nullish(),
  agent_id: z.string().nullish(),
  team_id: z.string().nullish(),
  workflow_id: z.string().nullish(),
});

export const DeleteSessionsBody = z.object({
  session_ids: z.array(z.string().min(1)).min(1),
  session_types: z.array(SessionTypeSchema).min(1),
});

export const RenameSessionBody = z.object({ session_name: z.string() });

/** Every field optional; null or absent = unchanged; an empty body changes nothing. */
export const UpdateSessionBody = z
  .object({
    session_name: z.string().nullish(),
    session_state: JsonObject.nullish(),
    metadata: JsonObject.nullish(),
    summary: JsonObject.nullish(),
  })
  .default({});

// ── responses ───────────────────────────────────────────────────────────────────────────────

export const SessionSchema = z.object({
  session_id: z.string(),
  session_name: z.string(),
  session_state: Nullable.object,
  created_at: Nullable.string,
  updated_at: Nullable.string,
  session_type: SessionTypeSchema,
  user_id: Nullable.string,
  agent_id: Nullable.string,
  team_id: Nullable.string,
  workflow_id: Nullable.string,
  session_summary: Nullable.object,
  /** session_data.session_metrics */
  metrics: Nullable.object,
  total_tokens: z.number().nullable(),
  metadata: Nullable.object,
});

export const SessionListSchema = paginated(SessionSchema);

const DetailCommon = {
  session_id: z.string(),
  session_name: z.string(),
  user_id: Nullable.string,
  session_state: Nullable.object,
  metadata: Nullable.object,
  created_at: Nullable.string,
  updated_at: Nullable.string,
};

export const AgentSessionDetailSchema = z.object({
  ...DetailCommon,
  agent_session_id: z.string(),
  session_summary: Nullable.object,
  agent_id: Nullable.string,
  total_tokens: z.number().nullable(),
  agent_data: Nullable.object,
  metrics: Nullable.object,
  chat_history: z.array(JsonObject),
});

export const TeamSessionDetailSchema = z.object({
  ...DetailCommon,
  team_id: Nullable.string,
  session_summary: Nullable.object,
  metrics: Nullable.object,
  team_data: Nullable.object,
  chat_history: z.array(JsonObject),
  total_tokens: z.number().nullable(),
});

export const WorkflowSessionDetailSchema = z.object({
  ...DetailCommon,
  workflow_id: Nullable.string,
  workflow_name: Nullable.string,
  session_data: Nullable.object,
  workflow_data: Nullable.object,
});

export const SessionDetailSchema = z.union([AgentSessionDetailSchema, TeamSessionDetailSchema, WorkflowSessionDetailSchema]);

/** A run's output: text, or a structured (JSON) value. */
const RunContent = z.union([z.string(), JsonObject, z.array(z.unknown())]).nullable();

const RunMediaAndReasoning = {
  reasoning_content: Nullable.string,
  reasoning_steps: Nullable.list,
  reasoning_messages: Nullable.list,
  references: Nullable.list,
  citations: Nullable.object,
  images: Nullable.list,
  videos: Nullable.list,
  audio: Nullable.list,
  files: Nullable.list,
  response_audio: Nullable.object,
};

export const RunSchema = z.object({
  run_id: z.string(),
  parent_run_id: Nullable.string,
  agent_id: Nullable.string,
  user_id: Nullable.string,
  status: Nullable.string,
  /** The run's input as a string (JSON for structured input). */
  run_input: Nullable.string,
  content: RunContent,
  run_response_format: z.enum(["text", "json"]),
  metrics: Nullable.object,
  messages: Nullable.list,
  tools: Nullable.list,
  events: Nullable.list,
  created_at: Nullable.string,
  session_state: Nullable.object,
  ...RunMediaAndReasoning,
  input_media: z.object({
    images: z.array(z.unknown()),
    videos: z.array(z.unknown()),
    audio: z.array(z.unknown()),
    files: z.array(z.unknown()),
  }),
  followups: z.array(z.string()).nullable(),
  forked_from_run_id: Nullable.string,
  forked_from_message_index: Nullable.int,
  forked_from_session_id: Nullable.string,
  regenerated_from: Nullable.string,
  last_checkpoint_at_message_index: Nullable.int,
});

export const TeamRunSchema = RunSchema.omit({ agent_id: true }).extend({ team_id: Nullable.string });

export const WorkflowRunSchema = z.object({
  run_id: z.string(),
  run_input: Nullable.string,
  events: Nullable.list,
  workflow_id: Nullable.string,
  user_id: Nullable.string,
  content: RunContent,
  content_type: Nullable.string,
  status: Nullable.string,
  step_results: Nullable.list,
  step_executor_runs: Nullable.list,
  step_requirements: Nullable.list,
  pause_kind: Nullable.string,
  paused_step_name: Nullable.string,
  paused_step_index: Nullable.int,
  metrics: Nullable.object,
  created_at: Nullable.string,
  ...RunMediaAndReasoning,
});

export const AnyRunSchema = z.union([RunSchema, TeamRunSchema, WorkflowRunSchema]);
export const SessionRunsSchema = z.array(AnyRunSchema);
