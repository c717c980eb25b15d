import "server-only";
import { getSettings } from "../server/load-config.ts";
import { errorResponse } from "./errors.ts";
import { dispatch, notFound } from "./dispatch.ts";
import { routesFor } from "./route-table.ts";
// Registers the scheduler's endpoint caller in this module graph (fires call through the route table).
import "./internal-call.ts";

type Handler = (request: Request) => Promise<Response>;

/**
 * The exports of an app/(api)/…/route.ts file: every method goes to the dispatcher for this
 * template, so a method the table does not declare gets Agno's 405 instead of an empty one.
 */
export function nextHandlers(template: string): Record<"GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "OPTIONS", Handler> {
  const routes = routesFor(template);
  if (routes.length === 0) throw new Error(`No route is declared for ${template}`);
  const handle: Handler = async (request) => {
    try {
      return await dispatch(request, template, { settings: getSettings(), routes });
    } catch (error) {
      return errorResponse(error);
    }
  };
  return { GET: handle, POST: handle, PUT: handle, PATCH: handle, DELETE: handle, OPTIONS: handle };
}

/** The exports of the catch-all route: Agno's 404 for any path no route declares. */
export function notFoundHandlers(): Record<"GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "OPTIONS", Handler> {
  const handle: Handler = async (request) => {
    try {
      return notFound(request, getSettings());
    } catch (error) {
      return errorResponse(error);
    }
  };
  return { GET: handle, POST: handle, PUT: handle, PATCH: handle, DELETE: handle, OPTIONS: handle };
}
