import { z } from "zod";
import { hasScope, type Principal } from "../../auth/principal.ts";
import type { TeamDefinition } from "../../config/define.ts";
import type { Settings } from "../../config/settings.ts";
import type { WorkflowStep } from "../../config/workflow.ts";
import { getRun, getRuns } from "../../db/runs/runs.ts";
import { startAgentRun, type StartedRun } from "../../runtime/agent-run.ts";
import { ContinueError } from "../../runtime/paused-run.ts";
import { componentOf, type RuntimeAgent } from "../../runtime/agents.ts";
import { enqueueBackgroundRun } from "../../runs/background.ts";
import { MAX_IDEMPOTENCY_KEY_LENGTH, submitDurableRun } from "../../runs/jobs/durable-submit.ts";
import { queueCoordination } from "../../queue/embedded-worker.ts";
import { cancelComponentRun } from "../../runs/cancel.ts";
import { isRunOf, mayReachLiveRun } from "../../runs/live-run-access.ts";
import { continuePausedRun } from "../../runs/jobs/continue-paused-run.ts";
import { FINAL_STATUSES, finalEventsOf, followRun } from "../../coordination/follow-run.ts";
import { endsRunOf, type RunEvent } from "../../live-runs/events.ts";
import type { Db } from "../../db/open-database.ts";
import type { DataScope } from "../../db/scope.ts";
import { getLiveRun, requestCancel } from "../../live-runs/run-registry.ts";
import type { RunOutput } from "../../runtime/run-output.ts";
import { refuseUnsendableAttachments, UnsendableAttachmentError } from "../../runtime/user-content.ts";
import { HttpError } from "../../errors/http-error.ts";
import { resolveComponent, type ComponentCaller } from "../../runtime/component-source.ts";
import { getDatabase } from "../../server/app-context.ts";
import { errorResponse } from "../errors.ts";
import { defineRoute, type DataLoaderContext } from "../route.ts";
import { CancelRunResponseSchema, ContinueRunForm, CreateRunForm, ListRunsQuery, ResumeRunForm, RunOutputSchema, RunSessionQuery } from "../schemas/agents.ts";
import type { AgentParams, AgentRunParams, TeamParams, TeamRunParams, WorkflowParams, WorkflowRunParams } from "../schemas/agents.ts";
import { RunSchema, TeamRunSchema, WorkflowRunSchema } from "../schemas/sessions.ts";
import { valueProblem } from "../schemas/output-schema.ts";
import { frameStream, iterableEventStream, runEventStream, sseResponse } from "../sse.ts";
import { shownRun, toRunSchema, toTeamRunSchema, toWorkflowRunSchema } from "../views/run-views.ts";
import { classifyUploads } from "./uploads.ts";
import { answerExternalRun } from "./external-agent-runs.ts";
import { parseResolutions } from "./continue-input.ts";
import { sessionOr404 } from "./session-resource.ts";

/**
 * The run routes of a component — an agent (`/agents/{agent_id}/runs…`) or a team
 * (`/teams/{team_id}/runs…`) — as one implementation: a team run is a run of its leader
 * (lib/runtime/team/), so submitting, background and durable runs, streaming, polling, cancel,
 * continue and resume are the same code for both.
 */
export interface ComponentSpec {
  type: "agent" | "team" | "workflow";
  /** The path prefix, with the component's id parameter. */
  base: "/agents/{agent_id}" | "/teams/{team_id}" | "/workflows/{workflow_id}";
  params: typeof AgentParams | typeof TeamParams | typeof WorkflowParams;
  runParams: typeof AgentRunParams | typeof TeamRunParams | typeof WorkflowRunParams;
  tag: "Agents" | "Teams" | "Workflows";
  /** "an agent" / "a team", for summaries. */
  a: string;
  /** The run's output, for summaries. */
  output: "RunOutput" | "TeamRunOutput" | "WorkflowRunOutput";
  /** The configured component the path names, or undefined (404 `notFound`). */
  find(settings: Settings, id: string): RuntimeAgent | undefined;
  notFound: string;
}

