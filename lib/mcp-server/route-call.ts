import type { Principal } from "../auth/principal.ts";
import type { Settings } from "../config/settings.ts";
import { dispatch } from "../http/dispatch.ts";
import { routesFor, templateForPath } from "../http/route-table.ts";

/**
 * A tool's call of a REST route, in process, as the MCP caller's principal: the route table and
 * the dispatcher do validation, the scope check and the route's data scope (owner scoping) exactly
 * as they do for an HTTP request, so an MCP caller can reach nothing REST would refuse it.
 */
export interface RouteCall {
  method: "GET" | "POST";
  path: string;
  /** Query parameters; undefined and null values are left out. */
  query?: Record<string, string | number | undefined | null>;
  /** Form fields (the run routes take forms, as Agno's do); undefined and null values are left out. */
  form?: Record<string, string | undefined | null>;
  json?: unknown;
  signal?: AbortSignal;
}

/** A route's refusal (its status and `detail`), raised as the tool's error: its text is the detail, as Agno re-raises HTTPException details. */
export class RouteRefusal extends Error {
  override readonly name = "RouteRefusal";
  constructor(
    readonly status: number,
    detail: string,
  ) {
    super(detail);
  }
}

function compact<T>(values: Record<string, T | undefined | null>): Record<string, T> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined && v !== null)) as Record<string, T>;
}

/** The route's answer, whatever its status. */
export async function callRouteRaw(settings: Settings, principal: Principal, call: RouteCall): Promise<Response> {
  const url = new URL(call.path, "http://agentry.internal");
  for (const [key, value] of Object.entries(compact(call.query ?? {}))) url.searchParams.set(key, String(value));
  const template = templateForPath(url.pathname);
  if (!template) throw new RouteRefusal(404, "Not Found");
  const headers = new Headers();
  let body: BodyInit | undefined;
  if (call.form) {
    body = new URLSearchParams(compact(call.form));
    headers.set("content-type", "application/x-www-form-urlencoded");
  } else if (call.json !== undefined) {
    body = JSON.stringify(call.json);
    headers.set("content-type", "application/json");
  }
  const request = new Request(url, { method: call.method, headers, body, signal: call.signal });
  return dispatch(request, template, { settings, routes: routesFor(template), principal });
}

/** The text of an error answer's `detail` (a string, or FastAPI's validation list), else the status. */
export async function refusalOf(response: Response): Promise<RouteRefusal> {
  const text = await response.text();
  let detail: unknown = null;
  try {
    detail = (JSON.parse(text) as { detail?: unknown }).detail;
  } catch {
    detail = null;
  }
  if (Array.isArray(detail)) {
    detail = detail.map((d: { loc?: unknown[]; msg?: string }) => `${(d.loc ?? []).join(".")}: ${d.msg ?? "invalid"}`).join("; ");
  }
  return new RouteRefusal(response.status, typeof detail === "string" && detail.length > 0 ? detail : `Request failed with status ${response.status}`);
}

/** The route's JSON answer; a refusal (status ≥ 400) is thrown as RouteRefusal with its detail. */
export async function callRoute<T = unknown>(settings: Settings, principal: Principal, call: RouteCall): Promise<T> {
  const response = await callRouteRaw(settings, principal, call);
  if (response.status >= 400) throw await refusalOf(response);
  if (response.status === 204) return null as T;
  return (await response.json()) as T;
}
