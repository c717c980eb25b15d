import type { Db } from "../open-database.ts";
import type { Statement } from "../sql.ts";

/**
 * How a job's subject follows its job when the queue — not the job's executor — moves the job:
 * - `waiting`: the job is queued again, after a lost lease or a release (`after: "claim"`: the
 *   subject was started by the claim) or by an admin's requeue of an ended job (`after: "end"`:
 *   its recorded error is dropped);
 * - `failed`: the job failed without its executor's word (given up, lost its worker too often);
 * - `cancelled`: the job was cancelled while no executor ended it (queued, paused, or taken
 *   back with a cancel recorded).
 */
export type SubjectChange = { to: "waiting"; after: "claim" | "end" } | { to: "failed"; reason: string; errorType: string } | { to: "cancelled"; reason: string };

/** A condition on the job row `agno_jobs j` (its id bound first) that makes a subject change right. */
export interface JobCondition {
  clause: string;
  params: readonly unknown[];
}

/**
 * The row a kind of job carries along — a run job's agno_runs row — written in the same
 * statements as the job row, so the two never disagree. A job kind that has one declares it in
 * the job catalog (lib/queue/catalog.ts); every statement of this folder that moves a job takes
 * the subjects it is to move along (`SubjectBinding`), and a job of a kind with none moves alone.
 * Subject rows are keyed by the job's id.
 */
export interface JobSubject {
  /** What the subject is, for messages ("run"). */
  readonly name: string;
  /**
   * PostgreSQL: a data-modifying CTE body that starts the subjects of the jobs `claimedIds` (SQL
   * yielding their ids) names, run inside the claim statement; its params follow the claim's.
   */
  claimedCte(claimedIds: string, now: number): { text: string; params: unknown[] };
  /** SQLite: the statement that starts the subjects of the claimed jobs, run right after the claim. */
  claimedStatement(ids: readonly string[], now: number): Statement;
  /**
   * PostgreSQL: the CTE body that writes each settled job's subject as its executor ended it. It
   * reads `v (id, subject_status, subject_data)` — the values of the settlement — joined with
   * `settled (id, session_id)` (the jobs whose fence held) restricted to `settledIds` (SQL).
   */
  settledCte(settledIds: string, now: number): { text: string; params: unknown[] };
  /** SQLite: the statement that writes one job's subject as its executor ended it, guarded by `guard` (the job's fence). */
  settledStatement(jobId: string, subject: SubjectValue, guard: JobCondition, now: number): Statement;
  /** The statement that moves one job's subject along with its job, applied only while `job` holds. */
  follow(db: Db, jobId: string, change: SubjectChange, job: JobCondition, now: number): Statement;
}

/** A subject row as the executor ended it (a run: its final status and run_data). */
export interface SubjectValue {
  status: string;
  data: Record<string, unknown>;
}

/** The subject of the jobs of some job types. */
export interface SubjectBinding {
  readonly jobTypes: readonly string[];
  readonly subject: JobSubject;
}

/** The subject of a job of this type among `subjects`, or null (the job moves alone). */
export const subjectOf = (subjects: readonly SubjectBinding[], jobType: string): JobSubject | null => subjects.find((b) => b.jobTypes.includes(jobType))?.subject ?? null;

/** The follow statement of `jobType`'s subject, or none: spread it into a batch and count with `followed`. */
export function followStatements(db: Db, subjects: readonly SubjectBinding[], jobType: string, jobId: string, change: SubjectChange, job: JobCondition, now: number): Statement[] {
  const subject = subjectOf(subjects, jobType);
  return subject ? [subject.follow(db, jobId, change, job, now)] : [];
}

const JOB_TYPE = /^[a-z][a-z0-9_]{0,63}$/;

/** Whether a job type may be named in SQL as a literal: lowercase letters, digits and underscores, starting with a letter. */
export const isJobTypeName = (jobType: string): boolean => JOB_TYPE.test(jobType);

/**
 * `column IN ('a', 'b')` over job types, as literals (they come from the job catalog, never from
 * a request, and are checked here): a subject's CTE can embed it without placing parameters.
 */
export function jobTypeLiterals(column: string, jobTypes: readonly string[]): string {
  for (const type of jobTypes) if (!isJobTypeName(type)) throw new Error(`Job type ${JSON.stringify(type)} is not a valid job type name`);
  return `${column} IN (${jobTypes.map((t) => `'${t}'`).join(", ")})`;
}