type ComponentPathInput = { params: { agent_id: string } | { team_id: string } | { workflow_id: string }; form?: unknown; query?: unknown };

/**
 * A run form's or query's `version`: a stored component's version number. Absent or empty: its
 * current published version. Not an integer: 422, as Agno's int form field answers.
 */
export function requestedVersion(value: unknown): number | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  const text = String(value).trim();
  if (!/^-?\d{1,9}$/.test(text))
    throw new HttpError(422, [{ type: "int_parsing", loc: ["body", "version"], msg: "Input should be a valid integer, unable to parse string as an integer", input: value }]);
  return Number(text);
}

/** Who asks for a component: a draft version is for its owner and admins (lib/runtime/component-source.ts). */
export function componentCaller(principal: Principal | null): ComponentCaller {
  return principal ? { userId: principal.userId, isAdmin: principal.isAdmin } : { userId: null, isAdmin: false };
}

/**
 * The component the path names, as a route's `resource` loader: one defined in code, else a
 * stored (Studio) component at the form's or query's `version`, else its current published
 * version; 404 when there is none the caller may run. A stored component that cannot be built is
 * a 422 `component_rehydration_error`.
 */
export function pathComponent(c: ComponentSpec) {
  return async (input: ComponentPathInput, { settings, principal }: { settings: Settings; principal: Principal | null }): Promise<RuntimeAgent> => {
    const id = idOf(input.params);
    const found = c.find(settings, id);
    if (found) return found;
    const version = requestedVersion((input.form as { version?: unknown } | undefined)?.version ?? (input.query as { version?: unknown } | undefined)?.version);
    const resolved = await resolveComponent(settings, await getDatabase(settings), { type: c.type, id, version }, componentCaller(principal));
    if (!resolved) throw new HttpError(404, c.notFound);
    return resolved.agent;
  };
}

type RunPathInput = ComponentPathInput & { params: { run_id: string } };

/**
 * The component of a run the path names (continue, resume, cancel, poll): one defined in code;
 * else the stored component at the version the run was stamped with (`agno_component_version` in
 * its metadata, read in the caller's scope), so a continue runs the version the run started on —
 * a draft's run included, whose component may have no published version; else the path's
 * component as pathComponent finds it.
 */
function componentAtRun(c: ComponentSpec) {
  return async (input: RunPathInput, context: DataLoaderContext & { principal: Principal | null }): Promise<RuntimeAgent> => {
    const found = c.find(context.settings, idOf(input.params));
    if (found) return found;
    const { db, scope } = await context.data();
    const sessionId = (input.query as { session_id?: string } | undefined)?.session_id ?? (input.form as { session_id?: string } | undefined)?.session_id;
    const run = await getRun(db, { scope, runId: input.params.run_id, sessionId: sessionId || undefined });
    const stamped = (run?.run_data.metadata as Record<string, unknown> | null | undefined)?.[COMPONENT_VERSION_KEY];
    // Only a run of the path's very component says which version of it to use.
    if (run && typeof stamped === "number" && isRunOf(run, { type: c.type, id: idOf(input.params) })) {
      // The version was the caller's to use when the run was submitted, and the run is theirs.
      const resolved = await resolveComponent(context.settings, db, { type: c.type, id: idOf(input.params), version: stamped }, { userId: run.user_id ?? null, isAdmin: true });
      if (resolved) return resolved.agent;
    }
    return pathComponent(c)(input, context);
  };
}

function idOf(params: ComponentPathInput["params"]): string {
  return "workflow_id" in params ? params.workflow_id : "team_id" in params ? params.team_id : params.agent_id;
}

/** The run metadata key holding the stored component version a run uses. */
export const COMPONENT_VERSION_KEY = "agno_component_version";

/** A run's metadata with the component version it runs stamped in; a client-sent value is never kept. */
export function stampComponentVersion(metadata: Record<string, unknown> | null | undefined, agent: RuntimeAgent): Record<string, unknown> | null | undefined {
  const { [COMPONENT_VERSION_KEY]: _sent, ...rest } = metadata ?? {};
  if (agent.stored) return { ...rest, [COMPONENT_VERSION_KEY]: agent.stored.version };
  if (!metadata) return metadata;
  return rest;
}

