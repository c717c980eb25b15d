import { lstat, realpath } from "node:fs/promises";
import path from "node:path";

/**
 * The path check any toolkit that touches files calls before it does (the Workspace toolkit uses
 * it; Agno's toolkits call `Toolkit._check_path`): a path the model gave, resolved against a base
 * directory, with `..`, absolute paths elsewhere and symlinks leading out refused.
 */

/** Why a path was refused; stable for callers, the reason is a sentence for the model. */
export type PathRefusalCode = "invalid_path" | "outside_root" | "not_found" | "not_a_directory" | "io_error";

export interface PathRefusal {
  readonly ok: false;
  readonly code: PathRefusalCode;
  readonly reason: string;
}

export interface CheckedPath {
  readonly ok: true;
  /** Base-relative, `/`-separated, as requested ("" for the base itself). */
  readonly rel: string;
  /** The absolute real path (symlinks resolved); for a path that does not exist yet, where it would be created. */
  readonly real: string;
  /** `real` relative to the base's real path, `/`-separated; null when it is outside (only with `allowOutside`). */
  readonly realRel: string | null;
  /** Whether something exists at the path now (a new file to write does not). */
  readonly exists: boolean;
}

export interface CheckPathOptions {
  /** The directory the tool works in (relative to the process cwd, or absolute; may be a symlink). */
  base: string;
  /** The path as the model gave it: relative to `base`, or absolute under it. */
  path: string;
  /** Skip the containment checks (Agno's `restrict_to_base_dir=False`): resolve, refuse nothing but unusable paths. */
  allowOutside?: boolean;
  /** How reasons name the base, e.g. "the workspace root" (default "the base directory"). */
  baseName?: string;
}

/**
 * Checks a path against a base directory, as every file tool should before touching it:
 * - a NUL byte is refused (`invalid_path`);
 * - any `..` segment is refused outright rather than normalised away, so a symlinked directory can
 *   never turn `link/..` into somewhere the check did not look (`outside_root`);
 * - an absolute path must lie under the base (as configured or as its real path);
 * - the real path (every symlink on the way resolved, for a path not there yet those of its
 *   deepest existing parent) must lie under the base's real path, so a symlink leading out is
 *   refused (`outside_root`); a dangling symlink on the way is refused (`invalid_path`), since
 *   what it would create cannot be checked;
 * - a file where a directory is needed is `not_a_directory`; other filesystem errors `io_error`.
 * Reasons never contain the host's absolute paths. A missing path is not refused: `exists` says.
 */
export async function checkPath({ base, path: input, allowOutside = false, baseName = "the base directory" }: CheckPathOptions): Promise<CheckedPath | PathRefusal> {
  if (input.includes("\0")) return refusal("invalid_path", "the path contains a NUL byte");
  const configuredBase = path.resolve(base);
  let realBase: string;
  try {
    realBase = await realpath(configuredBase);
  } catch {
    return refusal("not_found", `${baseName} does not exist`);
  }
  let rel: string;
  let target: string;
  if (allowOutside) {
    // Resolved against the base as configured: with a symlinked base, `rel` is relative to that
    // path, and joining it to the real base instead would name another file.
    target = path.resolve(configuredBase, input);
    rel = toPosix(path.relative(configuredBase, target));
  } else {
    const lexical = relativeToBase(input, [configuredBase, realBase], baseName);
    if ("code" in lexical) return refusal(lexical.code, lexical.reason);
    rel = lexical.rel;
    target = path.resolve(realBase, rel);
  }
  const resolved = await resolveReal(target);
  if (!resolved.ok) return resolved;
  const inside = isWithin(realBase, resolved.real);
  if (!inside && !allowOutside) return refusal("outside_root", `it resolves (through a symlink) to a location outside ${baseName}`);
  return { ok: true, rel, real: resolved.real, realRel: inside ? toPosix(path.relative(realBase, resolved.real)) : null, exists: resolved.exists };
}

/**
 * The lexical half of `checkPath`, without the filesystem: the base-relative form of a path
 * (relative, or absolute under one of `bases`), or why it is refused.
 */
export function relativeToBase(input: string, bases: readonly string[], baseName = "the base directory"): { rel: string } | Omit<PathRefusal, "ok"> {
  if (input.includes("\0")) return { code: "invalid_path", reason: "the path contains a NUL byte" };
  if (input.split("/").includes("..")) {
    return { code: "outside_root", reason: `'..' segments are not allowed; paths stay inside ${baseName}` };
  }
  if (path.isAbsolute(input)) {
    for (const base of bases) {
      if (isWithin(base, input)) return { rel: toPosix(path.relative(base, input)) };
    }
    return { code: "outside_root", reason: `it is outside ${baseName}` };
  }
  const rel = path.posix.normalize(input).replace(/\/+$/, "");
  return { rel: rel === "." ? "" : rel };
}

/** Whether absolute `target` is `base` or below it (both already normalised, or both real). */
export function isWithin(base: string, target: string): boolean {
  const rel = path.relative(base, target);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/**
 * The real path of `target`: realpath when it exists, else the realpath of its deepest existing
 * parent with the missing components appended. A dangling symlink on the way is refused.
 */
async function resolveReal(target: string): Promise<{ ok: true; real: string; exists: boolean } | PathRefusal> {
  const missing: string[] = [];
  let current = target;
  for (;;) {
    try {
      const real = await realpath(current);
      return { ok: true, real: path.join(real, ...missing.reverse()), exists: missing.length === 0 };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ENOENT") return fsRefusal(code);
    }
    const stats = await lstat(current).catch(() => null);
    if (stats?.isSymbolicLink()) {
      return refusal("invalid_path", missing.length === 0 ? "it is a symlink whose target does not exist" : "a directory on its way is a symlink whose target does not exist");
    }
    const parent = path.dirname(current);
    if (parent === current) return refusal("not_found", "no part of it exists");
    missing.push(path.basename(current));
    current = parent;
  }
}

function fsRefusal(code: string | undefined): PathRefusal {
  if (code === "ENOTDIR") return refusal("not_a_directory", "a parent of it is not a directory");
  if (code === "ELOOP") return refusal("invalid_path", "it is a symlink loop");
  if (code === "EACCES" || code === "EPERM") return refusal("io_error", "the server has no permission to access it");
  return refusal("io_error", `the filesystem reported ${code ?? "an error"}`);
}

function refusal(code: PathRefusalCode, reason: string): PathRefusal {
  return { ok: false, code, reason };
}

function toPosix(rel: string): string {
  return rel.split(path.sep).join("/");
}
