import { claimScope } from "@/lib/queue/catalog.ts";
import { JOB_CATALOG } from "@/lib/queue/job-catalog.ts";

/** The product catalog's claim scope (job types and subjects) for tests that call the data layer's job statements directly. */
export const RUN_JOBS = claimScope(JOB_CATALOG);

import { JobCatalog } from "@/lib/queue/catalog.ts";
import { runJobKind, type RunJobExecutor } from "@/lib/queue/run-jobs/run-job.ts";

/** A catalog whose run jobs are executed by `execute` (the product's run-job kind, another executor). */
export const runCatalog = (execute: RunJobExecutor): JobCatalog => new JobCatalog([runJobKind(() => execute)]);
