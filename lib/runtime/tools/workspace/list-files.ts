import { realpath } from "node:fs/promises";
import { z } from "zod";
import { defineTool } from "../types.ts";
import { WorkspaceAccessError } from "./errors.ts";
import { walkTree, type TreeEntry } from "./walk-tree.ts";
import { WorkspaceAccess, type WorkspaceScope } from "./workspace-access.ts";

/** A listing stops here and says so; the model can list a subdirectory instead. */
export const MAX_LIST_ENTRIES = 1000;

export const ListFilesArgs = z.object({
  path: z.string().optional().describe("Directory to list, relative to the workspace root (default: the root)"),
  recursive: z.boolean().optional().describe("Also list everything below subdirectories (default: false)"),
});

export interface WorkspaceEntry {
  /** Root-relative path. */
  readonly path: string;
  readonly type: "file" | "directory" | "symlink";
  /** Bytes, for files. */
  readonly size?: number;
}

/** `list_files`: a directory's entries; excluded files (and links to them) are omitted. */
export function listFilesTool(scope: WorkspaceScope) {
  return defineTool<z.infer<typeof ListFilesArgs>>({
    name: "list_files",
    description: "List the files and directories in a workspace directory (recursively if asked). Env and credential files are not listed.",
    parameters: ListFilesArgs,
    async execute({ path: input = "", recursive = false }, ctx) {
      const access = await WorkspaceAccess.begin({ scope, operation: "list", signal: ctx.signal });
      const shown = input || ".";
      const dir = await access.resolveExisting(input);
      if (!(await access.lstat(dir.real, shown)).isDirectory()) throw access.refuse(shown, "not_a_directory", "it is not a directory");
      const entries: WorkspaceEntry[] = [];
      let truncated = false;
      const tree = walkTree({ realRoot: access.realRoot, start: dir, recursive, enter: (e) => access.mayEnter(e), signal: ctx.signal });
      for await (const entry of tree) {
        const described = await describeEntry(access, entry);
        if (!described) continue;
        if (entries.length === MAX_LIST_ENTRIES) {
          truncated = true;
          break;
        }
        entries.push(described);
      }
      return { path: dir.rel || ".", entries, truncated };
    },
  });
}

/** The entry as listed, or null when a read of it would be refused. Symlinks are not followed. */
async function describeEntry(access: WorkspaceAccess, entry: TreeEntry): Promise<WorkspaceEntry | null> {
  const { dirent } = entry;
  if (dirent.isSymbolicLink()) {
    try {
      const real = await realpath(entry.real);
      const target = { rel: entry.rel, realRel: access.realRelOf(real, entry.rel) };
      const stats = await access.lstat(real, entry.rel);
      return (await access.isUsable(target, stats)) ? { path: entry.rel, type: "symlink" } : null;
    } catch (error) {
      if (error instanceof WorkspaceAccessError || (error as NodeJS.ErrnoException).code) return null;
      throw error;
    }
  }
  if (!dirent.isFile() && !dirent.isDirectory()) return null;
  let stats: Awaited<ReturnType<typeof access.lstat>>;
  try {
    stats = await access.lstat(entry.real, entry.rel);
  } catch (error) {
    if (error instanceof WorkspaceAccessError) return null;
    throw error;
  }
  if (!(await access.isUsable(entry, stats))) return null;
  return stats.isDirectory() ? { path: entry.rel, type: "directory" } : { path: entry.rel, type: "file", size: Number(stats.size) };
}
