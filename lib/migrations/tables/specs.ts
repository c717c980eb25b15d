import { col, ix, type ColumnSpec, type IndexSpec, type TableSpec } from "../ddl.ts";

/**
 * The current (3.0.0) shape of every table, with Agno's default names. prisma/schema.prisma models
 * the same tables; the drift test keeps the two in step.
 */
export const SESSIONS: TableSpec = {
  name: "agno_sessions",
  columns: [
    col.id("session_id"),
    col.text("session_type", true),
    col.text("agent_id"),
    col.text("team_id"),
    col.text("workflow_id"),
    col.text("user_id"),
    col.json("session_data"),
    col.json("agent_data"),
    col.json("team_data"),
    col.json("workflow_data"),
    col.json("metadata"),
    col.json("summary"),
    col.bigint("created_at", true),
    col.bigint("updated_at"),
  ],
  indexes: [ix("agno_sessions", "session_type"), ix("agno_sessions", "created_at"), ix("agno_sessions", "user_id", "updated_at"), ix("agno_sessions", "updated_at")],
};

export const RUNS: TableSpec = {
  name: "agno_runs",
  columns: [
    col.id("run_id"),
    {
      name: "session_id",
      type: "text",
      notNull: true,
      references: { table: "agno_sessions", column: "session_id", onDelete: "CASCADE" },
    },
    col.text("run_type", true),
    col.text("agent_id"),
    col.text("team_id"),
    col.text("workflow_id"),
    col.text("user_id"),
    col.text("parent_run_id"),
    col.text("status"),
    col.bigint("run_index", true),
    col.json("run_data", true),
    col.bigint("created_at", true),
    col.bigint("updated_at"),
  ],
  uniques: [{ name: "uq_agno_runs_session_id_run_index", columns: ["session_id", "run_index"] }],
  indexes: [
    ix("agno_runs", "run_type"),
    ix("agno_runs", "agent_id"),
    ix("agno_runs", "team_id"),
    ix("agno_runs", "workflow_id"),
    ix("agno_runs", "user_id"),
    ix("agno_runs", "status"),
    ix("agno_runs", "created_at"),
    ix("agno_runs", "user_id", "created_at"),
    ix("agno_runs", "status", "created_at"),
  ],
};

export const MEMORIES: TableSpec = {
  name: "agno_memories",
  columns: [
    col.id("memory_id"),
    col.json("memory", true),
    col.text("feedback"),
    col.text("input"),
    col.text("agent_id"),
    col.text("team_id"),
    col.text("user_id"),
    col.json("topics"),
    col.bigint("created_at", true),
    col.bigint("updated_at"),
  ],
  indexes: [ix("agno_memories", "user_id"), ix("agno_memories", "created_at"), ix("agno_memories", "updated_at")],
};

const METRIC_COUNTS = ["agent_runs_count", "team_runs_count", "workflow_runs_count", "agent_sessions_count", "team_sessions_count", "workflow_sessions_count", "users_count"].map((name) => ({
  name,
  type: "bigint" as const,
  notNull: true,
  default: "0",
}));

/** Agentry's cost figures of a metrics row (lib/db/metrics): nullable, so Agno still writes rows, and Agno neither reads nor writes it. */
export const METRICS_COST_COLUMN: ColumnSpec = { name: "cost_metrics", type: "json" };

export const METRICS: TableSpec = {
  name: "agno_metrics",
  columns: [
    col.id("id"),
    { name: "user_id", type: "text", notNull: true, default: "''" },
    ...METRIC_COUNTS,
    col.json("token_metrics", true),
    col.json("model_metrics", true),
    { name: "date", type: "date", notNull: true },
    col.text("aggregation_period", true),
    col.bigint("created_at", true),
    col.bigint("updated_at"),
    { name: "completed", type: "bool", notNull: true, default: "false" },
    METRICS_COST_COLUMN,
  ],
  uniques: [{ name: "agno_metrics_uq_metrics_user_date_period", columns: ["user_id", "date", "aggregation_period"] }],
  indexes: [ix("agno_metrics", "date"), ix("agno_metrics", "user_id")],
};

