import { EVAL_JOB_KIND } from "../evals/eval-job.ts";
import { KNOWLEDGE_JOB_KIND } from "../knowledge/ingest-job.ts";
import { METRICS_REFRESH_JOB_KIND } from "../metrics/refresh-job.ts";
import { SCHEDULE_FIRE_JOB_KIND } from "../scheduler/fire-job.ts";
import { AGENT_RUN_JOB_KIND } from "./run-jobs/agent-job.ts";
import { JobCatalog } from "./catalog.ts";

/**
 * The product's job catalog: the kinds every worker (embedded or `npm run worker`) claims and
 * runs. A kind is added here once (./catalog.ts says what it declares).
 */
export const JOB_CATALOG = new JobCatalog([AGENT_RUN_JOB_KIND, SCHEDULE_FIRE_JOB_KIND, METRICS_REFRESH_JOB_KIND, EVAL_JOB_KIND, KNOWLEDGE_JOB_KIND]);
