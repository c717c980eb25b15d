import { EVAL_JOB_KIND } from "../evals/eval-job.ts";
import { KNOWLEDGE_JOB_KIND } from "../knowledge/ingestion/ingest-job.ts";
import { knowledgeRunExtension } from "../knowledge/tools/knowledge-search.ts";
import { learningExtension } from "../learning/extension.ts";
import { METRICS_REFRESH_JOB_KIND } from "../metrics/refresh-job.ts";
import { registerJobKinds } from "../queue/catalog.ts";
import { AGENT_RUN_JOB_KIND } from "../runs/jobs/agent-job.ts";
import { registerRunExtensions } from "../runtime/run-extensions.ts";
import { registerComponentSource } from "../runtime/component-source.ts";
import { storedComponentSource } from "../components/source.ts";
import { SCHEDULE_FIRE_JOB_KIND } from "../scheduler/fire-job.ts";
import { schedulesRunExtension } from "../scheduler/schedule-tools.ts";
import { dailyTraceRetentionTask, TRACE_RETENTION_JOB_KIND } from "../tracing/retention.ts";
import { ensureTracing } from "../tracing/setup.ts";
import type { Settings } from "../config/settings.ts";
import type { Db } from "../db/open-database.ts";
import { dailyMetricsRefreshTask } from "../metrics/start-refresh.ts";
import { approvalExpiryTask } from "../runtime/run-approvals.ts";
import type { SystemTask } from "../scheduler/scheduler.ts";

/**
 * Plugs the features into the layers below them, once per process (idempotent; the registries are
 * on `globalThis`): their job kinds into the queue's catalog, their tools and prompt context into
 * every agent run, Studio's stored components as the runtime's component source. Called by `getDatabase` (lib/server/app-context.ts, so every Next module graph
 * that serves a request), by `instrumentation.ts` and by the worker entry (workers/queue-worker.ts).
 * A new feature's kinds and extensions are added here.
 */
export function installFeatures(): void {
  registerJobKinds([AGENT_RUN_JOB_KIND, SCHEDULE_FIRE_JOB_KIND, METRICS_REFRESH_JOB_KIND, EVAL_JOB_KIND, KNOWLEDGE_JOB_KIND, TRACE_RETENTION_JOB_KIND]);
  registerRunExtensions([schedulesRunExtension, knowledgeRunExtension, learningExtension]);
  registerComponentSource(storedComponentSource);
}

/**
 * The system tasks the scheduler runs on every loop for a database (daily metrics refresh, trace
 * retention, approval expiry), and tracing's exporter bound to it: everything a process that
 * serves or works on `db` starts once it is open (lib/server/app-context.ts, the worker entry).
 */
export function startDatabaseServices(settings: Settings, db: Db): SystemTask[] {
  ensureTracing(settings, db);
  return [dailyMetricsRefreshTask(db, settings), dailyTraceRetentionTask(db, settings), approvalExpiryTask(db)];
}
