import { PaginationError } from "../../errors/domain-errors.ts";

/**
 * Loads one page of a dashboard list; a cursor the server cannot read (edited, or from another
 * sort) or one that leads nowhere any more becomes a problem to show and the first page
 * (`restarted`), never an error page or a false "no rows yet".
 */
export async function loadList<T extends { rows: unknown[] }>(
  load: (cursor: { after?: string; before?: string }) => Promise<T>,
  cursor: { after?: string; before?: string },
  problems: string[],
): Promise<T & { restarted: boolean }> {
  try {
    const page = await load(cursor);
    if (page.rows.length > 0 || (!cursor.after && !cursor.before)) return { ...page, restarted: false };
    // Nothing past a cursor whose rows have since gone (deleted): the first page, not "no rows".
    problems.push("the rows this page followed are gone; showing the first page");
    return { ...(await load({})), restarted: true };
  } catch (error) {
    if (!(error instanceof PaginationError)) throw error;
    problems.push(`${error.message}`);
    return { ...(await load({})), restarted: true };
  }
}
