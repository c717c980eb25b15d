import "server-only";
import { getSettings } from "../server/load-config.ts";
import { errorResponse } from "../http/errors.ts";
import { handleMcpRequest } from "./handler.ts";

type Handler = (request: Request) => Promise<Response>;

/** The exports of app/(api)/mcp/route.ts: every method goes to the MCP handler (the transport answers 405 for those MCP does not use). */
export function mcpNextHandlers(): Record<"GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "OPTIONS", Handler> {
  const handle: Handler = async (request) => {
    try {
      return await handleMcpRequest(request, getSettings());
    } catch (error) {
      return errorResponse(error);
    }
  };
  return { GET: handle, POST: handle, PUT: handle, PATCH: handle, DELETE: handle, OPTIONS: handle };
}
