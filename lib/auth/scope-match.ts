/**
 * Matching of Agno scope strings: `resource:action` (every id), `resource:<id>:action`,
 * `resource:*:action` (every id) and `resource:*` (every action on every id). Anything else
 * (a malformed string) only ever matches itself, exactly.
 */

interface ParsedScope {
  readonly resource: string;
  /** "*" for every id (a two-part scope means every id too). */
  readonly id: string;
  /** "*" for every action. */
  readonly action: string;
}

function parse(scope: string): ParsedScope | null {
  const parts = scope.split(":");
  if (parts.some((p) => p === "")) return null;
  if (parts.length === 2) return { resource: parts[0], id: "*", action: parts[1] };
  if (parts.length === 3) return { resource: parts[0], id: parts[1], action: parts[2] };
  return null;
}

/** Whether holding `held` satisfies `required` (`required` may itself be a wildcard). */
export function scopeGrants(held: string, required: string): boolean {
  if (held === required) return true;
  const h = parse(held);
  const r = parse(required);
  if (!h || !r || h.resource !== r.resource) return false;
  return (h.action === "*" || h.action === r.action) && (h.id === "*" || h.id === r.id);
}

/**
 * Whether a deny entry takes away any part of `required`. Deliberately broader than
 * scopeGrants: `agents:abc:run` overlaps `agents:run` ("run every agent"), so a generic check
 * fails and only the per-id check can pass, for every id but the denied one (fail closed).
 */
export function scopeOverlaps(denied: string, required: string): boolean {
  if (denied === required) return true;
  const d = parse(denied);
  const r = parse(required);
  if (!d || !r || d.resource !== r.resource) return false;
  const actions = d.action === "*" || r.action === "*" || d.action === r.action;
  const ids = d.id === "*" || r.id === "*" || d.id === r.id;
  return actions && ids;
}
