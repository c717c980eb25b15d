const decoder = new TextDecoder("utf-8", { fatal: true });

/**
 * The text of a file's bytes, or null when it is binary: a NUL byte, or bytes that are not valid
 * UTF-8. Tools hand the model text only; binary content would be noise at best.
 */
export function decodeText(bytes: Uint8Array): string | null {
  if (bytes.includes(0)) return null;
  try {
    return decoder.decode(bytes);
  } catch {
    return null;
  }
}

/** `1536` → `1.5 KiB`, for messages about the read limit. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${Number(value.toFixed(1))} ${units[unit]}`;
}
