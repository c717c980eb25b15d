import type { Attributes } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { runtimeSecrets } from "../runtime/run-trace.ts";

/**
 * What a span may carry once it leaves the process: `input.value` and `output.value` cut at a
 * byte limit (on a UTF-8 character boundary), with `agentry.truncated.input`/`…output` holding
 * the original byte length; and no configured secret anywhere in a string attribute.
 */
export interface AttributePolicy {
  maxBytes: number;
  /** Values never stored or sent (API keys, the security key); each occurrence becomes `[REDACTED]`. */
  secrets: readonly string[];
}

const TRUNCATED: Record<string, string> = { "input.value": "agentry.truncated.input", "output.value": "agentry.truncated.output" };

/** `text` cut to at most `maxBytes` UTF-8 bytes without splitting a character. */
export function cutUtf8(text: string, maxBytes: number): { text: string; bytes: number } | null {
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes <= maxBytes) return null;
  const buffer = Buffer.from(text, "utf8");
  let end = maxBytes;
  // Back up over continuation bytes (10xxxxxx) to the start of the character the cut falls in.
  while (end > 0 && (buffer[end]! & 0xc0) === 0x80) end--;
  return { text: buffer.subarray(0, end).toString("utf8"), bytes };
}

function redact(value: string, secrets: readonly string[]): string {
  let out = value;
  for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join("[REDACTED]");
  // Credentials the runtime obtained for this process's runs (an MCP server's per-user tokens).
  for (const secret of runtimeSecrets()) if (out.includes(secret)) out = out.split(secret).join("[REDACTED]");
  return out;
}

/** The attributes as they may leave the process, or the same object when nothing changes. */
export function boundAttributes(attributes: Attributes, policy: AttributePolicy): Attributes {
  let changed: Attributes | null = null;
  for (const [key, value] of Object.entries(attributes)) {
    if (typeof value !== "string") continue;
    let next = redact(value, policy.secrets);
    const limit = TRUNCATED[key];
    if (limit) {
      const cut = cutUtf8(next, policy.maxBytes);
      if (cut) {
        next = cut.text;
        changed ??= { ...attributes };
        changed[limit] = cut.bytes;
      }
    }
    if (next !== value) {
      changed ??= { ...attributes };
      changed[key] = next;
    }
  }
  return changed ?? attributes;
}

/** A finished span with bounded attributes (the same span when nothing changes). */
export function boundSpan(span: ReadableSpan, policy: AttributePolicy): ReadableSpan {
  const attributes = boundAttributes(span.attributes, policy);
  if (attributes === span.attributes) return span;
  // The span's other fields (and its spanContext()) are read through the prototype.
  return Object.create(span, { attributes: { value: attributes, enumerable: true } }) as ReadableSpan;
}