/** The path's component once the query's session is found in the caller's scope (404 naming the session otherwise). */
function componentInSession(c: ComponentSpec) {
  return async (input: ComponentPathInput & { query: { session_id: string } }, context: DataLoaderContext & { principal: Principal | null }): Promise<RuntimeAgent> => {
    const agent = await pathComponent(c)(input, context);
    const { db, scope } = await context.data();
    await sessionOr404(db, { scope, sessionId: input.query.session_id });
    return agent;
  };
}

/** A stored run of the path's component (its `run_id`, in the query's session when named); 404 "Run not found" otherwise. */
function componentRun(c: ComponentSpec) {
  return async (input: ComponentPathInput & { params: { run_id: string }; query: { session_id?: string } }, context: DataLoaderContext & { principal: Principal | null }) => {
    const agent = await componentAtRun(c)(input, context);
    const { db, scope } = await context.data();
    const run = await getRun(db, { scope, runId: input.params.run_id, sessionId: input.query.session_id });
    if (!run || !isRunOf(run, componentOf(agent))) throw new HttpError(404, "Run not found");
    return run;
  };
}

const PLURAL = { agent: "agents", team: "teams", workflow: "workflows" } as const;

/** A route reading the path's component (`agents:<id>:read` / `teams:<id>:read` suffices); `resource` is the component. */
export const readsComponent = (c: ComponentSpec) => ({ tags: [c.tag], access: { permission: `${PLURAL[c.type]}:read`, resourceParam: `${c.type}_id` }, resource: pathComponent(c) }) as const;
/**
 * The agents and teams a stored team or workflow runs (members, step agents and teams, nested
 * ones too): a caller confined to some of them by per-resource scopes (`agents:<id>:run`) may not
 * reach the others through a component that names them (403 naming the scope). Components defined
 * in code are the operator's to compose, and are not checked.
 */
export function requireChildRunScopes(principal: Principal | null, agent: RuntimeAgent): void {
  if (!agent.stored || !principal) return;
  const children: { family: "agents" | "teams"; id: string }[] = [];
  const walkAgent = (child: RuntimeAgent) => {
    children.push({ family: child.team ? "teams" : "agents", id: child.definition.id });
    for (const member of child.team?.members ?? []) walkAgent(member);
  };
  const walkTeam = (team: TeamDefinition) => {
    children.push({ family: "teams", id: team.id });
    for (const member of team.members) "members" in member ? walkTeam(member) : children.push({ family: "agents", id: member.id });
  };
  const walkStep = (step: WorkflowStep) => {
    if (step.type === "Step") {
      if (step.agent) children.push({ family: "agents", id: step.agent.id });
      if (step.team) walkTeam(step.team);
      return;
    }
    for (const inner of step.type === "Router" ? step.choices : [...step.steps, ...(step.type === "Condition" ? (step.elseSteps ?? []) : [])]) walkStep(inner);
  };
  for (const member of agent.team?.members ?? []) walkAgent(member);
  for (const step of agent.workflow?.definition.steps ?? []) walkStep(step);
  for (const { family, id } of children) {
    if (!hasScope(principal, `${family}:run`) && !hasScope(principal, `${family}:${id}:run`))
      throw new HttpError(403, `Insufficient permissions. Required scope(s): ${family}:run (${agent.definition.id} runs ${id})`);
  }
}

/** The path's component for a route that runs it: what the caller may run through it is checked too. */
function runnableComponent<I extends ComponentPathInput, C extends { settings: Settings; principal: Principal | null }>(load: (input: I, context: C) => Promise<RuntimeAgent>) {
  return async (input: I, context: C): Promise<RuntimeAgent> => {
    const agent = await load(input, context);
    requireChildRunScopes(context.principal, agent);
    return agent;
  };
}

/**
 * The path's component for a route an external agent does not serve (lib/runtime/external/): 501
 * "This agent does not support <feature>", as Agno's `_require_capability` answers, before anything
 * else is checked. External agents have run and poll only.
 */