/**
 * Agentry's state of an eval run (lib/db/evals): `run_status` (PENDING, RUNNING, COMPLETED, ERROR,
 * CANCELLED; NULL on a row Agno wrote, which is complete) and `run_details` (progress, the agent
 * runs it made, the judge, an error). Nullable, so Agno still writes rows and never reads them.
 */
export const EVAL_RUN_STATE_COLUMNS: readonly ColumnSpec[] = [
  { name: "run_status", type: "text" },
  { name: "run_details", type: "json" },
];

export const EVAL_RUNS: TableSpec = {
  name: "agno_eval_runs",
  columns: [
    col.id("run_id"),
    col.text("user_id"),
    col.text("eval_type", true),
    col.json("eval_data", true),
    col.json("eval_input", true),
    col.text("name"),
    col.text("agent_id"),
    col.text("team_id"),
    col.text("workflow_id"),
    col.text("model_id"),
    col.text("model_provider"),
    col.text("evaluated_component_name"),
    col.bigint("created_at", true),
    col.bigint("updated_at"),
    ...EVAL_RUN_STATE_COLUMNS,
  ],
  indexes: [ix("agno_eval_runs", "created_at"), ix("agno_eval_runs", "user_id")],
};

export const KNOWLEDGE: TableSpec = {
  name: "agno_knowledge",
  columns: [
    col.id("id"),
    col.text("user_id"),
    col.text("name", true),
    col.text("description", true),
    col.json("metadata"),
    col.text("type"),
    col.bigint("size"),
    col.text("linked_to"),
    col.bigint("access_count"),
    col.text("status"),
    col.text("status_message"),
    col.bigint("created_at"),
    col.bigint("updated_at"),
    col.text("external_id"),
  ],
  indexes: [ix("agno_knowledge", "user_id", "linked_to")],
};

/** The eight provenance columns the v3.0.0 schedules step adds. */
export const SCHEDULE_PROVENANCE = ["managed_by", "target_type", "target_id", "created_by_run_id", "created_by_session_id", "updated_by_run_id", "updated_by_session_id", "disabled_reason"] as const;

/**
 * Agentry's own nullable schedule columns (null = the default, so Agno can still write rows):
 * misfire_policy (fire_once | skip | catch_up), catch_up_limit (default 10), allow_overlap
 * (default false), jitter_seconds (default 0).
 */
export const SCHEDULE_AGENTRY_COLUMNS: ColumnSpec[] = [
  { name: "misfire_policy", type: "text" },
  { name: "catch_up_limit", type: "bigint" },
  { name: "allow_overlap", type: "bool" },
  { name: "jitter_seconds", type: "bigint" },
];

/** The slot a schedule run fired for (epoch seconds; null for a manual trigger or a row Agno wrote). */
export const SCHEDULE_RUN_SLOT: ColumnSpec = { name: "scheduled_for", type: "bigint" };
export const SCHEDULE_RUN_SLOT_INDEX: IndexSpec = { name: "idx_agno_schedule_runs_schedule_id_scheduled_for", columns: ["schedule_id", "scheduled_for"] };

export const SCHEDULE_V3_INDEXES = [
  ix("agno_schedules", "user_id", "enabled", "next_run_at"),
  ix("agno_schedules", "managed_by"),
  ix("agno_schedules", "target_id"),
  { name: "uq_agno_schedules_user_id_name", columns: ["user_id", "name"], unique: true, where: "user_id IS NOT NULL" },
  { name: "uq_agno_schedules_name_shared", columns: ["name"], unique: true, where: "user_id IS NULL" },
];

export const SCHEDULES: TableSpec = {
  name: "agno_schedules",
  columns: [
    col.id("id"),
    col.text("user_id"),
    col.text("name", true),
    col.text("description"),
    col.text("method"),
    col.text("endpoint"),
    col.json("payload"),
    col.text("cron_expr"),
    col.text("timezone"),
    col.bigint("timeout_seconds"),
    col.bigint("max_retries"),
    col.bigint("retry_delay_seconds"),
    col.bool("enabled"),
    col.bigint("next_run_at"),
    col.text("locked_by"),
    col.bigint("locked_at"),
    col.bigint("created_at"),
    col.bigint("updated_at"),
    ...SCHEDULE_PROVENANCE.map((name) => col.text(name)),
    ...SCHEDULE_AGENTRY_COLUMNS,
  ],
  indexes: [ix("agno_schedules", "name"), ix("agno_schedules", "next_run_at"), ix("agno_schedules", "created_at"), ix("agno_schedules", "enabled", "next_run_at"), ...SCHEDULE_V3_INDEXES],
};

