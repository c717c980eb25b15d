import type { BigIntStats } from "node:fs";
import { lstat, realpath } from "node:fs/promises";
import path from "node:path";
import { WorkspaceAccessError, type WorkspaceOperation, type WorkspaceRefusalCode } from "./errors.ts";
import { inodeKey, type ExcludedInodeIndex, type ExcludedInodeScan } from "./excluded-inodes.ts";
import { checkPath, isWithin, relativeToBase } from "../path-check.ts";
import { describeExclusion, type PathPolicy } from "./path-guard.ts";

/** What every Workspace tool of one toolkit shares. */
export interface WorkspaceScope {
  /** Absolute root as configured (may itself be a symlink). */
  readonly root: string;
  readonly policy: PathPolicy;
  readonly inodes: ExcludedInodeIndex;
  readonly maxReadBytes: number;
}

/** A path the guard has resolved: how the model named it, and where it really is. */
export interface ResolvedPath {
  /** Root-relative, as requested ("" for the root). */
  readonly rel: string;
  /** Root-relative real path (symlinks resolved). */
  readonly realRel: string;
  readonly real: string;
}

/** How refusals name the directory the toolkit works in. */
const ROOT_NAME = "the workspace root";

/** One tool call's view of the workspace: the real root and a hard-link scan no older than the call. */
export class WorkspaceAccess {
  private scan: Promise<ExcludedInodeScan> | null = null;

  private constructor(
    readonly scope: WorkspaceScope,
    readonly operation: WorkspaceOperation,
    readonly realRoot: string,
    readonly signal: AbortSignal,
    private readonly ticket: number,
  ) {}

  static async begin({ scope, operation, signal }: { scope: WorkspaceScope; operation: WorkspaceOperation; signal: AbortSignal }) {
    signal.throwIfAborted();
    const ticket = scope.inodes.beginAccess();
    let realRoot: string;
    try {
      realRoot = await realpath(scope.root);
    } catch {
      throw new WorkspaceAccessError({ operation, path: ".", code: "not_found", reason: "the workspace root does not exist" });
    }
    return new WorkspaceAccess(scope, operation, realRoot, signal, ticket);
  }

  refuse(shown: string, code: WorkspaceRefusalCode, reason: string): WorkspaceAccessError {
    return new WorkspaceAccessError({ operation: this.operation, path: shown, code, reason });
  }

  /** Lexical checks only (lib/runtime/tools/path-check.ts): inside the root, no `..`, not excluded. Returns the root-relative path. */
  requestPath(input: string): string {
    const result = relativeToBase(input, [this.scope.root, this.realRoot], ROOT_NAME);
    if (!("rel" in result)) throw this.refuse(input, result.code, result.reason);
    const exclusion = this.scope.policy.exclusionOf(result.rel);
    if (exclusion) throw this.refuse(input, "excluded", describeExclusion(exclusion));
    return result.rel;
  }

  /** Maps a real absolute path back into the root, or refuses it (escaped or excluded target). */
  realRelOf(real: string, shown: string): string {
    if (!isWithin(this.realRoot, real)) {
      throw this.refuse(shown, "outside_root", `it resolves (through a symlink) to a location outside ${ROOT_NAME}`);
    }
    const realRel = path.relative(this.realRoot, real).split(path.sep).join("/");
    const exclusion = this.scope.policy.exclusionOf(realRel);
    if (exclusion) {
      throw this.refuse(shown, "excluded", `it resolves (through a symlink) to an excluded path: ${describeExclusion(exclusion)}`);
    }
    return realRel;
  }

  /**
   * Resolves a path, existing or to be created: the requested path's checks, then the shared path
   * check (lib/runtime/tools/path-check.ts: real path, symlinks, containment) and the real path's
   * exclusion.
   */
  async resolve(input: string): Promise<ResolvedPath & { exists: boolean }> {
    const rel = this.requestPath(input);
    const checked = await checkPath({ base: this.realRoot, path: rel, baseName: ROOT_NAME });
    if (!checked.ok) throw this.refuse(input, checked.code, checked.reason);
    return { rel, real: checked.real, realRel: this.realRelOf(checked.real, input), exists: checked.exists };
  }

  /** Resolves a path that must exist (read, list, search). */
  async resolveExisting(input: string): Promise<ResolvedPath> {
    const resolved = await this.resolve(input);
    if (!resolved.exists) throw this.refuse(input, "not_found", "it does not exist in the workspace");
    return resolved;
  }

  /**
   * Refuses a regular file that shares its inode with an excluded file in the root (a hard link
   * to `.env` under an innocent name). Files with one link skip the scan entirely.
   */
  async assertNotExcludedHardLink(shown: string, stats: BigIntStats): Promise<void> {
    if (!stats.isFile() || stats.nlink <= 1n) return;
    this.scan ??= this.scope.inodes.scanFor({ ticket: this.ticket, realRoot: this.realRoot });
    const scan = await abortable(this.scan, this.signal);
    if (scan.inodes.has(inodeKey(stats))) {
      throw this.refuse(shown, "hard_link", "it is a hard link to an excluded env or credential file");
    }
    if (scan.unreadable.length > 0) {
      const where = scan.unreadable
        .slice(0, 3)
        .map((p) => `'${p}'`)
        .join(", ");
      throw this.refuse(shown, "unverifiable", `it has other hard links and the workspace could not read ${where} to rule out a link to an excluded file`);
    }
  }

  /** The same checks as a read, as a yes/no: listings and searches omit what a read would refuse. */
  async isUsable(resolved: { rel: string; realRel: string }, stats: BigIntStats): Promise<boolean> {
    const { policy } = this.scope;
    if (policy.exclusionOf(resolved.rel) || policy.exclusionOf(resolved.realRel)) return false;
    try {
      await this.assertNotExcludedHardLink(resolved.rel, stats);
      return true;
    } catch (error) {
      if (error instanceof WorkspaceAccessError) return false;
      throw error;
    }
  }

  /** Walks descend into usable directories, and into excluded ones only to reach a re-allowed path. */
  mayEnter(entry: { rel: string; realRel: string }): boolean {
    const { policy } = this.scope;
    return (!policy.exclusionOf(entry.rel) && !policy.exclusionOf(entry.realRel)) || policy.hasAllowedPathBelow(entry.rel);
  }

  async lstat(real: string, shown: string): Promise<BigIntStats> {
    try {
      return await lstat(real, { bigint: true });
    } catch (error) {
      throw this.refuseFsError(shown, error);
    }
  }

  /** A readable refusal for an fs error; unexpected errors keep their code but not the host path. */
  refuseFsError(shown: string, error: unknown): WorkspaceAccessError {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return this.refuse(shown, "not_found", "it does not exist in the workspace");
    if (code === "ENOTDIR") return this.refuse(shown, "not_a_directory", "a parent of it is not a directory");
    if (code === "EISDIR") return this.refuse(shown, "not_a_file", "it is a directory");
    if (code === "ELOOP") return this.refuse(shown, "invalid_path", "it is a symlink loop");
    if (code === "EACCES" || code === "EPERM") return this.refuse(shown, "io_error", "the server has no permission to access it");
    if (typeof code === "string") return this.refuse(shown, "io_error", `the filesystem reported ${code}`);
    throw error;
  }
}

/** Rejects with the signal's reason as soon as it aborts, without cancelling the shared work. */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