function notExternal<L extends (...args: never[]) => Promise<RuntimeAgent>>(load: L, feature: string): L {
  return (async (...args: Parameters<L>): Promise<RuntimeAgent> => {
    const agent = await load(...args);
    if (agent.external) throw new HttpError(501, `This agent does not support ${feature}`);
    return agent;
  }) as L;
}

/** A route running the path's component (`agents:<id>:run` / `teams:<id>:run` suffices). */
const runs = (c: ComponentSpec) => ({ tags: [c.tag], access: { permission: `${PLURAL[c.type]}:run`, resourceParam: `${c.type}_id` }, resource: runnableComponent(pathComponent(c)) }) as const;
/** A route acting on one run of the path's component: the component at the run's version. */
const runsOneRun = (c: ComponentSpec) => ({ ...runs(c), resource: runnableComponent(componentAtRun(c)) }) as const;

/**
 * The run's owner: a non-admin is always itself; an admin may name a user, else the run is its
 * own when it has a user id (a signed-in dashboard admin, a JWT admin) and shared when not.
 */
function ownerOf(principal: Principal, requested?: string): string | null {
  return principal.isAdmin ? (requested ?? principal.userId ?? null) : principal.userId;
}

/**
 * Under isolation a non-admin must name the session, so ownership can be checked (400 otherwise).
 * One without a user id to own a session has had its 403 already, from the data scope.
 */
function requireSessionForNonAdmin(principal: Principal, sessionId?: string): void {
  if (principal.isAdmin) return;
  if (!sessionId) throw new HttpError(400, "session_id is required");
}

/** Runs live in the default database; the caller acts as itself. */
const RUN_DATA = { db: "default" } as const;
/** The same, where an admin may act for the form's `user_id` (submitting or continuing a run). */
const RUN_DATA_FOR_FORM_USER = { db: "default", userFrom: "form" } as const;

/**
 * The status a non-streamed run that ended in ERROR answers with when it is not 200: the caller
 * must act — no model provider configured (503), input the model cannot take (415 for a media
 * type, 422 for the conversation). Keyed on the exact `error_type` (lib/models/model-provider-error.ts).
 */
const CALLER_MUST_ACT: ReadonlyMap<string, number> = new Map([
  ["model_not_configured_error", 503],
  ["model_unsupported_input_error", 415],
  ["model_invalid_prompt_error", 422],
]);

/** The HTTP status of a non-streamed run that ended in ERROR (failedRunAnswer). */
function failedRunStatus(type: ComponentSpec["type"], errorType: string | undefined): number {
  const status = CALLER_MUST_ACT.get(errorType ?? "run_error");
  if (status !== undefined) return status;
  // A workflow's failure is an exception in Agno, answered 500; an agent's or team's run returns its RunOutput.
  return type === "workflow" ? 500 : 200;
}

/**
 * A non-streamed run that ended in ERROR. An agent's or team's answers 200 with its RunOutput
 * (`status: "ERROR"`, `error`, the provider's message as `content`), as Agno's routes return
 * `run_response.to_dict()` whatever its status; see failedRunStatus for the exceptions, which
 * answer `{detail, error_type, run_id, session_id}`. `opaque`: a 500 says only "Internal server
 * error" (the failure's text stays on the stored run), as Agno's workflow continue answers.
 */
function failedRunAnswer(type: ComponentSpec["type"], output: RunOutput, opaque: boolean): Response | RunOutput {
  const errorType = output.error?.error_type ?? "run_error";
  const status = failedRunStatus(type, errorType);
  if (status === 200) return output;
  const detail = opaque && status === 500 ? "Internal server error" : (output.error?.message ?? "Run failed");
  return new Response(JSON.stringify({ detail, error_type: errorType, run_id: output.run_id, session_id: output.session_id }), {
    status,
    headers: { "content-type": "application/json" },
  });
}

/** Streams a run to the client; a client that disconnects from an inline run cancels it. */
function streamRun(started: StartedRun): Response {
  const lastEventIndex = started.firstEventIndex > 0 ? started.firstEventIndex - 1 : null;
  return sseResponse(runEventStream({ live: started.live, lastEventIndex, onDisconnect: () => requestCancel(started.runId) }));
}

