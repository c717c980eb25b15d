/** What the agent was trying to do when the workspace refused it. */
export type WorkspaceOperation = "read" | "list" | "search" | "write";

/** Why the workspace refused; stable for callers and tests, the message is for the model. */
export type WorkspaceRefusalCode = "invalid_path" | "outside_root" | "excluded" | "hard_link" | "unverifiable" | "not_found" | "not_a_file" | "not_a_directory" | "binary" | "too_large" | "io_error";

/**
 * A refusal the model can read: thrown by every Workspace tool instead of a raw fs error, so the
 * message names the requested path (never the host's absolute root) and the reason.
 */
export class WorkspaceAccessError extends Error {
  readonly operation: WorkspaceOperation;
  /** The path as the model asked for it. */
  readonly path: string;
  readonly code: WorkspaceRefusalCode;
  readonly reason: string;

  constructor({ operation, path, code, reason }: { operation: WorkspaceOperation; path: string; code: WorkspaceRefusalCode; reason: string }) {
    super(`Cannot ${operation} '${path}': ${reason}`);
    this.name = "WorkspaceAccessError";
    this.operation = operation;
    this.path = path;
    this.code = code;
    this.reason = reason;
  }
}
