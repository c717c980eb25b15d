import { agentryTableStep } from "./steps/agentry-table.ts";
import { approvalsSteps } from "./steps/approvals.ts";
import { learningsSteps } from "./steps/learnings.ts";
import { memoriesSteps } from "./steps/memories.ts";
import { metricsSteps } from "./steps/metrics.ts";
import { metricsCostStep } from "./steps/metrics-cost.ts";
import { evalRunStateStep } from "./steps/eval-run-state.ts";
import { jobsSteps } from "./steps/jobs.ts";
import { jsonbStep } from "./steps/jsonb.ts";
import { ownerColumnStep } from "./steps/owner-column.ts";
import { repairLegacyRuns } from "./steps/legacy-runs-repair.ts";
import { runsSteps } from "./steps/runs.ts";
import { scheduleRunsSteps, schedulesSteps } from "./steps/schedules.ts";
import { sessionsSteps } from "./steps/sessions.ts";
import { traceTableStep } from "./steps/trace-tables.ts";
import { componentTableStep } from "./steps/component-tables.ts";
import * as dashboardAuth from "./tables/dashboard-auth.ts";
import { KNOWLEDGE_UPLOADS } from "./tables/knowledge-uploads.ts";
import * as specs from "./tables/specs.ts";
import { TRACE_DROPS } from "./tables/trace-drops.ts";
import type { TableMigrations } from "./types.ts";

/**
 * Every table and its versioned steps, in the order they are migrated: parents before the tables
 * that reference them (sessions before runs, schedules before schedule runs).
 */
const DECLARED: readonly TableMigrations[] = [
  { tableType: "sessions", spec: specs.SESSIONS, steps: sessionsSteps },
  { tableType: "runs", spec: specs.RUNS, steps: runsSteps, afterCreate: async (ctx) => void (await repairLegacyRuns(ctx)) },
  { tableType: "memories", spec: specs.MEMORIES, steps: memoriesSteps },
  { tableType: "metrics", spec: specs.METRICS, steps: [...metricsSteps, metricsCostStep] },
  { tableType: "evals", spec: specs.EVAL_RUNS, steps: [ownerColumnStep("agno_eval_runs"), evalRunStateStep] },
  { tableType: "knowledge", spec: specs.KNOWLEDGE, steps: [ownerColumnStep("agno_knowledge", ["user_id", "linked_to"])] },
  { tableType: "schedules", spec: specs.SCHEDULES, steps: schedulesSteps },
  { tableType: "schedule_runs", spec: specs.SCHEDULE_RUNS, steps: scheduleRunsSteps },
  { tableType: "jobs", spec: specs.JOBS, steps: jobsSteps },
  { tableType: "approvals", spec: specs.APPROVALS, steps: approvalsSteps },
  { tableType: "learnings", spec: specs.LEARNINGS, steps: learningsSteps },
  { tableType: "service_accounts", spec: specs.SERVICE_ACCOUNTS, steps: [] },
  // Traces before spans (agno_spans.trace_id references agno_traces).
  { tableType: "traces", spec: specs.TRACES, steps: [traceTableStep(specs.TRACES)] },
  { tableType: "spans", spec: specs.SPANS, steps: [traceTableStep(specs.SPANS)] },
  // Components before their configs, configs before the links (each references the one before).
  { tableType: "components", spec: specs.COMPONENTS, steps: [componentTableStep(specs.COMPONENTS)] },
  { tableType: "component_configs", spec: specs.COMPONENT_CONFIGS, steps: [componentTableStep(specs.COMPONENT_CONFIGS)] },
  { tableType: "component_links", spec: specs.COMPONENT_LINKS, steps: [componentTableStep(specs.COMPONENT_LINKS)] },
  // Agentry's own: dashboard sign-in.
  { tableType: "users", spec: dashboardAuth.USERS, steps: [agentryTableStep(dashboardAuth.USERS)] },
  { tableType: "user_tokens", spec: dashboardAuth.USER_TOKENS, steps: [agentryTableStep(dashboardAuth.USER_TOKENS)] },
  { tableType: "login_attempts", spec: dashboardAuth.LOGIN_ATTEMPTS, steps: [agentryTableStep(dashboardAuth.LOGIN_ATTEMPTS)] },
  { tableType: "secrets", spec: dashboardAuth.SECRETS, steps: [agentryTableStep(dashboardAuth.SECRETS)] },
  { tableType: "revoked_sessions", spec: dashboardAuth.REVOKED_SESSIONS, steps: [agentryTableStep(dashboardAuth.REVOKED_SESSIONS)] },
  // Agentry's own: uploads waiting for knowledge ingestion.
  { tableType: "knowledge_uploads", spec: KNOWLEDGE_UPLOADS, steps: [agentryTableStep(KNOWLEDGE_UPLOADS)] },
  // Agentry's own: spans the tracing exporter dropped, per process and day.
  { tableType: "trace_drops", spec: TRACE_DROPS, steps: [agentryTableStep(TRACE_DROPS)] },
];

/**
 * Every table with JSON columns also gets a last 3.0.0 step turning Agno 2.0's PostgreSQL JSON
 * columns into JSONB (what the model declares and lib/db's JSON operators expect).
 */
export const TABLES: readonly TableMigrations[] = DECLARED.map((table) => (table.spec.columns.some((c) => c.type === "json") ? { ...table, steps: [...table.steps, jsonbStep(table.spec)] } : table));

export const TABLE_TYPES = TABLES.map((t) => t.tableType);
