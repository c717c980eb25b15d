/**
 * Component configs written the way Agno's Studio writes them (`Agent.to_dict()`,
 * `Team.to_dict()`, `Workflow.to_dict()`): snake_case, only non-default flags, a model dict,
 * serialized tool functions carrying their toolkit, knowledge and learning by name, and keys
 * Agentry does not use (telemetry, debug settings, a db block with table names).
 */

export const AGNO_AGENT_CONFIG = {
  model: { name: "OpenAIChat", id: "gpt-4.1-mini", provider: "OpenAI" },
  name: "Research helper",
  id: "research-helper",
  description: "Looks things up and does the sums.",
  db: { id: "agentry-db", type: "postgres", session_table: "agno_sessions", memory_table: "agno_memories" },
  add_history_to_context: true,
  num_history_runs: 3,
  update_memory_on_run: true,
  search_past_sessions: true,
  num_past_sessions_to_search: 2,
  knowledge: { name: "Handbook" },
  search_knowledge: true,
  learning: { name: "Profiles" },
  tools: [
    {
      name: "add",
      description: "Add two numbers",
      parameters: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
      requires_confirmation: true,
      toolkit: "Calculator",
    },
    {
      name: "multiply",
      description: "Multiply two numbers",
      parameters: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
      toolkit: "Calculator",
    },
  ],
  instructions: ["Be brief.", "Show your working."],
  markdown: true,
  telemetry: true,
  stream_events: false,
  compress_tool_results: false,
};

export const AGNO_TEAM_CONFIG = {
  id: "desk",
  name: "Desk",
  model: { name: "OpenAIChat", id: "gpt-4.1-mini", provider: "OpenAI" },
  members: [
    { type: "agent", agent_id: "research-helper" },
    { type: "agent", agent_id: "writer" },
  ],
  mode: "coordinate",
  max_iterations: 5,
  determine_input_for_members: false,
  instructions: "Ask the helper for facts and the writer for the wording.",
  add_history_to_context: true,
  num_history_runs: 2,
  show_members_responses: true,
  telemetry: true,
};

/** HumanReview.to_dict(): every field written, the unset ones as null. */
const review = (over: Record<string, unknown>) => ({
  requires_confirmation: false,
  confirmation_message: null,
  requires_user_input: false,
  user_input_message: null,
  user_input_schema: null,
  allow_multiple_selections: false,
  requires_output_review: false,
  output_review_message: null,
  requires_iteration_review: false,
  iteration_review_message: null,
  on_reject: "skip",
  on_error: "skip",
  max_retries: 3,
  timeout: null,
  on_timeout: "cancel",
  ...over,
});

export const AGNO_WORKFLOW_CONFIG = {
  name: "Brief",
  id: "brief",
  description: "Facts, then a draft a person approves.",
  overwrite_db_session_state: false,
  add_workflow_history_to_steps: false,
  num_history_runs: 3,
  stream_events: false,
  stream_executor_events: true,
  store_events: false,
  store_media: true,
  store_executor_outputs: true,
  debug_mode: false,
  telemetry: true,
  steps: [
    {
      type: "Step",
      name: "research",
      step_id: "s-research",
      description: "Works out the facts.",
      max_retries: 3,
      skip_on_failure: false,
      strict_input_validation: false,
      add_workflow_history: null,
      num_history_runs: 3,
      human_review: review({}),
      agent_id: "research-helper",
    },
    {
      type: "Step",
      name: "draft",
      step_id: "s-draft",
      description: null,
      max_retries: 3,
      skip_on_failure: false,
      strict_input_validation: false,
      add_workflow_history: null,
      num_history_runs: 3,
      human_review: review({ requires_confirmation: true, confirmation_message: "Draft it?", on_reject: "cancel" }),
      team_id: "desk",
    },
  ],
};
