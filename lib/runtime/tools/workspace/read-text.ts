import { constants, type BigIntStats } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import { decodeText, formatBytes } from "./text-content.ts";
import type { WorkspaceAccess } from "./workspace-access.ts";

/**
 * Reads a resolved regular file as text, applying the checks that need an open file: the same
 * inode as was checked, no hard link to an excluded file, within the read limit, and not binary.
 * Throws WorkspaceAccessError for each refusal.
 */
export async function readWorkspaceText(access: WorkspaceAccess, { real, shown, checked }: { real: string; shown: string; checked: BigIntStats }): Promise<string> {
  const limit = access.scope.maxReadBytes;
  let handle: FileHandle;
  try {
    // O_NONBLOCK: a FIFO swapped in after the check cannot hang the run. The fstat below is what
    // the policy finally judges, so a swap between the checks and the open is refused.
    handle = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    throw access.refuseFsError(shown, error);
  }
  try {
    const stats = await handle.stat({ bigint: true });
    if (!stats.isFile() || stats.ino !== checked.ino || stats.dev !== checked.dev) {
      throw access.refuse(shown, "invalid_path", "it changed while being opened; try again");
    }
    await access.assertNotExcludedHardLink(shown, stats);
    if (stats.size > BigInt(limit)) {
      throw access.refuse(shown, "too_large", `it is ${formatBytes(Number(stats.size))}, over the ${formatBytes(limit)} read limit`);
    }
    const bytes = await readUpTo(handle, Number(stats.size), limit + 1);
    if (bytes.length > limit) throw access.refuse(shown, "too_large", `it is over the ${formatBytes(limit)} read limit`);
    const text = decodeText(bytes);
    if (text === null) throw access.refuse(shown, "binary", "it is a binary file; only text files can be read");
    return text;
  } finally {
    await handle.close();
  }
}

/** Reads until EOF or `cap` bytes; `expected` sizes the first buffer (the file may have grown). */
async function readUpTo(handle: FileHandle, expected: number, cap: number): Promise<Buffer> {
  let buffer = Buffer.alloc(Math.min(expected + 1, cap));
  let length = 0;
  for (;;) {
    if (length === buffer.length) {
      if (length >= cap) return buffer;
      const grown = Buffer.alloc(Math.min(buffer.length * 2, cap));
      buffer.copy(grown, 0, 0, length);
      buffer = grown;
    }
    const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
    if (bytesRead === 0) return buffer.subarray(0, length);
    length += bytesRead;
  }
}
