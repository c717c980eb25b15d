import { z } from "zod";
import { authenticate } from "../auth/authenticate.ts";
import { hasScope, type Principal } from "../auth/principal.ts";
import type { Settings } from "../config/settings.ts";
import { parseFormBody, parseJsonBody, type ParsedForm } from "./body.ts";
import { corsHeaders, preflightResponse, withHeaders } from "./cors.ts";
import { errorResponse, refuseUnsafeText, zodToValidation, type InputSource } from "./errors.ts";
import { HttpError } from "../errors/http-error.ts";
import { unsafeCharacterIn } from "./input-text.ts";
import { responseBody, responseMismatch, type AnyRoute, type HttpMethod } from "./route.ts";
import { resolveRouteData } from "./data-access.ts";
import { getDatabase } from "../server/app-context.ts";
import { matchTemplate } from "./path-template.ts";

export interface DispatchOptions {
  settings: Settings;
  routes: readonly AnyRoute[];
  /**
   * Act as this principal instead of authenticating the request: tests (isolation tests call
   * routes as a non-admin user) and the scheduler's in-process calls (internal-call.ts). The scope
   * check still applies. next-handlers never sets it.
   */
  principal?: Principal;
}

const METHODS: readonly HttpMethod[] = ["GET", "POST", "PUT", "PATCH", "DELETE"];

function jsonResponse(status: number, body: unknown): Response {
  if (status === 204) return new Response(null, { status });
  return new Response(JSON.stringify(body ?? null), { status, headers: { "content-type": "application/json" } });
}

function queryObject(url: URL): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const key of new Set(url.searchParams.keys())) {
    const values = url.searchParams.getAll(key);
    out[key] = values.length === 1 ? values[0] : values;
  }
  return out;
}

async function validate(schema: AnyRoute["query"], value: unknown, source: InputSource): Promise<unknown> {
  if (!schema) return undefined;
  const result = await schema.safeParseAsync(value);
  if (!result.success) throw zodToValidation(result.error, source, value);
  return result.data;
}

function authorize(route: AnyRoute, principal: Principal, params: Record<string, string>): void {
  if ("public" in route.access) return;
  const { permission, resourceParam, listFilter } = route.access;
  if (hasScope(principal, permission)) return;
  const [resource, action] = permission.split(":");
  if (resourceParam && params[resourceParam] !== undefined) {
    if (hasScope(principal, `${resource}:${params[resourceParam]}:${action}`)) return;
  }
  if (listFilter && principal.scopes.some((s) => s.startsWith(`${resource}:`) && s.endsWith(`:${action}`))) return;
  throw new HttpError(403, `Insufficient permissions. Required scope(s): ${permission}`);
}

/** A body the route's own response schema refuses: a server bug, never the caller's. */
class ResponseValidationError extends Error {
  override readonly name = "ResponseValidationError";
}

/**
 * Development and tests (settings.checkResponses): a JSON body that does not match the route's
 * declared response is answered 500 `Internal server error (ResponseValidationError)`, its
 * message (the route and the zod issues) logged with the error id by errorResponse, so a test
 * meeting it fails. Production sends it unchecked.
 */
async function checkResponse(route: AnyRoute, body: unknown): Promise<void> {
  const mismatch = await responseMismatch(route, body);
  if (mismatch) throw new ResponseValidationError(`${route.method} ${route.path} sent a body its response schema refuses:\n${z.prettifyError(mismatch)}`);
}

/** A token's user or session id is written with the rows it creates: it must be storable text. */
function refuseUnsafeIdentity(principal: Principal): void {
  for (const [claim, value] of [
    ["user id", principal.userId],
    ["session_id", principal.sessionId],
  ] as const) {
    const problem = value ? unsafeCharacterIn(value) : null;
    if (problem) throw new HttpError(401, `Invalid token: its ${claim} contains ${problem}`);
  }
}

/**
 * The one request path every API route goes through: CORS, method match, authentication, scope
 * check, parsing and validation of params/query/body/form, the handler, error mapping.
 * `template` is the route's path template; the routes given are those sharing it.
 */
export async function dispatch(request: Request, template: string, { settings, routes, principal: asPrincipal }: DispatchOptions): Promise<Response> {
  const cors = corsHeaders(request, settings);
  try {
    const method = request.method.toUpperCase();
    if (method === "OPTIONS" && request.headers.get("access-control-request-method")) {
      return preflightResponse(request, settings);
    }
    const route = routes.find((r) => r.method === method);
    if (!route) {
      const allowed = routes.map((r) => r.method).filter((m) => METHODS.includes(m));
      throw new HttpError(405, "Method Not Allowed", {}, { allow: allowed.join(", ") });
    }
    const url = new URL(request.url);
    const rawParams = matchTemplate(template, url.pathname) ?? {};
    const principal = "public" in route.access ? null : (asPrincipal ?? (await authenticate(request, settings, () => getDatabase(settings))));
    if (principal) {
      refuseUnsafeIdentity(principal);
      authorize(route, principal, rawParams);
    }

    // Text storage cannot hold alike on both dialects is refused here, for every route, before
    // any handler sees it: path params, query keys and values (bodies: in body.ts).
    refuseUnsafeText(rawParams, ["path"]);
    const rawQuery = queryObject(url);
    refuseUnsafeText(rawQuery, ["query"]);
    const params = await validate(route.params, rawParams, "path");
    const query = await validate(route.query, rawQuery, "query");
    let body: unknown;
    let form: unknown;
    let files: ParsedForm["files"] = {};
    if (route.body) {
      const raw = await parseJsonBody(request, settings.limits.maxJsonBytes);
      body = await validate(route.body, raw, "body");
    } else if (route.form) {
      const parsed = await parseFormBody(request, { maxBodyBytes: settings.limits.maxUploadBytes, maxFieldBytes: settings.limits.maxFormFieldBytes });
      form = await validate(route.form, parsed.fields, "body");
      files = parsed.files;
    }
    // After every input check: what the path names (its 404), then what the route touches — its
    // data scope (403) and database (400/404) —, resolved once: by the route's resource loader
    // when it reads stored rows (after its configuration lookups), else here.
    const input = { params, query, body, form, files };
    let resolved: Promise<object> | undefined;
    const data = () => (resolved ??= route.data && principal ? resolveRouteData(principal, route.data, input, settings) : Promise.resolve({}));
    const resource = route.resource ? { resource: await route.resource(input, { settings, principal, data } as never) } : {};
    const result = await route.handler({ input, principal, request, settings, ...resource, ...(await data()) } as never);
    if (result instanceof Response) return withHeaders(result, cors);
    const status = route.status ?? 200;
    const sent = responseBody(route, result);
    if (settings.checkResponses && status !== 204) await checkResponse(route, sent);
    return withHeaders(jsonResponse(status, sent), cors);
  } catch (error) {
    return withHeaders(errorResponse(error), cors);
  }
}

/** 404 in Agno's shape, for any path no route declares. */
export function notFound(request: Request, settings: Settings): Response {
  if (request.method.toUpperCase() === "OPTIONS" && request.headers.get("access-control-request-method")) {
    return preflightResponse(request, settings);
  }
  return withHeaders(jsonResponse(404, { detail: "Not Found" }), corsHeaders(request, settings));
}