export const SCHEDULE_RUNS: TableSpec = {
  name: "agno_schedule_runs",
  columns: [
    col.id("id"),
    {
      name: "schedule_id",
      type: "text",
      notNull: true,
      references: { table: "agno_schedules", column: "id", onDelete: "CASCADE" },
    },
    col.text("user_id"),
    col.bigint("attempt"),
    col.bigint("triggered_at"),
    col.bigint("completed_at"),
    col.text("status"),
    col.bigint("status_code"),
    col.text("run_id"),
    col.text("session_id"),
    col.text("error"),
    col.json("input"),
    col.json("output"),
    col.json("requirements"),
    col.bigint("created_at"),
    SCHEDULE_RUN_SLOT,
  ],
  indexes: [ix("agno_schedule_runs", "schedule_id"), ix("agno_schedule_runs", "status"), ix("agno_schedule_runs", "created_at"), ix("agno_schedule_runs", "user_id"), SCHEDULE_RUN_SLOT_INDEX],
};

/** Leases a job lost because its worker died or shut down; they do not spend attempts. */
export const JOB_LEASE_LOSSES: ColumnSpec = { name: "lease_losses", type: "bigint", notNull: true, default: "0" };

/** When a cancel was requested (epoch seconds): the truth the executing worker reads at each heartbeat. */
export const JOB_CANCEL_REQUESTED_AT: ColumnSpec = { name: "cancel_requested_at", type: "bigint" };

/**
 * Idempotency keys of owner-less jobs (no JWT identity): the (user_id, idempotency_key) key
 * treats NULL owners as distinct, so without this index they would never dedupe.
 */
export const JOB_SHARED_IDEMPOTENCY_INDEX: IndexSpec = {
  name: "uq_agno_jobs_idempotency_key_shared",
  columns: ["idempotency_key"],
  unique: true,
  where: "user_id IS NULL AND idempotency_key IS NOT NULL",
};

/**
 * The claim's scan: queued jobs in the order workers take them, so a claim reads the first few
 * ready rows instead of sorting the whole queue.
 */
export const JOB_READY_INDEX: IndexSpec = { name: "idx_agno_jobs_ready", columns: ["available_at", "created_at"], where: "status = 'queued'" };

/** A session's live jobs (one runs at a time): the claim asks whether one is running or queued ahead. */
export const JOB_LIVE_SESSION_INDEX: IndexSpec = { name: "idx_agno_jobs_live_session", columns: ["session_id", "created_at"], where: "status IN ('queued', 'running')" };

export const JOBS: TableSpec = {
  name: "agno_jobs",
  columns: [
    col.id("id"),
    col.text("component_type", true),
    col.text("job_type", true),
    col.text("deployment_id"),
    col.text("component_id", true),
    col.text("session_id"),
    col.text("user_id"),
    col.json("payload"),
    col.text("status", true),
    { name: "attempt", type: "bigint", notNull: true, default: "0" },
    JOB_LEASE_LOSSES,
    JOB_CANCEL_REQUESTED_AT,
    { name: "max_attempts", type: "bigint", notNull: true, default: "1" },
    col.text("idempotency_key"),
    col.bigint("available_at", true),
    col.text("locked_by"),
    col.bigint("locked_at"),
    col.text("error"),
    col.bigint("created_at", true),
    col.bigint("updated_at"),
    col.bigint("completed_at"),
  ],
  indexes: [
    ix("agno_jobs", "status", "available_at"),
    ix("agno_jobs", "user_id"),
    ix("agno_jobs", "session_id"),
    {
      name: "uq_agno_jobs_user_id_idempotency_key",
      columns: ["user_id", "idempotency_key"],
      unique: true,
      where: "idempotency_key IS NOT NULL",
    },
    JOB_SHARED_IDEMPOTENCY_INDEX,
    JOB_READY_INDEX,
    JOB_LIVE_SESSION_INDEX,
  ],
};

