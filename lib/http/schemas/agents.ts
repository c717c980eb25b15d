import { z } from "zod";
import { formBool, formInt, formJson, formJsonObject, formOptionalString, formOutputSchema } from "./form-fields.ts";

export const AgentParams = z.object({ agent_id: z.string().min(1) });
export const AgentRunParams = z.object({ agent_id: z.string().min(1), run_id: z.string().min(1) });
export const TeamParams = z.object({ team_id: z.string().min(1) });
export const TeamRunParams = z.object({ team_id: z.string().min(1), run_id: z.string().min(1) });
export const WorkflowParams = z.object({ workflow_id: z.string().min(1) });
export const WorkflowRunParams = z.object({ workflow_id: z.string().min(1), run_id: z.string().min(1) });

/**
 * POST /agents/{agent_id}/runs — form fields as Agno's chat UI and Python client send them. The
 * JSON fields follow Agno: one that does not decode is dropped with a logged warning; `metadata`
 * that decodes to a non-object is a 400 (checked by the route); `output_schema` must be a usable
 * JSON Schema (422). `knowledge_filters` is read and checked, and not yet applied to the agent's
 * knowledge searches (which filter by the run's user only).
 */
export const CreateRunForm = z.looseObject({
  message: z.string({ error: "message is required" }).min(1, "message must not be empty"),
  stream: formBool(true),
  session_id: formOptionalString(),
  user_id: formOptionalString(),
  background: formBool(false),
  stream_events: formBool(true),
  session_state: formJsonObject("session_state"),
  dependencies: formJsonObject("dependencies"),
  metadata: formJson("metadata"),
  knowledge_filters: formJson("knowledge_filters"),
  output_schema: formOutputSchema(),
  version: z.string().optional(),
});

export const ContinueRunForm = z.looseObject({
  tools: z.string().optional(),
  requirements: z.string().optional(),
  session_id: formOptionalString(),
  user_id: formOptionalString(),
  stream: formBool(true),
  background: formBool(false),
});

export const ResumeRunForm = z.looseObject({
  last_event_index: formInt(),
  session_id: formOptionalString(),
});

/** The query of one agent run's routes (poll, cancel): the session the run belongs to. */
export const RunSessionQuery = z.object({ session_id: z.string().min(1).optional() });
export const ListRunsQuery = z.object({ session_id: z.string().min(1), status: z.string().optional() });

/**
 * The cancel answer: `{}` when the run ends CANCELLED (Agno's answer); beyond Agno, a run that had
 * already finished says so (`cancelled: false` with its status), since nothing was cancelled. The
 * sentence is `message`, not `detail`: Agno's clients read a `detail` as an error.
 */
export const CancelRunResponseSchema = z.object({
  cancelled: z.literal(false).optional(),
  status: z.enum(["COMPLETED", "ERROR"]).optional(),
  message: z.string().optional(),
});

const ModelSchema = z.object({ name: z.string().nullable(), model: z.string().nullable(), provider: z.string().nullable() });

/** Agno's AgentResponse (the fields agent-ui and the Python client read, plus the rest as objects). */
export const AgentResponseSchema = z.object({
  id: z.string(),
  name: z.string(),
  db_id: z.string(),
  description: z.string().nullable(),
  role: z.string().nullable(),
  is_factory: z.boolean(),
  model: ModelSchema.nullable(),
  tools: z.object({
    tools: z.array(
      z.object({
        name: z.string(),
        description: z.string(),
        toolkit_id: z.string().nullable(),
        requires_confirmation: z.boolean(),
        requires_user_input: z.boolean(),
        external_execution: z.boolean(),
        approval_type: z.enum(["required", "audit"]).nullable(),
      }),
    ),
  }),
  sessions: z.object({ session_table: z.string(), add_history_to_context: z.boolean(), num_history_runs: z.number().nullable() }),
  knowledge: z.record(z.string(), z.unknown()).nullable(),
  memory: z.object({ update_memory_on_run: z.boolean(), search_past_sessions: z.boolean() }),
  reasoning: z.record(z.string(), z.unknown()).nullable(),
  default_tools: z.record(z.string(), z.unknown()).nullable(),
  system_message: z.object({ instructions: z.union([z.string(), z.array(z.string())]).nullable(), description: z.string().nullable() }),
  extra_messages: z.record(z.string(), z.unknown()).nullable(),
  response_settings: z.object({ output_schema_name: z.string().nullable() }),
  introduction: z.string().nullable(),
  streaming: z.object({ stream: z.boolean(), stream_events: z.boolean() }),
  metadata: z.record(z.string(), z.unknown()).nullable(),
  input_schema: z.unknown().nullable(),
  factory_input_schema: z.unknown().nullable(),
  is_component: z.boolean(),
  current_version: z.number().nullable(),
  stage: z.string().nullable(),
  /** Beyond Agno: whether a model provider is configured, and what to set when not. */
  model_configured: z.boolean(),
});

