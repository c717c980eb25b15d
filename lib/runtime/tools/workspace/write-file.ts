import { constants } from "node:fs";
import { lstat, mkdir, open, realpath } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { defineTool } from "../types.ts";
import { WorkspaceAccessError } from "./errors.ts";
import { WorkspaceAccess, type WorkspaceScope } from "./workspace-access.ts";

export const WriteFileArgs = z.object({
  path: z.string().describe("File to write, relative to the workspace root; missing parent directories are created"),
  content: z.string().describe("The complete new content of the file"),
});

/**
 * `write_file`: creates or replaces a text file under the same rules as a read: no excluded path
 * (requested or real), no escape through a symlinked parent or target, no hard link to an
 * excluded file. Every check runs before any directory is created.
 */
export function writeFileTool(scope: WorkspaceScope) {
  return defineTool<z.infer<typeof WriteFileArgs>>({
    name: "write_file",
    description: "Write a text file in the workspace (creating parent directories), replacing any existing content. Env and credential files cannot be written.",
    parameters: WriteFileArgs,
    async execute({ path: input, content }, ctx) {
      const access = await WorkspaceAccess.begin({ scope, operation: "write", signal: ctx.signal });
      const rel = access.requestPath(input);
      if (rel === "") throw access.refuse(input, "not_a_file", "it is the workspace root directory");
      const parents = rel.split("/");
      const name = parents.pop()!;

      const { dirReal, missing } = await resolveParents(access, input, parents);
      let targetReal = path.join(dirReal, ...missing, name);
      access.realRelOf(targetReal, input);
      let existing = missing.length === 0 ? await lstatOrNull(access, targetReal, input) : null;
      if (existing?.isSymbolicLink()) {
        try {
          targetReal = await realpath(targetReal);
        } catch {
          // A dangling link could point anywhere, including outside the root: never create through it.
          throw access.refuse(input, "invalid_path", "it is a symlink whose target does not exist");
        }
        access.realRelOf(targetReal, input);
        existing = await access.lstat(targetReal, input);
      }
      if (existing && !existing.isFile()) {
        throw access.refuse(input, "not_a_file", existing.isDirectory() ? "it is a directory" : "it is not a regular file");
      }
      if (existing) await access.assertNotExcludedHardLink(input, existing);

      try {
        if (missing.length > 0) await mkdir(path.join(dirReal, ...missing), { recursive: true });
        // No O_TRUNC: the opened file is checked (same inode, no excluded hard link) before
        // anything in it changes.
        const handle = await open(targetReal, constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW, 0o666);
        try {
          const opened = await handle.stat({ bigint: true });
          if (existing && (opened.ino !== existing.ino || opened.dev !== existing.dev)) {
            throw access.refuse(input, "invalid_path", "it changed while being opened; try again");
          }
          await access.assertNotExcludedHardLink(input, opened);
          await handle.truncate(0);
          await handle.writeFile(content, "utf8");
        } finally {
          await handle.close();
        }
      } catch (error) {
        if (error instanceof WorkspaceAccessError) throw error;
        throw access.refuseFsError(input, error);
      }
      return { path: rel, bytes_written: Buffer.byteLength(content, "utf8"), created: existing === null };
    },
  });
}

/**
 * Follows the existing parent directories one at a time, resolving and re-checking each symlink,
 * and returns the real directory reached plus the components still to be created.
 */
async function resolveParents(access: WorkspaceAccess, input: string, parents: string[]) {
  let dirReal = access.realRoot;
  for (const [i, component] of parents.entries()) {
    const next = path.join(dirReal, component);
    const stats = await lstatOrNull(access, next, input);
    if (!stats) return { dirReal, missing: parents.slice(i) };
    let real = next;
    if (stats.isSymbolicLink()) {
      try {
        real = await realpath(next);
      } catch (error) {
        throw access.refuseFsError(input, error);
      }
      access.realRelOf(real, input);
    }
    if (!(await access.lstat(real, input)).isDirectory()) {
      throw access.refuse(input, "not_a_directory", `'${parents.slice(0, i + 1).join("/")}' is not a directory`);
    }
    dirReal = real;
  }
  return { dirReal, missing: [] as string[] };
}

async function lstatOrNull(access: WorkspaceAccess, target: string, input: string) {
  try {
    return await lstat(target, { bigint: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw access.refuseFsError(input, error);
  }
}
