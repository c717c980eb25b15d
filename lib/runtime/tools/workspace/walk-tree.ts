import type { Dirent } from "node:fs";
import { readdir } from "node:fs/promises";
import path from "node:path";

/** One entry met while walking: its requested and real root-relative paths. */
export interface TreeEntry {
  readonly rel: string;
  readonly realRel: string;
  readonly real: string;
  readonly dirent: Dirent;
}

/**
 * Walks a real directory depth-first in name order, never following symlinks (so no cycles and no
 * escapes). `enter` decides, per directory, whether to descend; unreadable directories are skipped.
 */
export async function* walkTree({
  realRoot,
  start,
  recursive,
  enter,
  signal,
}: {
  realRoot: string;
  start: { rel: string; realRel: string };
  recursive: boolean;
  enter: (entry: TreeEntry) => boolean;
  signal: AbortSignal;
}): AsyncGenerator<TreeEntry> {
  signal.throwIfAborted();
  let dirents: Dirent[];
  try {
    dirents = await readdir(path.join(realRoot, start.realRel), { withFileTypes: true });
  } catch {
    return;
  }
  dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const dirent of dirents) {
    const entry: TreeEntry = {
      rel: join(start.rel, dirent.name),
      realRel: join(start.realRel, dirent.name),
      real: path.join(realRoot, start.realRel, dirent.name),
      dirent,
    };
    yield entry;
    if (recursive && dirent.isDirectory() && enter(entry)) {
      yield* walkTree({ realRoot, start: entry, recursive, enter, signal });
    }
  }
}

function join(dirRel: string, name: string): string {
  return dirRel ? `${dirRel}/${name}` : name;
}