export const APPROVALS: TableSpec = {
  name: "agno_approvals",
  columns: [
    col.id("id"),
    col.text("run_id", true),
    col.text("session_id", true),
    col.text("status"),
    col.text("source_type"),
    col.text("approval_type"),
    col.text("pause_type"),
    col.text("tool_name"),
    col.json("tool_args"),
    col.bigint("expires_at"),
    col.text("agent_id"),
    col.text("team_id"),
    col.text("workflow_id"),
    col.text("user_id"),
    col.text("schedule_id"),
    col.text("schedule_run_id"),
    col.text("source_name"),
    col.json("requirements"),
    col.json("context"),
    col.json("resolution_data"),
    col.text("resolved_by"),
    col.bigint("resolved_at"),
    col.bigint("created_at"),
    col.bigint("updated_at"),
    col.text("run_status"),
  ],
  indexes: [ix("agno_approvals", "run_id"), ix("agno_approvals", "session_id"), ix("agno_approvals", "status"), ix("agno_approvals", "user_id"), ix("agno_approvals", "run_status")],
};

export const LEARNINGS: TableSpec = {
  name: "agno_learnings",
  columns: [
    col.id("learning_id"),
    col.text("learning_type", true),
    col.text("namespace"),
    col.text("user_id"),
    col.text("agent_id"),
    col.text("team_id"),
    col.text("workflow_id"),
    col.text("session_id"),
    col.text("entity_id"),
    col.text("entity_type"),
    col.json("content", true),
    col.json("metadata"),
    col.bigint("created_at", true),
    col.bigint("updated_at"),
  ],
  indexes: [ix("agno_learnings", "learning_type"), ix("agno_learnings", "namespace"), ix("agno_learnings", "user_id"), ix("agno_learnings", "entity_id")],
};

export const SERVICE_ACCOUNTS: TableSpec = {
  name: "agno_service_accounts",
  columns: [
    col.id("id"),
    col.text("name", true),
    col.text("user_id"),
    col.text("token_hash", true),
    col.text("token_prefix"),
    col.json("scopes"),
    col.bigint("created_at", true),
    col.bigint("expires_at"),
    col.bigint("last_used_at"),
    col.bigint("revoked_at"),
    col.text("created_by"),
  ],
  uniques: [{ name: "agno_service_accounts_token_hash_key", columns: ["token_hash"] }],
  indexes: [{ name: "uq_agno_service_accounts_name_active", columns: ["name"], unique: true, where: "revoked_at IS NULL" }],
};

export const SCHEMA_VERSIONS: TableSpec = {
  name: "agno_schema_versions",
  columns: [col.id("table_name"), col.text("version", true), col.text("created_at", true), col.text("updated_at")],
  indexes: [ix("agno_schema_versions", "created_at")],
};

/**
 * Agno's traces (lib/db/traces): one row per trace, merged from every export batch of its spans.
 * Times are UTC ISO-8601 strings (compared as strings), `duration_ms` milliseconds. Agno's columns
 * and indexes, plus two indexes of Agentry's for the paged lists.
 */
export const TRACES: TableSpec = {
  name: "agno_traces",
  columns: [
    col.id("trace_id"),
    col.text("name", true),
    col.text("status", true),
    col.text("start_time", true),
    col.text("end_time", true),
    col.bigint("duration_ms", true),
    col.text("run_id"),
    col.text("session_id"),
    col.text("user_id"),
    col.text("agent_id"),
    col.text("team_id"),
    col.text("workflow_id"),
    col.text("created_at", true),
  ],
  indexes: [
    ...["status", "start_time", "run_id", "session_id", "user_id", "agent_id", "team_id", "workflow_id", "created_at"].map((column) => ix("agno_traces", column)),
    // Agentry's: the lists' page of ids in their order, read from the index alone (everyone's, and one owner's).
    ix("agno_traces", "start_time", "trace_id"),
    ix("agno_traces", "user_id", "start_time", "trace_id"),
    // Agentry's: the distinct names a name search matches, read by skipping through the index (lib/db/traces/traces.ts).
    ix("agno_traces", "name"),
  ],
};