/** SSE reconnects send the last event they saw as Last-Event-ID (its event_index). */
function lastEventIdOf(request: Request): number | undefined {
  const header = request.headers.get("last-event-id");
  if (header === null || header.trim() === "") return undefined;
  const index = Number(header);
  if (!Number.isInteger(index) || index < -1) throw new HttpError(422, `Last-Event-ID must be an event_index (an integer), got '${header.slice(0, 40)}'`);
  return index;
}

/** 202 for a background submit: the run to poll. */
function accepted({ runId, sessionId, status }: { runId: string; sessionId: string; status: string }): Response {
  return new Response(JSON.stringify({ run_id: runId, session_id: sessionId, status }), {
    status: 202,
    headers: { "content-type": "application/json" },
  });
}

/** The Idempotency-Key header of a background submit (at most 512 characters, else 422). */
function idempotencyKeyOf(request: Request): string | null {
  const key = request.headers.get("idempotency-key");
  if (key === null) return null;
  if (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    throw new HttpError(422, `Idempotency-Key must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters long (got ${key.length})`);
  }
  return key;
}

/**
 * The event stream of a durable run, wherever it executes: this process's live run when its
 * worker runs it here, otherwise tailed from Redis or the database.
 */
function durableRunStream({
  settings,
  db,
  scope,
  runId,
  after,
  preamble,
}: {
  settings: Settings;
  db: Db;
  scope: DataScope;
  runId: string;
  after: number | null;
  preamble?: { name: string; payload: unknown }[];
}): ReadableStream<Uint8Array> {
  return iterableEventStream({
    preamble,
    events: (signal) => followRun({ db, scope, runId, after, coordination: queueCoordination(settings), pollMs: settings.queue.pollIntervalMs, signal }),
  });
}

/** A run's `metadata` form field, decoded: a JSON object or nothing; anything else is a 400 (as in Agno). */
function runMetadata(value: unknown): Record<string, unknown> | null | undefined {
  if (value === undefined || value === null || (typeof value === "object" && !Array.isArray(value))) return value as Record<string, unknown> | null | undefined;
  throw new HttpError(400, "Invalid metadata parameter: expected a JSON object");
}

async function finishedRun(type: ComponentSpec["type"], started: StartedRun, { opaque = false }: { opaque?: boolean } = {}): Promise<Response | RunOutput> {
  const output = await started.done;
  return output.status === "ERROR" ? failedRunAnswer(type, output, opaque) : output;
}