/**
 * An agent another framework runs (lib/runtime/external/), as Agno's AgentResponse lists one:
 * id, name, description and `metadata.framework`; in GET /agents also the database its sessions
 * are stored in (`db_id`, `sessions.session_table`).
 */
export const ExternalAgentResponseSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  db_id: z.string().optional(),
  sessions: z.object({ session_table: z.string() }).optional(),
  metadata: z.object({ framework: z.string() }),
});

/** Agno's TeamResponse: mode and members (agents or teams) besides the leader's settings. */
export interface TeamResponse extends Omit<z.infer<typeof AgentResponseSchema>, "is_factory" | "extra_messages" | "factory_input_schema" | "memory" | "response_settings" | "streaming"> {
  mode: string;
  memory: Record<string, unknown> | null;
  response_settings: Record<string, unknown> | null;
  streaming: { stream: boolean; stream_events: boolean; stream_member_events: boolean };
  members: (z.infer<typeof AgentResponseSchema> | TeamResponse)[];
}

export const TeamResponseSchema: z.ZodType<TeamResponse> = AgentResponseSchema.omit({
  is_factory: true,
  extra_messages: true,
  factory_input_schema: true,
  memory: true,
  response_settings: true,
  streaming: true,
}).extend({
  mode: z.string(),
  memory: z.record(z.string(), z.unknown()).nullable(),
  response_settings: z.record(z.string(), z.unknown()).nullable(),
  streaming: z.object({ stream: z.boolean(), stream_events: z.boolean(), stream_member_events: z.boolean() }),
  members: z.lazy(() => (membersSchema ??= z.array(z.union([AgentResponseSchema, TeamResponseSchema])))),
});
/** Built once, on first use (it refers to TeamResponseSchema itself). */
let membersSchema: z.ZodType<TeamResponse["members"]> | undefined;

/**
 * The run as stored: Agno's RunOutput dict. Loose: every RunOutput field passes through. Only
 * `run_id` is always there: Agno's `RunOutput.to_dict()` leaves out fields that are None, and a
 * run an older Agno wrote may lack most keys (it is sent as stored).
 */
export const RunOutputSchema = z.looseObject({
  run_id: z.string(),
  agent_id: z.string().optional(),
  team_id: z.string().optional(),
  session_id: z.string().optional(),
  status: z.string().optional(),
  content: z.unknown().optional(),
  created_at: z.number().optional(),
});

/** Agno's WorkflowSummaryResponse (GET /workflows). */
export const WorkflowSummarySchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  db_id: z.string(),
  is_component: z.boolean(),
  current_version: z.number().nullable(),
  stage: z.string().nullable(),
});

/** Agno's WorkflowResponse (GET /workflows/{workflow_id}): its steps as `to_dict()` describes them. */
export const WorkflowResponseSchema = z.object({
  id: z.string(),
  name: z.string(),
  db_id: z.string(),
  description: z.string().nullable(),
  input_schema: z.record(z.string(), z.unknown()).nullable(),
  steps: z.array(z.record(z.string(), z.unknown())),
  agent: z.record(z.string(), z.unknown()).nullable(),
  team: z.record(z.string(), z.unknown()).nullable(),
  metadata: z.record(z.string(), z.unknown()).nullable(),
  workflow_agent: z.boolean(),
  is_factory: z.boolean(),
  factory_input_schema: z.unknown().nullable(),
  is_component: z.boolean(),
  current_version: z.number().nullable(),
  stage: z.string().nullable(),
});

export const BackgroundAcceptedSchema = z.object({ run_id: z.string(), session_id: z.string(), status: z.literal("PENDING") });
