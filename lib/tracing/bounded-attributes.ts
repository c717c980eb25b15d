import type { Attributes } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { cutUtf8, runtimeSecrets } from "../runtime/run-trace.ts";

export { cutUtf8 };

/**
 * What a span may carry once it leaves the process: no configured secret (nor a credential the
 * runtime obtained, nor a service-account token) anywhere in a string attribute, and then
 * `input.value` and `output.value` cut at a byte limit (on a UTF-8 character boundary), with
 * `agentry.truncated.input`/`…output` holding the original byte length. The runtime cut them
 * already with a margin (lib/runtime/run-trace.ts), so a secret the cut would split is still
 * whole when it is redacted.
 */
export interface AttributePolicy {
  maxBytes: number;
  /** Values never stored or sent (API keys, the security key); each occurrence becomes `[REDACTED]`. */
  secrets: readonly string[];
}

const TRUNCATED: Record<string, string> = { "input.value": "agentry.truncated.input", "output.value": "agentry.truncated.output" };

function redact(value: string, secrets: readonly string[]): string {
  let out = value;
  for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join("[REDACTED]");
  // Credentials the runtime obtained for this process's runs (an MCP server's per-user tokens).
  for (const secret of runtimeSecrets()) if (out.includes(secret)) out = out.split(secret).join("[REDACTED]");
  // Agno-style service-account tokens, whoever's they are.
  if (out.includes("agno_pat_")) out = out.replace(/agno_pat_[A-Za-z0-9_-]+/g, "[REDACTED]");
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
        // The runtime may have cut it already (lib/runtime/run-trace.ts): its length is the original's.
        changed[limit] = typeof attributes[limit] === "number" ? attributes[limit] : cut.bytes;
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