const createRun = (c: ComponentSpec) =>
  defineRoute({
    method: "POST",
    path: `${c.base}/runs`,
    summary: `Run ${c.a} (stream=true: SSE events; stream=false: the ${c.output})`,
    ...runs(c),
    params: c.params,
    form: CreateRunForm,
    response: RunOutputSchema,
    data: RUN_DATA_FOR_FORM_USER,
    handler: async ({ input, resource: agent, principal, scope, ownScope, db, settings, request }) => {
      const form = input.form;
      const metadata = stampComponentVersion(runMetadata(form.metadata), agent);
      if (agent.external) {
        return answerExternalRun({
          db,
          agent,
          scope,
          userId: ownerOf(principal, form.user_id),
          message: form.message,
          sessionId: principal.sessionId ?? form.session_id,
          metadata,
          stream: form.stream,
          background: form.background,
          files: input.files.files?.length ?? 0,
        });
      }
      if (c.type === "workflow") refuseWorkflowInput(agent, form.message, form.version, input.files.files?.length ?? 0);
      const uploads = await classifyUploads(input.files.files ?? []);
      // Before the session or run is stored: an upload the model cannot take is the caller's to fix.
      try {
        refuseUnsendableAttachments(agent.definition.model, uploads.attachments);
      } catch (error) {
        if (error instanceof UnsendableAttachmentError) throw new HttpError(415, error.message);
        throw error;
      }
      const runRequest = {
        db,
        agent,
        scope,
        userId: ownerOf(principal, form.user_id),
        message: form.message,
        // A JWT's session_id claim overrides the form's, as in Agno.
        sessionId: principal.sessionId ?? form.session_id,
        sessionState: form.session_state,
        metadata,
        dependencies: form.dependencies,
        outputSchema: form.output_schema ?? undefined,
        attachments: uploads.attachments,
        inputMedia: uploads.media,
        stream: form.stream,
      };
      if (form.background && settings.queue.durable) {
        // Durable: the PENDING run and its job are committed before the 202; any worker runs it.
        const submitted = await submitDurableRun(db, { ...runRequest, settings, idempotencyKey: idempotencyKeyOf(request) });
        if (!form.stream) return accepted(submitted);
        return sseResponse(durableRunStream({ settings, db, scope: ownScope, runId: submitted.runId, after: null }));
      }
      const started = await startAgentRun({
        ...runRequest,
        // Background runs wait for a slot (at most queue.maxConcurrency at once, one per session).
        defer: form.background ? (execute, run) => enqueueBackgroundRun({ ...run, run: execute }, settings.queue.maxConcurrency) : undefined,
      });
      if (form.background && !form.stream) return accepted({ runId: started.runId, sessionId: started.sessionId, status: "PENDING" });
      if (form.background) {
        // A background stream keeps running when the client goes away; it can resume later.
        return sseResponse(runEventStream({ live: started.live, lastEventIndex: null }));
      }
      return form.stream ? streamRun(started) : finishedRun(c.type, started);
    },
  });

const listRuns = (c: ComponentSpec) => {
  const resource = notExternal(componentInSession(c), "run listing");
  return defineRoute({
    method: "GET",
    path: `${c.base}/runs`,
    summary: `The ${c.type}'s runs in a session`,
    ...readsComponent(c),
    resource,
    params: c.params,
    query: ListRunsQuery,
    response: z.array(c.type === "workflow" ? WorkflowRunSchema : c.type === "team" ? TeamRunSchema : RunSchema),
    data: RUN_DATA,
    handler: async ({ input, resource: agent, scope, db }) => {
      const runs = await getRuns(db, {
        scope,
        sessionId: input.query.session_id,
        status: input.query.status,
        ...(c.type === "workflow" ? { workflowId: agent.definition.id } : c.type === "team" ? { teamId: agent.definition.id } : { agentId: agent.definition.id }),
      });
      return runs
        .filter((r) => isRunOf(r, componentOf(agent)))
        .map((r) => (c.type === "workflow" ? toWorkflowRunSchema(r.run_data) : c.type === "team" ? toTeamRunSchema(r.run_data) : toRunSchema(r.run_data)));
    },
  });
};

const getComponentRun = (c: ComponentSpec) =>
  defineRoute({
    method: "GET",
    path: `${c.base}/runs/{run_id}`,
    summary: "One run (the poll endpoint for background runs)",
    ...readsComponent(c),
    resource: componentRun(c),
    params: c.runParams,
    query: RunSessionQuery,
    response: RunOutputSchema,
    data: RUN_DATA,
    handler: ({ resource: run }) => shownRun(run.run_data),
  });

const cancelRun = (c: ComponentSpec) => {
  const resource = notExternal(runsOneRun(c).resource, "cancel_run");
  return defineRoute({
    method: "POST",
    path: `${c.base}/runs/{run_id}/cancel`,
    summary: `Cancel a run (the intent is kept even if the run has not started yet)${c.type === "team" ? "; its member runs end with it" : ""}`,
    ...runsOneRun(c),
    resource,
    params: c.runParams,
    query: RunSessionQuery,
    response: CancelRunResponseSchema,
    data: RUN_DATA,
    handler: async ({ input, resource: agent, principal, db, settings }) => {
      const sessionId = input.query.session_id;
      requireSessionForNonAdmin(principal, sessionId);
      const runId = input.params.run_id;
      const result = await cancelComponentRun({ db, settings, principal }, { component: componentOf(agent), runId, sessionId });
      if (result.outcome === "not_found") throw new HttpError(404, "Run not found");
      // 200 either way, as in Agno; `{}` means the run ends CANCELLED.
      if (result.outcome === "finished") return { cancelled: false, status: result.status, message: `Run ${runId} had already finished (${result.status}); nothing was cancelled` };
      return {};
    },
  });
};

