import type { Dirent } from "node:fs";
import { lstat, readdir } from "node:fs/promises";
import path from "node:path";
import type { PathPolicy } from "./path-guard.ts";

/** The (dev, ino) of every excluded regular file in the root that has more than one link. */
export interface ExcludedInodeScan {
  readonly inodes: ReadonlySet<string>;
  /** Directories (root-relative) the scan could not read; a link hiding there cannot be ruled out. */
  readonly unreadable: readonly string[];
}

export function inodeKey(stats: { dev: bigint; ino: bigint }): string {
  return `${stats.dev}:${stats.ino}`;
}

/**
 * Finds the inodes a hard link could smuggle out. Walks the whole real root without following
 * symlinks (a symlink's target is scanned where it lives); only excluded names are stat'ed, and
 * only those with nlink > 1 are kept, since a single-link file cannot be reached by another name.
 */
export async function scanExcludedInodes({ realRoot, policy }: { realRoot: string; policy: PathPolicy }): Promise<ExcludedInodeScan> {
  const inodes = new Set<string>();
  const unreadable: string[] = [];
  const pending = [""];
  while (pending.length > 0) {
    const dirRel = pending.pop()!;
    let entries: Dirent[];
    try {
      entries = await readdir(path.join(realRoot, dirRel), { withFileTypes: true });
    } catch (error) {
      if (!isGone(error)) unreadable.push(dirRel || ".");
      continue;
    }
    for (const entry of entries) {
      const rel = dirRel ? `${dirRel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) pending.push(rel);
      else if (entry.isFile() && policy.exclusionOf(rel)) {
        try {
          const stats = await lstat(path.join(realRoot, rel), { bigint: true });
          if (stats.isFile() && stats.nlink > 1n) inodes.add(inodeKey(stats));
        } catch (error) {
          if (!isGone(error)) unreadable.push(rel);
        }
      }
    }
  }
  return { inodes, unreadable };
}

/**
 * Per-toolkit scan cache that stays correct: an access may only use a scan that *started after
 * the access began* (tracked with a sequence number, not the clock). Concurrent accesses share
 * one in-flight scan; a later access never trusts an earlier one's view, so a hard link created
 * between two tool calls is always seen. Scans run lazily, only for files with nlink > 1.
 */
export class ExcludedInodeIndex {
  private accesses = 0;
  private latest: { afterAccess: number; realRoot: string; scan: Promise<ExcludedInodeScan> } | null = null;

  constructor(private readonly policy: PathPolicy) {}

  /** A ticket for one tool call; pass it to `scanFor`. */
  beginAccess(): number {
    return ++this.accesses;
  }

  scanFor({ ticket, realRoot }: { ticket: number; realRoot: string }): Promise<ExcludedInodeScan> {
    const latest = this.latest;
    if (latest && latest.afterAccess >= ticket && latest.realRoot === realRoot) return latest.scan;
    const scan = scanExcludedInodes({ realRoot, policy: this.policy });
    const entry = { afterAccess: this.accesses, realRoot, scan };
    this.latest = entry;
    scan.catch(() => {
      if (this.latest === entry) this.latest = null;
    });
    return scan;
  }
}

function isGone(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === "ENOENT" || code === "ENOTDIR";
}
