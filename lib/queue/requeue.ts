import type { Db } from "../db/open-database.ts";
import type { DataScope } from "../db/scope.ts";
import { requeueJob as requeueStoredJob, type StoredJob } from "../db/jobs/index.ts";
import { clearCancel } from "../runtime/run-registry.ts";
import { JOB_CATALOG } from "./job-catalog.ts";

/**
 * Requeues a failed or cancelled job (admins; the API route and the dashboard action both call
 * this): its subject (a run job's run) goes back to waiting with it. With `clearCancellation`
 * the recorded intent is cleared, and so is this process's — only once the requeue took, so a
 * refused one keeps a live cancel (e.g. a running job's). Throws as requeueJob does
 * (PermissionError, NotFoundError, ConflictError).
 */
export async function requeueQueueJob(
  db: Db,
  { scope, id, force = false, clearCancellation = false }: { scope: DataScope; id: string; force?: boolean; clearCancellation?: boolean },
): Promise<StoredJob> {
  const job = await requeueStoredJob(db, { scope, id, force, clearCancellation, subjects: JOB_CATALOG.subjects });
  if (clearCancellation) clearCancel(id);
  return job;
}