const continueRun = (c: ComponentSpec) => {
  const resource = notExternal(runsOneRun(c).resource, "continue_run");
  return defineRoute({
    method: "POST",
    path: `${c.base}/runs/{run_id}/continue`,
    summary: "Continue a paused run with the decisions for its requirements",
    ...runsOneRun(c),
    resource,
    params: c.runParams,
    form: ContinueRunForm,
    response: RunOutputSchema,
    data: RUN_DATA_FOR_FORM_USER,
    handler: async ({ input, resource: agent, principal, scope, db, settings }) => {
      const form = input.form;
      if (!form.session_id) throw new HttpError(400, "session_id is required to continue a run");
      // A pending required approval blocks a continue unless the caller may approve (Agno's approvals:write).
      const approver = { userId: principal.userId, mayApprove: hasScope(principal, "approvals:write") };
      if (form.background && c.type === "workflow") {
        throw new HttpError(
          409,
          "background=true continuation is only available for durably-submitted workflow runs (a paused queue ticket); this run has none. Retry without background, or submit the workflow with background=true and a durable queue.",
        );
      }
      if (form.background) throw new HttpError(501, "Background runs are not available in this build yet; send background=false");
      const resolutions = c.type === "workflow" ? [] : parseResolutions({ tools: form.tools, requirements: form.requirements });
      const stepRequirements = c.type === "workflow" ? parseStepRequirements(form.step_requirements) : null;
      const runId = input.params.run_id;
      // Agno's workflow continue keeps its 404/409 (and 400) but answers every 500 "Internal server error", echoing nothing of the failure.
      const opaque = c.type === "workflow";
      try {
        const started = await continuePausedRun({ db, settings, agent, scope, runId, sessionId: form.session_id, resolutions, stepRequirements, stream: form.stream, approver });
        return form.stream ? streamRun(started) : await finishedRun(c.type, started, { opaque });
      } catch (error) {
        if (error instanceof ContinueError) throw new HttpError(error.status, error.message);
        if (opaque) return errorResponse(error, undefined, { opaque });
        throw error;
      }
    },
  });
};

