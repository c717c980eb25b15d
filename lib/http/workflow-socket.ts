import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";
import { assertLocalRequest, authenticate, TRUSTED_ADMIN } from "../auth/authenticate.ts";
import { dataScopeFor, hasScope, type Principal } from "../auth/principal.ts";
import type { Settings } from "../config/settings.ts";
import { getRun } from "../db/runs/runs.ts";
import { continuePausedRun } from "../runs/jobs/continue-paused-run.ts";
import { startAgentRun, type StartedRun } from "../runtime/agent-run.ts";
import type { RunEvent } from "../live-runs/events.ts";
import { ContinueError } from "../runtime/paused-run.ts";
import { eventsAfter, getLiveRun, subscribe } from "../live-runs/run-registry.ts";
import { findWorkflow } from "../runtime/workflow/workflow-runtime.ts";
import { resolveComponent } from "../runtime/component-source.ts";
import { ComponentRehydrationError } from "../errors/http-error.ts";
import type { RuntimeAgent } from "../runtime/agents.ts";
import { COMPONENT_VERSION_KEY, stampComponentVersion } from "./routes/component-runs.ts";
import { isRunOf, mayReachLiveRun } from "../runs/live-run-access.ts";
import { getDatabase } from "../server/app-context.ts";
import { log } from "../log.ts";

/**
 * Agno's workflow WebSocket (`/workflows/ws`): one connection authenticates once (a JWT, the
 * security key or a service-account token, as the HTTP API takes them), then starts workflows,
 * continues paused ones and reconnects to running ones, with the same scopes and user isolation as
 * the HTTP routes. Runs started here go on when the socket closes (Agno runs them in the
 * background); reconnect picks them up again. Live events are sent as Agno sends them: SSE-framed
 * text (`event: …\ndata: {…}\n\n`); replayed and tailed events as flat JSON. Served through the
 * `upgrade` hook of `agentry start` (lib/server/upgrade-handlers.ts).
 */

type Message = Record<string, unknown>;

const send = (socket: WebSocket, message: Message | string) => {
  if (socket.readyState === socket.OPEN) socket.send(typeof message === "string" ? message : JSON.stringify(message));
};
const sseFrame = (event: RunEvent) => `event: ${String(event.event)}\ndata: ${JSON.stringify(event)}\n\n`;
const text = (value: unknown) => (typeof value === "string" && value.trim() !== "" ? value : null);

/** The largest message a client may send; a longer one closes its connection with 1009. */
const MAX_MESSAGE_BYTES = 1024 * 1024;

/** The `upgrade` handler of `/workflows/ws` for this process's settings. */
export function workflowSocketHandler(getSettings: () => Settings): (request: IncomingMessage, socket: Duplex, head: Buffer) => void {
  const server = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
  return (request, socket, head) => {
    const settings = getSettings();
    const url = `http://${request.headers.host ?? "localhost"}${request.url ?? "/workflows/ws"}`;
    const headers = new Headers();
    for (const [name, value] of Object.entries(request.headers)) if (typeof value === "string") headers.set(name, value);
    // With no authentication every caller is admin: the handshake must come from a loopback host
    // and, from a browser, this origin or an allowed one (a page elsewhere cannot drive runs).
    if (settings.auth.mode === "none") {
      try {
        assertLocalRequest(new Request(url, { method: "POST", headers }), settings);
      } catch (error) {
        socket.on("error", () => undefined); // a client gone already: nothing to answer
        socket.end(`HTTP/1.1 403 Forbidden\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n${JSON.stringify({ detail: (error as Error).message })}`);
        return;
      }
    }
    const peer = request.socket.remoteAddress ?? "an unknown address";
    server.handleUpgrade(request, socket, head, (ws) => serveSocket(ws, { settings, url, headers, peer }));
  };
}

/**
 * The close code, and the reason to log, for a frame the socket's reader refused (by ws's error
 * codes): a message past {@link MAX_MESSAGE_BYTES} is 1009 (too big), text that is not UTF-8 1007,
 * any other broken frame 1002.
 */
