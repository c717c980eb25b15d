import { constants } from "node:fs";
import { mkdir, open } from "node:fs/promises";
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
      // Every existing parent (and the file, if there is one) resolved and checked before anything is created.
      const target = await access.resolve(input);
      if (target.rel === "") throw access.refuse(input, "not_a_file", "it is the workspace root directory");
      const existing = target.exists ? await access.lstat(target.real, input) : null;
      if (existing && !existing.isFile()) {
        throw access.refuse(input, "not_a_file", existing.isDirectory() ? "it is a directory" : "it is not a regular file");
      }
      if (existing) await access.assertNotExcludedHardLink(input, existing);

      try {
        if (!target.exists) await mkdir(path.dirname(target.real), { recursive: true });
        // No O_TRUNC: the opened file is checked (same inode, no excluded hard link) before
        // anything in it changes.
        const handle = await open(target.real, constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW, 0o666);
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
      return { path: target.rel, bytes_written: Buffer.byteLength(content, "utf8"), created: existing === null };
    },
  });
}