const resumeRun = (c: ComponentSpec) =>
  defineRoute({
    method: "POST",
    path: `${c.base}/runs/{run_id}/resume`,
    summary: "Reconnect to a run's event stream from an event index",
    ...runsOneRun(c),
    params: c.runParams,
    form: ResumeRunForm,
    data: RUN_DATA,
    handler: async ({ input, resource: agent, principal, scope, db, settings, request }) => {
      const { session_id: sessionId } = input.form;
      const lastIndex = input.form.last_event_index ?? lastEventIdOf(request);
      requireSessionForNonAdmin(principal, sessionId);
      const runId = input.params.run_id;
      const live = getLiveRun(runId);
      const component = componentOf(agent);
      const mine = live !== undefined && mayReachLiveRun(principal, live, { component, sessionId });
      // A durable attempt that ended here without ending the run (queued for a retry, lease lost)
      // is not the run's stream: the durable path below follows the run wherever it goes next.
      const attemptOnly = settings.queue.durable && live?.done && (live.status === "PENDING" || live.status === "RUNNING");
      if (live && mine && !attemptOnly) {
        const from = lastIndex ?? null;
        return sseResponse(
          runEventStream({
            live,
            lastEventIndex: from,
            preamble: (missed) =>
              live.done
                ? [
                    {
                      name: "replay",
                      payload: {
                        event: "replay",
                        run_id: runId,
                        status: live.status,
                        total_events: live.nextIndex,
                        total_buffered: live.events.length,
                        last_event_index_requested: from,
                        message: `Replaying ${missed.length} events of a finished run`,
                      },
                    },
                  ]
                : [
                    { name: "catch_up", payload: { event: "catch_up", run_id: runId, missed_events: missed.length, current_event_count: live.nextIndex } },
                    { name: "subscribed", payload: { event: "subscribed", run_id: runId, status: "running", current_event_count: live.nextIndex } },
                  ],
          }),
        );
      }
      const stored = await getRun(db, { scope, runId, sessionId });
      if (!stored || !isRunOf(stored, component)) {
        return sseResponse(frameStream([{ name: "error", payload: { event: "error", error: `Run ${runId} not found in buffer or database` } }]));
      }
      if (settings.queue.durable && (stored.status === "PENDING" || stored.status === "RUNNING")) {
        // Executing on another replica (or waiting for a worker): tail it from Redis or the database.
        const from = lastIndex ?? null;
        return sseResponse(
          durableRunStream({
            settings,
            db,
            scope,
            runId,
            after: from,
            preamble: [
              { name: "catch_up", payload: { event: "catch_up", run_id: runId, last_event_index_requested: from } },
              { name: "subscribed", payload: { event: "subscribed", run_id: runId, status: stored.status === "PENDING" ? "pending" : "running" } },
            ],
          }),
        );
      }
      const all = (stored.run_data.events as RunEvent[] | undefined) ?? [];
      // A durable run that ended without running to its final event (cancelled or failed while
      // queued) still says how it ended.
      const unfinished = settings.queue.durable && FINAL_STATUSES.has(stored.status ?? "") && !all.some((e) => endsRunOf(e, runId));
      const events = [...all, ...(unfinished ? finalEventsOf(stored, ((all.at(-1)?.event_index as number | undefined) ?? -1) + 1) : [])].filter(
        (e) => lastIndex === undefined || (e.event_index as number) > lastIndex,
      );
      return sseResponse(
        frameStream([
          {
            name: "replay",
            payload: {
              event: "replay",
              run_id: runId,
              status: stored.status,
              total_events: events.length,
              total_buffered: 0,
              last_event_index_requested: lastIndex ?? null,
              message: "Replaying events stored with the run",
            },
          },
          ...events.map((e) => ({ name: String(e.event), payload: e })),
        ]),
      );
    },
  });

/**
 * A workflow run's input, checked before anything is stored: no uploads (Agno's workflow form has
 * none), no `version` for a workflow defined in code (it has none: 404 as for an unknown version), and a
 * message matching the workflow's `inputSchema` when it has one (400).
 */
function refuseWorkflowInput(agent: RuntimeAgent, message: string, version: string | undefined, files: number): void {
  if (version !== undefined && version !== "" && !agent.stored) throw new HttpError(404, "Workflow not found");
  if (files > 0) throw new HttpError(400, "Workflows take no files: send the input as message");
  const schema = agent.workflow?.definition.inputSchema;
  if (!schema) return;
  let value: unknown;
  try {
    value = JSON.parse(message);
  } catch {
    throw new HttpError(400, "message must be JSON matching the workflow's input_schema");
  }
  const problem = valueProblem(schema, value);
  if (problem) throw new HttpError(400, `message does not match the workflow's input_schema: ${problem}`);
}

/** The continue form's `step_requirements`: a JSON list of Agno's StepRequirement dicts, or nothing (the run's own). */
function parseStepRequirements(value: unknown): Record<string, unknown>[] | null {
  if (value === undefined || value === null || value === "") return null;
  let parsed: unknown;
  try {
    parsed = typeof value === "string" ? JSON.parse(value) : value;
  } catch {
    throw new HttpError(400, "Invalid JSON in step_requirements field");
  }
  if (!Array.isArray(parsed) || parsed.some((r) => !r || typeof r !== "object" || Array.isArray(r) || typeof (r as { step_id?: unknown }).step_id !== "string")) {
    throw new HttpError(400, "Invalid structure or content for step_requirements: a list of step requirements, each with its step_id");
  }
  return parsed as Record<string, unknown>[];
}

/** The run routes of agents, teams and workflows: one implementation, three paths. */
export function componentRunRoutes(c: ComponentSpec) {
  return [createRun(c), listRuns(c), getComponentRun(c), cancelRun(c), continueRun(c), resumeRun(c)];
}
