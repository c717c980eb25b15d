import { z } from "zod";
import { defineTool } from "../types.ts";
import { readWorkspaceText } from "./read-text.ts";
import { WorkspaceAccess, type WorkspaceScope } from "./workspace-access.ts";

export const ReadFileArgs = z.object({
  path: z.string().describe("File to read, relative to the workspace root"),
});

/** `read_file`: a text file's content; refuses excluded, escaping, binary and oversized files. */
export function readFileTool(scope: WorkspaceScope) {
  return defineTool<z.infer<typeof ReadFileArgs>>({
    name: "read_file",
    description: "Read a UTF-8 text file from the workspace and return its content. Env and credential files are refused.",
    parameters: ReadFileArgs,
    async execute({ path: input }, ctx) {
      const access = await WorkspaceAccess.begin({ scope, operation: "read", signal: ctx.signal });
      const resolved = await access.resolveExisting(input);
      const checked = await access.lstat(resolved.real, input);
      if (!checked.isFile()) {
        throw access.refuse(input, "not_a_file", checked.isDirectory() ? "it is a directory (use list_files)" : "it is not a regular file");
      }
      return readWorkspaceText(access, { real: resolved.real, shown: input, checked });
    },
  });
}