/** Agno's spans of a trace. The foreign key is Agno's plain one (no cascade): deletes remove spans first. */
export const SPANS: TableSpec = {
  name: "agno_spans",
  columns: [
    col.id("span_id"),
    { name: "trace_id", type: "text", notNull: true, references: { table: "agno_traces", column: "trace_id" } },
    col.text("parent_span_id"),
    col.text("name", true),
    col.text("span_kind", true),
    col.text("status_code", true),
    col.text("status_message"),
    col.text("start_time", true),
    col.text("end_time", true),
    col.bigint("duration_ms", true),
    col.json("attributes"),
    col.text("created_at", true),
  ],
  indexes: ["trace_id", "parent_span_id", "start_time", "created_at"].map((column) => ix("agno_spans", column)),
};

/**
 * Agno v3's stored components (Studio's agents, teams and workflows): one row per component, its
 * owner in `user_id` (null: shared), `current_version` the live published version (null: draft
 * only), `deleted_at` set while archived. Times are epoch seconds.
 */
/** An index whose `created_at` is kept newest first. */
const newestFirst = (index: IndexSpec): IndexSpec => ({ ...index, descending: ["created_at"] });

export const COMPONENTS: TableSpec = {
  name: "agno_components",
  columns: [
    col.id("component_id"),
    col.text("component_type", true),
    col.text("name"),
    col.text("user_id"),
    col.text("description"),
    col.bigint("current_version"),
    col.json("metadata"),
    col.bigint("created_at", true),
    col.bigint("updated_at"),
    col.bigint("deleted_at"),
  ],
  indexes: [
    ...["component_type", "name", "user_id", "current_version", "created_at"].map((column) => ix("agno_components", column)),
    // Agentry's: GET /components reads its page in (created_at DESC, component_id) order from these
    // (everyone's, one type's, one owner's) instead of sorting the table.
    newestFirst(ix("agno_components", "created_at", "component_id")),
    newestFirst(ix("agno_components", "component_type", "created_at", "component_id")),
    newestFirst(ix("agno_components", "user_id", "created_at", "component_id")),
  ],
};

/**
 * A component's config versions: `version` counts up per component and is never reused (a deleted
 * draft stays as a `_deleted` tombstone); `stage` `draft` (mutable) or `published` (immutable).
 */
export const COMPONENT_CONFIGS: TableSpec = {
  name: "agno_component_configs",
  columns: [
    { name: "component_id", type: "text", notNull: true, references: { table: "agno_components", column: "component_id" } },
    col.bigint("version", true),
    col.text("label"),
    { name: "stage", type: "text", notNull: true, default: "'draft'" },
    col.json("config", true),
    col.text("notes"),
    col.bigint("created_at", true),
    col.bigint("updated_at"),
    col.bigint("deleted_at"),
  ],
  primaryKey: ["component_id", "version"],
  indexes: [ix("agno_component_configs", "stage"), ix("agno_component_configs", "created_at")],
};

/**
 * What a config version pins: a team's members (`member`, key `member_<i>`) and a workflow's step
 * agents, teams and workflows (`step_agent`, `step_team`, `step_workflow`, key the step's id or
 * name). Plain foreign keys to the parent version and the child component.
 */
export const COMPONENT_LINKS: TableSpec = {
  name: "agno_component_links",
  columns: [
    col.text("parent_component_id", true),
    col.bigint("parent_version", true),
    col.text("link_kind", true),
    col.text("link_key", true),
    { name: "child_component_id", type: "text", notNull: true, references: { table: "agno_components", column: "component_id" } },
    col.bigint("child_version"),
    col.bigint("position", true),
    col.json("meta"),
    col.bigint("created_at"),
    col.bigint("updated_at"),
  ],
  primaryKey: ["parent_component_id", "parent_version", "link_kind", "link_key"],
  foreignKeys: [{ columns: ["parent_component_id", "parent_version"], table: "agno_component_configs", references: ["component_id", "version"] }],
  indexes: [
    ix("agno_component_links", "link_kind"),
    ix("agno_component_links", "created_at"),
    // Agentry's: who pins a component (archive, restore and draft deletes ask).
    ix("agno_component_links", "child_component_id", "child_version"),
  ],
};
