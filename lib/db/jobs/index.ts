/** The durable job queue's data layer: agno_jobs rows (a durable background run's, or a job of another kind of the job catalog) and the statements that move them. */
export { JOB_STATUSES, FINISHED_JOB_STATUSES, spentAttempts, type JobStatus, type StoredJob } from "./job-row.ts";
export {
  enqueueRunJob,
  enqueueJob,
  plainJobInsert,
  plainJobsInsert,
  duplicateMismatch,
  jobByKey,
  type EnqueueResult,
  type EnqueueRunJobOptions,
  type JobInput,
  type PlainJobInput,
} from "./enqueue-job.ts";
export { claimJobs, unsafeOldestReadyJobAge, type ClaimJobsOptions, type ClaimedJob } from "./claim-jobs.ts";
export {
  heartbeat,
  heartbeatJobs,
  cancelRequestedJobs,
  completeJob,
  pauseJob,
  cancelJob,
  releaseJob,
  abandonJob,
  settleJobStatement,
  runFenceGuard,
  type HeldLease,
  type JobFence,
  type JobSettlement,
} from "./job-fence.ts";
export { requestJobCancel, heldJobCancelRequested } from "./job-cancel.ts";
export { writeUnheldRun, settleUnheldRun, runCancelRecorded, cancelUnheldRun, type UnheldWrite } from "./unheld-run.ts";
export { settleJobs, type JobSettlementItem } from "./settle-jobs.ts";
export { failJob, retryDelaySeconds, RETRY_DELAY_CAP_FACTOR, RETRY_JITTER, type FailJobOptions, type FailJobResult } from "./fail-job.ts";
export { unsafeSweepExpiredLeases, MAX_LEASE_LOSSES, type SweepOptions, type SweepResult } from "./sweep-expired-leases.ts";
export { getJob, listJobs, queueStats, type JobKindFilter, type JobSortField, type ListJobsOptions, type QueueStats } from "./list-jobs.ts";
export { requeueJob, FRESH_FAILURE_SECONDS, FreshFailureError, JobNotRequeueableError, type RequeueJobOptions } from "./requeue-job.ts";
export { unsafeDeleteFinishedJobs } from "./delete-finished-jobs.ts";