function closeFor(error: Error & { code?: string }): { code: number; reason: string } {
  if (error.code === "WS_ERR_UNSUPPORTED_MESSAGE_LENGTH") return { code: 1009, reason: `a message over ${MAX_MESSAGE_BYTES} bytes` };
  return { code: error.code === "WS_ERR_INVALID_UTF8" ? 1007 : 1002, reason: error.message };
}

/** One connection: `peer` is the address of its TCP socket, for the log. */
function serveSocket(socket: WebSocket, { settings, url, headers, peer }: { settings: Settings; url: string; headers: Headers; peer: string }): void {
  // A frame the reader refuses (one over maxPayload, a broken one) is emitted as `error`, before or
  // after authentication; with no listener it would be an uncaught exception. ws starts the close
  // itself; this closes a socket it left open and logs one line.
  socket.on("error", (error: Error & { code?: string }) => {
    const { code, reason } = closeFor(error);
    if (socket.readyState === socket.OPEN) socket.close(code);
    log.warn(`[workflows/ws] closing the connection from ${peer} with ${code}: ${reason}`);
  });
  const requiresAuth = settings.auth.mode !== "none";
  let principal: Principal | null = requiresAuth ? null : TRUSTED_ADMIN;
  const stops = new Set<() => void>();
  socket.on("close", () => {
    for (const stop of stops) stop();
    stops.clear();
  });
  send(socket, { event: "connected", message: requiresAuth ? "Connected to AgentOS. Please authenticate to continue." : "Connected to AgentOS.", requires_auth: requiresAuth });
  socket.on("message", (data) => {
    let message: Message;
    try {
      const parsed: unknown = JSON.parse(String(data));
      if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error("not an object");
      message = parsed as Message;
    } catch {
      send(socket, { event: "error", error: "Messages are JSON objects with an action" });
      return;
    }
    void handle(message).catch((error: unknown) => {
      log.error(`[workflows/ws] ${String(message.action)}: ${(error as Error)?.stack ?? String(error)}`);
      send(socket, { event: "error", error: "Internal error" });
    });
  });

  async function handle(message: Message): Promise<void> {
    const action = message.action;
    if (action === "ping") return send(socket, { event: "pong" });
    if (action === "authenticate") return authenticateSocket(message);
    if (!principal) {
      return send(socket, { event: "auth_required", error: `Authentication required. Send authenticate action with valid ${settings.auth.mode === "jwt" ? "JWT" : "bearer token"}.` });
    }
    if (action === "start-workflow") return startWorkflow(principal, message);
    if (action === "continue-workflow") return continueWorkflow(principal, message);
    if (action === "reconnect") return reconnect(principal, message);
    send(socket, { event: "error", error: `Unknown action: ${String(action)}` });
  }

  async function authenticateSocket(message: Message): Promise<void> {
    const token = text(message.token);
    if (!token) return send(socket, { event: "auth_error", error: "Token is required" });
    const withToken = new Headers(headers);
    withToken.set("authorization", `Bearer ${token}`);
    withToken.delete("cookie");
    try {
      principal = await authenticate(new Request(url, { headers: withToken }), settings, () => getDatabase(settings));
    } catch (error) {
      principal = requiresAuth ? null : TRUSTED_ADMIN;
      return send(socket, { event: "auth_error", error: (error as Error).message || "Invalid token", error_type: "invalid_token" });
    }
    send(socket, { event: "authenticated", message: "Authentication successful. You can now send commands." });
    if (principal.authenticatedBy === "jwt") send(socket, { event: "authenticated", message: "JWT authentication successful.", user_id: principal.userId });
    if (principal.authenticatedBy === "service_account") send(socket, { event: "authenticated", message: "Service account authentication successful.", user_id: principal.userId });
  }

  /** The workflow a message names and the caller may run, or null (an error was sent). */
  async function runnableWorkflow(caller: Principal, message: Message) {
    const workflowId = text(message.workflow_id);
    if (!workflowId) return void send(socket, { event: "error", error: "workflow_id is required" });
    if (!hasScope(caller, `workflows:${workflowId}:run`)) return void send(socket, { event: "error", error: "Insufficient permissions to run this workflow" });
    // Defined in code, else a stored (Studio) workflow at its current published version (or the message's `version`).
    const version = typeof message.version === "number" && Number.isInteger(message.version) ? message.version : undefined;
    let workflow: RuntimeAgent | undefined;
    try {
      workflow =
        findWorkflow(settings, workflowId) ??
        (await resolveComponent(settings, await getDatabase(settings), { type: "workflow", id: workflowId, version }, { userId: caller.userId, isAdmin: caller.isAdmin }))?.agent;
    } catch (error) {
      if (error instanceof ComponentRehydrationError) return void send(socket, { event: "error", error: error.message, error_type: "component_rehydration_error" });
      throw error;
    }
    if (!workflow) return void send(socket, { event: "error", error: `Workflow ${workflowId} not found` });
    return workflow;
  }

  /** Sends a run's events from `firstEventIndex` on, SSE-framed, until it ends or the socket closes. */
  /**
   * The ends of the runs this socket started or continued, by run id: a run's last event
   * (WorkflowPaused) is sent before its PAUSED row is stored, so a continue sent at once on the
   * same socket waits for that write instead of finding the run still running.
   */
  const ending = new Map<string, Promise<unknown>>();

  function stream(started: StartedRun): void {
    const end = started.done.catch(() => undefined);
    ending.set(started.runId, end);
    void end.then(() => ending.get(started.runId) === end && ending.delete(started.runId));
    const forward = (event: RunEvent) => send(socket, sseFrame(event));
    for (const event of eventsAfter(started.live, started.firstEventIndex - 1)) forward(event);
    if (started.live.done) return;
    const unsubscribe = subscribe(started.live, { onEvent: forward, onEnd: () => stops.delete(unsubscribe) || unsubscribe() });
    stops.add(unsubscribe);
  }

  async function startWorkflow(caller: Principal, message: Message): Promise<void> {
    const workflow = await runnableWorkflow(caller, message);
    if (!workflow) return;
    const input = text(message.message);
    if (!input) return send(socket, { event: "error", error: "message is required" });
    const named = caller.isAdmin ? (text(message.user_id) ?? undefined) : undefined;
    try {
      const scope = dataScopeFor(caller, named);
      const db = await getDatabase(settings);
      const started = await startAgentRun({
        db,
        agent: workflow,
        scope,
        userId: caller.isAdmin ? (named ?? caller.userId ?? null) : caller.userId,
        message: input,
        sessionId: text(message.session_id) ?? undefined,
        metadata: stampComponentVersion(undefined, workflow),
        stream: true,
      });
      stream(started);
    } catch (error) {
      send(socket, { event: "error", error: (error as Error).message });
    }
  }

  async function continueWorkflow(caller: Principal, message: Message): Promise<void> {
    const runId = text(message.run_id);
    const sessionId = text(message.session_id);
    // A stored workflow's run continues on the version it was stamped with (its owner's run: the caller's scope reads it).
    const stored =
      runId && sessionId && !findWorkflow(settings, text(message.workflow_id) ?? "")
        ? await getRun(await getDatabase(settings), { scope: dataScopeFor(caller), runId, sessionId }).catch(() => null)
        : null;
    const stamped = (stored?.run_data.metadata as Message | null | undefined)?.[COMPONENT_VERSION_KEY];
    const workflow = await runnableWorkflow(caller, typeof stamped === "number" ? { ...message, version: stamped } : message);
    if (!workflow) return;
    if (!runId) return send(socket, { event: "error", error: "run_id is required" });
    if (!sessionId) return send(socket, { event: "error", error: "session_id is required to continue a workflow run" });
    const requirements = message.step_requirements;
    if (requirements !== undefined && requirements !== null && (!Array.isArray(requirements) || requirements.some((r) => !r || typeof r !== "object" || typeof (r as Message).step_id !== "string"))) {
      return send(socket, { event: "error", error: "Invalid step_requirements: a list of step requirements, each with its step_id" });
    }
    try {
      await ending.get(runId);
      const db = await getDatabase(settings);
      const started = await continuePausedRun({
        db,
        settings,
        agent: workflow,
        scope: dataScopeFor(caller, caller.isAdmin ? (text(message.user_id) ?? undefined) : undefined),
        runId,
        sessionId,
        resolutions: [],
        stepRequirements: (requirements as Message[] | undefined) ?? null,
        stream: true,
      });
      stream(started);
    } catch (error) {
      const problem = error instanceof ContinueError ? (error.status === 404 ? `Run ${runId} not found` : error.message) : (error as Error).message;
      send(socket, { event: "error", error: problem });
    }
  }

  async function reconnect(caller: Principal, message: Message): Promise<void> {
    const runId = text(message.run_id);
    if (!runId) return send(socket, { event: "error", error: "run_id is required for subscription" });
    const workflowId = text(message.workflow_id);
    const sessionId = text(message.session_id);
    if (!caller.isAdmin && !sessionId) return send(socket, { event: "error", error: "session_id is required to reconnect to a workflow run" });
    if (!caller.isAdmin && !workflowId) return send(socket, { event: "error", error: "workflow_id is required to reconnect to a workflow run" });
    if (workflowId && !hasScope(caller, `workflows:${workflowId}:run`)) return send(socket, { event: "error", error: "Insufficient permissions to reconnect to this workflow" });
    const last = typeof message.last_event_index === "number" ? message.last_event_index : null;
    const live = getLiveRun(runId);
    if (live && (!workflowId || mayReachLiveRun(caller, live, { component: { type: "workflow", id: workflowId }, sessionId })) && live.componentType === "workflow") {
      if (!caller.isAdmin && (live.userId !== caller.userId || live.sessionId !== sessionId)) return send(socket, { event: "error", error: `Run ${runId} not found` });
      if (live.done) {
        const events = eventsAfter(live, null);
        send(socket, { event: "replay", run_id: runId, status: live.status, total_events: events.length, message: `Run ${live.status}. Replaying all events.` });
        for (const event of events) send(socket, event);
        return;
      }
      const missed = eventsAfter(live, last);
      if (missed.length > 0) {
        send(socket, {
          event: "catch_up",
          run_id: runId,
          status: "running",
          missed_events: missed.length,
          current_event_count: live.nextIndex,
          message: `Catching up on ${missed.length} missed events.`,
        });
        for (const event of missed) send(socket, event);
      }
      send(socket, { event: "subscribed", run_id: runId, status: "running", current_event_count: live.nextIndex, message: "Subscribed to workflow run. You will receive new events as they occur." });
      const unsubscribe = subscribe(live, { onEvent: (event) => send(socket, event), onEnd: () => stops.delete(unsubscribe) || unsubscribe() });
      stops.add(unsubscribe);
      return;
    }
    const db = await getDatabase(settings);
    let stored: Awaited<ReturnType<typeof getRun>> = null;
    try {
      stored = await getRun(db, { scope: dataScopeFor(caller), runId, sessionId: sessionId ?? undefined });
    } catch (error) {
      return send(socket, { event: "error", error: (error as Error).message });
    }
    if (!stored || (workflowId && !isRunOf(stored, { type: "workflow", id: workflowId })) || stored.run_type !== "workflow") {
      return send(socket, { event: "error", error: `Run ${runId} not found in buffer or database` });
    }
    const events = ((stored.run_data.events as RunEvent[] | undefined) ?? []).filter((e) => last === null || (e.event_index as number) > last);
    send(socket, {
      event: "replay",
      run_id: runId,
      status: stored.status,
      total_events: events.length,
      message: events.length > 0 ? "Run completed. Replaying stored events from database." : "Run completed but no events stored past the requested index.",
    });
    for (const event of events) send(socket, event);
  }

  void stops;
}
