import type { Db } from "../db/open-database.ts";
import type { DataScope } from "../db/scope.ts";
import { requeueJob as requeueStoredJob, type StoredJob } from "../db/jobs/index.ts";
import { clearCancel } from "../live-runs/run-registry.ts";
import { jobCatalog } from "./catalog.ts";

/**
 * Requeues a failed or cancelled job (admins; the API route and the dashboard action both call
 * this): its subject (a run job's run) goes back to waiting with it. With `clearCancellation`
 * the recorded intent is cleared, and so is this process's — only once the requeue took, so a
 * refused one keeps a live cancel (e.g. a running job's); without it a cancelled job is requeued
 * with its intent and cancelled again when a worker starts it, as in Agno. Throws as requeueJob
 * does (PermissionError, NotFoundError, JobNotRequeueableError, FreshFailureError — ConflictErrors).
 */
export async function requeueQueueJob(
  db: Db,
  { scope, id, force = false, clearCancellation = false }: { scope: DataScope; id: string; force?: boolean; clearCancellation?: boolean },
): Promise<StoredJob> {
  const job = await requeueStoredJob(db, { scope, id, force, clearCancellation, subjects: jobCatalog().subjects });
  if (clearCancellation) clearCancel(id);
  return job;
}
