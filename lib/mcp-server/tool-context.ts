import type { Principal } from "../auth/principal.ts";

/**
 * What a tool handler needs of its MCP request: who is calling (the principal the HTTP request
 * authenticated as, handed to the transport with the request), whether the request was cancelled,
 * and a way to report progress (a no-op when the client sent no progressToken).
 */
export interface ToolContext {
  principal: Principal;
  signal: AbortSignal;
  progress(progress: number, message: string): Promise<void>;
}

/** The slice of the SDK's RequestHandlerExtra a tool reads. */
export interface ToolExtra {
  signal: AbortSignal;
  authInfo?: { extra?: Record<string, unknown> };
  _meta?: { progressToken?: string | number };
  sendNotification: (notification: { method: "notifications/progress"; params: { progressToken: string | number; progress: number; message?: string } }) => Promise<void>;
}

/** The key under which the handler puts the principal in the transport's AuthInfo.extra. */
export const PRINCIPAL_KEY = "agentryPrincipal";

/** The tool's context; fails closed (no principal: an error, never an anonymous call). */
export function toolContext(extra: ToolExtra): ToolContext {
  const principal = extra.authInfo?.extra?.[PRINCIPAL_KEY] as Principal | undefined;
  if (!principal) throw new Error("Not authenticated");
  const token = extra._meta?.progressToken;
  return {
    principal,
    signal: extra.signal,
    progress: async (progress, message) => {
      if (token === undefined) return;
      await extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, progress, message } }).catch(() => undefined);
    },
  };
}
