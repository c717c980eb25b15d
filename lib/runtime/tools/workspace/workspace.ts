import path from "node:path";
import { defineToolkit, type Toolkit } from "../types.ts";
import { ExcludedInodeIndex } from "./excluded-inodes.ts";
import { listFilesTool } from "./list-files.ts";
import { createPathPolicy } from "./path-guard.ts";
import { readFileTool } from "./read-file.ts";
import { searchFilesTool } from "./search-files.ts";
import type { WorkspaceScope } from "./workspace-access.ts";
import { writeFileTool } from "./write-file.ts";

export { WorkspaceAccessError, type WorkspaceOperation, type WorkspaceRefusalCode } from "./errors.ts";

/** Default cap for read_file (and for which files search_files reads): 1 MiB. */
export const DEFAULT_MAX_READ_BYTES = 1024 * 1024;

export interface WorkspaceToolkitOptions {
  /** Directory the agent works in; nothing outside it is reachable. Relative to the process cwd. */
  readonly root: string;
  /** Root-relative paths re-allowed although the policy excludes them (e.g. `config/credentials.json`). */
  readonly allowPaths?: readonly string[];
  /** Toolkit id (default `workspace`). */
  readonly id?: string;
  /** Largest file read_file returns, in bytes (default 1 MiB). */
  readonly maxReadBytes?: number;
}

/**
 * Agno's Workspace toolkit: read_file, list_files, search_files and write_file confined to `root`,
 * refusing env and credential files (by name, through symlinks and through hard links) with a
 * WorkspaceAccessError the model can read. Invalid `allowPaths` or `maxReadBytes` throw here.
 */
export function workspaceToolkit({ root, allowPaths = [], id = "workspace", maxReadBytes = DEFAULT_MAX_READ_BYTES }: WorkspaceToolkitOptions): Toolkit {
  if (!Number.isSafeInteger(maxReadBytes) || maxReadBytes < 1) {
    throw new Error(`Workspace maxReadBytes must be a positive integer, got ${maxReadBytes}`);
  }
  const policy = createPathPolicy({ allowPaths });
  const scope: WorkspaceScope = { root: path.resolve(root), policy, inodes: new ExcludedInodeIndex(policy), maxReadBytes };
  return defineToolkit({
    id,
    name: "workspace",
    tools: [readFileTool(scope), listFilesTool(scope), searchFilesTool(scope), writeFileTool(scope)],
  });
}
