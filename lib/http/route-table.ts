import { AGENT_ROUTES } from "./routes/agents.ts";
import { TEAM_ROUTES } from "./routes/teams.ts";
import { WORKFLOW_ROUTES } from "./routes/workflows.ts";
import { config, health, info, landing } from "./routes/core.ts";
import { migrateAll, migrateOne } from "./routes/databases.ts";
import { DISABLED_FEATURES } from "./routes/disabled-features.ts";
import { docsRoutes } from "./routes/docs.ts";
import { EVAL_ROUTES } from "./routes/evals.ts";
import { KNOWLEDGE_ROUTES } from "./routes/knowledge.ts";
import { LEARNING_ROUTES } from "./routes/learnings.ts";
import { MEMORY_ROUTES } from "./routes/memories.ts";
import { MEMORY_INSIGHT_ROUTES } from "./routes/memory-insights.ts";
import { METRICS_ROUTES } from "./routes/metrics.ts";
import { QUEUE_ROUTES } from "./routes/queue.ts";
import { SESSION_RUN_ROUTES } from "./routes/session-runs.ts";
import { SESSION_ROUTES } from "./routes/sessions.ts";
import { SERVICE_ACCOUNT_ROUTES } from "./routes/service-accounts.ts";
import { SCHEDULE_ROUTES } from "./routes/schedules.ts";
import { APPROVAL_ROUTES } from "./routes/approvals.ts";
import { REGISTRY_ROUTES } from "./routes/registry.ts";
import { TRACE_ROUTES } from "./routes/traces.ts";
import { COMPONENT_ROUTES } from "./routes/components.ts";
import { matchTemplate } from "./path-template.ts";
import type { AnyRoute } from "./route.ts";

/**
 * Every API route, in one table: the dispatcher serves it, /openapi.json describes it, and the
 * permission test walks it. Each template has an app/(api)/…/route.ts that hands requests to it.
 */
export const ROUTES: readonly AnyRoute[] = [
  landing,
  health,
  info,
  config,
  migrateAll,
  migrateOne,
  ...AGENT_ROUTES,
  ...TEAM_ROUTES,
  ...WORKFLOW_ROUTES,
  ...SESSION_ROUTES,
  ...SESSION_RUN_ROUTES,
  ...MEMORY_ROUTES,
  ...MEMORY_INSIGHT_ROUTES,
  ...LEARNING_ROUTES,
  ...METRICS_ROUTES,
  ...SERVICE_ACCOUNT_ROUTES,
  ...QUEUE_ROUTES,
  ...SCHEDULE_ROUTES,
  ...APPROVAL_ROUTES,
  ...EVAL_ROUTES,
  ...KNOWLEDGE_ROUTES,
  ...TRACE_ROUTES,
  ...COMPONENT_ROUTES,
  ...REGISTRY_ROUTES,
  ...docsRoutes(() => ROUTES),
  // Catch-alls last: templateForPath keeps this order among templates with as many parameters.
  ...DISABLED_FEATURES,
];

export function routesFor(template: string): AnyRoute[] {
  return ROUTES.filter((route) => route.path === template);
}

/** Every path template, literal segments before parameters (`/databases/all/…` before `{db_id}`). */
const TEMPLATES = [...new Set(ROUTES.map((r) => r.path))].sort((a, b) => (a.match(/\{/g)?.length ?? 0) - (b.match(/\{/g)?.length ?? 0));

/**
 * The template that serves a pathname, as Next's file-system router picks it — for callers that
 * dispatch without Next (tests, the benchmarks' node:http adapter). Null when none matches.
 */
export function templateForPath(pathname: string): string | null {
  return TEMPLATES.find((t) => matchTemplate(t, pathname) !== null) ?? null;
}
