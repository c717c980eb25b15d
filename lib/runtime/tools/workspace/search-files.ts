import { z } from "zod";
import { defineTool } from "../types.ts";
import { WorkspaceAccessError } from "./errors.ts";
import { readWorkspaceText } from "./read-text.ts";
import { walkTree } from "./walk-tree.ts";
import { WorkspaceAccess, type ResolvedPath, type WorkspaceScope } from "./workspace-access.ts";

/** A search stops here and says so; the model can narrow the query or the path. */
export const MAX_SEARCH_MATCHES = 200;
/** Long lines (minified code) are cut so one match cannot flood the context. */
export const MAX_MATCH_LINE_CHARS = 500;

export const SearchFilesArgs = z.object({
  query: z.string().min(1).describe("Text to look for (literal, case-sensitive)"),
  path: z.string().optional().describe("File or directory to search, relative to the workspace root (default: the root)"),
});

export interface SearchMatch {
  readonly path: string;
  /** 1-based. */
  readonly line_number: number;
  readonly line: string;
}

/**
 * `search_files`: lines containing the query in the workspace's text files. Excluded files, links
 * to them, binary and oversized files are skipped silently; symlinks are not followed.
 */
export function searchFilesTool(scope: WorkspaceScope) {
  return defineTool<z.infer<typeof SearchFilesArgs>>({
    name: "search_files",
    description: "Search the workspace's text files for a literal string; returns the path, line number and line of each match. Env and credential files are skipped.",
    parameters: SearchFilesArgs,
    async execute({ query, path: input = "" }, ctx) {
      const access = await WorkspaceAccess.begin({ scope, operation: "search", signal: ctx.signal });
      const shown = input || ".";
      const start = await access.resolveExisting(input);
      const startStats = await access.lstat(start.real, shown);
      const matches: SearchMatch[] = [];
      const collect = (rel: string, text: string): boolean => {
        for (const [i, line] of text.split(/\r?\n/).entries()) {
          if (!line.includes(query)) continue;
          if (matches.length === MAX_SEARCH_MATCHES) return false;
          matches.push({ path: rel, line_number: i + 1, line: line.slice(0, MAX_MATCH_LINE_CHARS) });
        }
        return true;
      };

      if (startStats.isFile()) {
        // A file named explicitly is refused loudly, like read_file, rather than skipped.
        const truncated = !collect(start.rel, await readWorkspaceText(access, { real: start.real, shown, checked: startStats }));
        return { query, path: start.rel, matches, truncated };
      }
      if (!startStats.isDirectory()) throw access.refuse(shown, "not_a_file", "it is neither a file nor a directory");

      let truncated = false;
      const tree = walkTree({ realRoot: access.realRoot, start, recursive: true, enter: (e) => access.mayEnter(e), signal: ctx.signal });
      for await (const entry of tree) {
        if (!entry.dirent.isFile()) continue;
        const text = await readIfUsable(access, entry);
        if (text !== null && !collect(entry.rel, text)) {
          truncated = true;
          break;
        }
      }
      return { query, path: start.rel || ".", matches, truncated };
    },
  });
}

/** The file's text, or null when a read would be refused (excluded, hard link, binary, too large). */
async function readIfUsable(access: WorkspaceAccess, entry: ResolvedPath): Promise<string | null> {
  try {
    const checked = await access.lstat(entry.real, entry.rel);
    if (!checked.isFile() || !(await access.isUsable(entry, checked))) return null;
    return await readWorkspaceText(access, { real: entry.real, shown: entry.rel, checked });
  } catch (error) {
    if (error instanceof WorkspaceAccessError) return null;
    throw error;
  }
}
