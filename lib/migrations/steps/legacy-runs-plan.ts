/** Where agno_runs holds one run of a session. */
export interface StoredPlace {
  readonly runId: string;
  readonly runIndex: number;
}

/** What one session needs so that agno_runs holds its legacy runs, in history order. */
export interface LegacyRunsPlan {
  /** Legacy runs with no row in this session, each with the run_index it is inserted at. */
  readonly inserts: { readonly run: Record<string, unknown>; readonly position: number; readonly runIndex: number }[];
  /** Rows whose run_index changes (`from` → `to`); every other row stays where it is. */
  readonly moves: { readonly runId: string; readonly from: number; readonly to: number }[];
  /** Legacy runs that already have a row in this session: the row wins, content and all. */
  readonly kept: number;
}

const runIdOf = (run: unknown): string | null => {
  if (!run || typeof run !== "object" || Array.isArray(run)) return null;
  const id = (run as { run_id?: unknown }).run_id;
  return id === undefined || id === null || id === "" ? null : String(id);
};

/**
 * The history order of a session is its legacy blob's runs, in blob order, then the runs written
 * only to agno_runs, in run_index order. The plan gives every run an index along that order, each
 * greater than the one before, keeping a row where it is whenever its index already fits:
 *
 * - a legacy run with no row is inserted at its blob position, or just after the run before it
 *   when that one already sits further on;
 * - a legacy run with a row keeps the row, at the row's index if it fits, else moved as above;
 * - a row of no legacy run keeps its index if it fits, else moves just after the run before it.
 *
 * So a healthy session (rows at their blob positions, newer runs after them, whatever was deleted
 * from both since) gets an empty plan, a session whose legacy runs were never copied gets them at
 * their blob positions with the newer rows moved after them in their order, and applying a plan
 * and planning again gives an empty plan. Blob entries without a run_id are not runs; a run_id
 * seen twice in one blob counts once, at its first position. Pure: no I/O.
 */
export function planLegacyRuns(legacy: readonly unknown[], rows: readonly StoredPlace[]): LegacyRunsPlan {
  const stored = new Map(rows.map((row) => [row.runId, row.runIndex]));
  const inserts: LegacyRunsPlan["inserts"][number][] = [];
  const moves: LegacyRunsPlan["moves"][number][] = [];
  const legacyIds = new Set<string>();
  let kept = 0;
  let next = Number.NEGATIVE_INFINITY; // the lowest index the next run in history order may take
  const place = (runId: string, from: number, wanted: number) => {
    const to = from >= next ? from : Math.max(wanted, next);
    if (to !== from) moves.push({ runId, from, to });
    next = to + 1;
  };
  legacy.forEach((run, position) => {
    const runId = runIdOf(run);
    if (runId === null || legacyIds.has(runId)) return;
    legacyIds.add(runId);
    const from = stored.get(runId);
    if (from === undefined) {
      const runIndex = Math.max(position, next);
      inserts.push({ run: run as Record<string, unknown>, position, runIndex });
      next = runIndex + 1;
    } else {
      kept++;
      place(runId, from, position);
    }
  });
  const newer = rows.filter((row) => !legacyIds.has(row.runId)).sort((a, b) => a.runIndex - b.runIndex);
  for (const row of newer) place(row.runId, row.runIndex, row.runIndex);
  return { inserts, moves, kept };
}
