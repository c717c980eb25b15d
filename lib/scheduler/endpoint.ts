/**
 * What a schedule's endpoint means, decided once for everyone who reads it: the create and PATCH
 * checks (the API's schema, the dashboard's form, lib/scheduler/manage.ts), the permission check
 * (lib/http/schedule-access.ts) and the fire (fire.ts). A fire's call is built by WHATWG URL
 * parsing against ENDPOINT_ORIGIN (lib/http/internal-call.ts resolves the path it is given
 * against that origin with `new URL`), where `\` is a separator, `?` and `#` end the path and dot
 * segments (`%2e` too) are resolved away. An endpoint is accepted only when that parse gives back
 * its own text as the pathname, on this origin, with no query and no fragment; what it runs (a
 * run endpoint's component, or none) is then read from that one path. It imports nothing, so any
 * layer (and the browser) may use it.
 */

/** The origin a fire's endpoint is resolved against (the in-process caller's base URL). */
export const ENDPOINT_ORIGIN = "http://agentry.internal";

export type RunTargetType = "agents" | "teams" | "workflows";

/** The component a run endpoint runs: its type (the path's first segment) and its decoded id. */
export interface RunTarget {
  type: RunTargetType;
  id: string;
}

/** An endpoint read as a fire reads it: its path and what it runs (null: not a run endpoint), or why it cannot be fired. */
export type ParsedEndpoint = { ok: true; path: string; run: RunTarget | null } | { ok: false; problem: string };

/** A run endpoint: `POST /agents|teams|workflows/{id}/runs` (an optional trailing slash). */
const RUN_PATH = /^\/(agents|teams|workflows)\/([^/]+)\/runs\/?$/;
/** C0 controls, DEL and C1 controls. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
/** `.` and `..` as URL parsing recognises them, `%2e` included (case-insensitive). */
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;

/** Decodes one path segment; null when a `%` does not start a valid percent-encoded UTF-8 character. */
function decodedSegment(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

/** Why `endpoint` cannot be a schedule's endpoint (a sentence naming the field), or null when it can. */
export function endpointProblem(endpoint: string): string | null {
  if (!endpoint.startsWith("/")) return "Endpoint must start with '/'";
  if (endpoint.includes("://")) return "Endpoint must be a path, not a full URL";
  if (CONTROL.test(endpoint)) return "Endpoint must not contain control characters";
  if (endpoint.includes("\\")) return "Endpoint must not contain '\\': URL parsing reads it as '/'";
  for (const mark of ["?", "#"]) {
    if (endpoint.includes(mark)) return `Endpoint must not contain '${mark}': URL parsing ends the path there`;
  }
  if (/%2f|%5c/i.test(endpoint)) return "Endpoint must not contain a percent-encoded '/' or '\\' (%2F, %5C)";
  const segments = endpoint.slice(1).split("/");
  for (const [i, segment] of segments.entries()) {
    if (segment === "" && i < segments.length - 1) return "Endpoint must not contain an empty segment ('//')";
    if (DOT_SEGMENT.test(segment)) return "Endpoint must not contain a '.' or '..' segment (nor one written with %2E)";
    const decoded = decodedSegment(segment);
    if (decoded === null) return "Endpoint must not contain a '%' that does not start a valid percent-encoded UTF-8 character";
    if (CONTROL.test(decoded)) return "Endpoint must not contain percent-encoded control characters";
  }
  let url: URL;
  try {
    url = new URL(endpoint, ENDPOINT_ORIGIN);
  } catch {
    return "Endpoint must be a path URL parsing accepts";
  }
  if (url.origin !== ENDPOINT_ORIGIN) return "Endpoint must be a path on this server";
  const parsed = `${url.pathname}${url.search}${url.hash}`;
  if (parsed !== endpoint) return `Endpoint must be written as URL parsing reads it: '${endpoint}' is read as '${parsed}'`;
  return null;
}

/**
 * Reads an endpoint as a fire calls it: the parsed path (equal to the text, or the endpoint is
 * refused with the reason) and, for `POST` to a run endpoint, the component it runs.
 */
export function parseScheduleEndpoint(endpoint: string, method: string): ParsedEndpoint {
  const problem = endpointProblem(endpoint);
  if (problem !== null) return { ok: false, problem };
  const path = new URL(endpoint, ENDPOINT_ORIGIN).pathname;
  const match = method.toUpperCase() === "POST" ? RUN_PATH.exec(path) : null;
  // Decoded as the route table decodes a path parameter; endpointProblem refused what would not decode.
  return { ok: true, path, run: match ? { type: match[1] as RunTargetType, id: decodeURIComponent(match[2]!) } : null };
}
