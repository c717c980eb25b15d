import { claimScope, JobCatalog, jobCatalog } from "@/lib/queue/catalog.ts";
import { runJobKind, type RunJobExecutor } from "@/lib/runs/jobs/run-job.ts";
import { installFeatures } from "@/lib/server/features.ts";

installFeatures();

/** The product catalog's claim scope (job types and subjects) for tests that call the data layer's job statements directly. */
export const RUN_JOBS = claimScope(jobCatalog());

/** A catalog whose run jobs are executed by `execute` (the product's run-job kind, another executor). */
export const runCatalog = (execute: RunJobExecutor): JobCatalog => new JobCatalog([runJobKind(() => execute)]);
