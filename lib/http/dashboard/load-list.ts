import { PaginationError } from "../../db/errors.ts";

/**
 * Loads one page of a dashboard list; a cursor the server cannot read (edited, or from another
 * sort) becomes a problem to show and the first page, never an error page.
 */
export async function loadList<T>(load: (cursor: { after?: string; before?: string }) => Promise<T>, cursor: { after?: string; before?: string }, problems: string[]): Promise<T> {
  try {
    return await load(cursor);
  } catch (error) {
    if (!(error instanceof PaginationError)) throw error;
    problems.push(`${error.message}`);
    return load({});
  }
}
