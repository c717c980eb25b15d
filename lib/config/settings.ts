import {
  ConfigError,
  FileConfigSchema,
  type AgentDefinition,
  type EmbedderSpec,
  type FileConfig,
  type KnowledgeDefinition,
  type ModelSpec,
  type RegistryToolkitLike,
  type TeamDefinition,
} from "./define.ts";
import type { LearningMachineConfig } from "./learning-config.ts";
import { modelsFromEnv } from "./model-from-env.ts";
import { embedderFromEnv } from "./embedder-from-env.ts";
import { defineWorkflow, type WorkflowDefinition, type WorkflowStep } from "./workflow.ts";
import type { Env } from "./env.ts";
import { resolveDashboardSettings, type DashboardSettings } from "./dashboard-settings.ts";
import { parseTrustedProxies, type ProxyRange } from "./trusted-proxies.ts";
import { mcpFromFile, resolveMcp, type McpSettings } from "./mcp-settings.ts";
import { isExternalAgentDefinition, type ExternalAgentDefinition } from "./external-agent.ts";

/** How the API authenticates its callers (`auth.mode`, decided from the configured keys). */
export type AuthMode = "none" | "security_key" | "jwt";

/**
 * Everything the server runs with, resolved from the environment and agentry.config.ts under one
 * rule: an environment variable wins over the file. Settings that contradict each other fail at
 * start with a message naming both.
 */
export interface Settings {
  osId: string;
  name: string;
  description?: string;
  /** This OS's version (/info's `os_version`): agentry.config.ts's `version`, else "1.0.0" as in Agno. */
  version: string;
  server: { port: number; host: string; allowPublicBind: boolean };
  database: { url: string; schema: string; id: string; autoMigrate: boolean };
  auth: {
    mode: AuthMode;
    securityKey?: string;
    verificationKeys: string[];
    jwksFile?: string;
    /** Inline JWKS JSON (JWT_JWKS). */
    jwks?: string;
    jwksUrl?: string;
    audience?: string;
    issuer?: string;
    userIsolation: boolean;
    /** Reverse proxies whose X-Forwarded-For entry names the client (sign-in throttling); none by default. */
    trustedProxies: ProxyRange[];
    /** Longest lifetime, in days, of a service-account token a non-admin creates. */
    serviceAccountMaxDays: number;
  };
  /** Dashboard sign-in (Auth.js): secret, public origin, OAuth providers. */
  dashboard: DashboardSettings;
  /** Allowed CORS origins. With auth mode `none`, Agno's chat UI origin is added by default. */
  corsOrigins: string[];
  /** Body caps: JSON bodies, whole form bodies (uploads included), each text field of a form. */
  limits: { maxJsonBytes: number; maxUploadBytes: number; maxFormFieldBytes: number };
  docsEnabled: boolean;
  /**
   * Parse every JSON response against its route's declared response schema; a mismatch is a 500
   * whose zod issues are logged (lib/http/dispatch.ts). On in development and tests, off when
   * NODE_ENV is production, unless AGENTRY_CHECK_RESPONSES says otherwise.
   */
  checkResponses: boolean;
  redisUrl?: string;
  queue: QueueSettings;
  scheduler: SchedulerSettings;
  /** The MCP server at /mcp (lib/mcp-server); off by default. */
  mcp: McpSettings;
  metrics: MetricsSettings;
  tracing: TracingSettings;
  agents: AgentDefinition[];
  /** Agents another framework runs (defineExternalAgent, lib/config/external-agent.ts), listed under `agents` in the file. */
  externalAgents: ExternalAgentDefinition[];
  /** Top-level teams (their members need not be listed under agents). */
  teams: TeamDefinition[];
  workflows: WorkflowDefinition[];
  knowledge: KnowledgeSettings;
  /** What Studio's components may use (lib/components/registry.ts reads it with the code-defined components). */
  registry: RegistrySettings;
  studio: StudioSettings;
  quickPrompts: Record<string, string[]>;
  /** Where each setting came from, for the start-up log: `env:NAME`, `config:key` or `default`. */
  sources: Record<string, string>;
}

/**
 * The registry agentry.config.ts declares for Studio's components. Code-defined agents, teams and
 * workflows are added by lib/components/registry.ts; every knowledge base the OS serves is here.
 */
export interface RegistrySettings {
  /** Models a component may name: the configured ones, the environment's model first (unless turned off). */
  models: ModelSpec[];
  /** Toolkits offered to Studio, and whether members (non-admins) may attach each. */
  toolkits: { toolkit: RegistryToolkitLike; membersMayAttach: boolean }[];
  /** Every knowledge base the OS serves, and whether members may attach each. */
  knowledge: { knowledge: KnowledgeDefinition; membersMayAttach: boolean }[];
  /** Output schemas by name. */
  schemas: { name: string; description?: string; schema: Record<string, unknown> }[];
  /** Named learning machines. */
  learning: (LearningMachineConfig & { name: string })[];
}

/** Studio's limits (lib/components/store.ts enforces them; each refusal names its limit). */
export interface StudioSettings {
  limits: { maxComponentsPerUser: number; maxConfigBytes: number; maxInstructionsChars: number };
}

export const DEFAULT_STUDIO_LIMITS = {
  maxComponentsPerUser: 100,
  maxConfigBytes: 262_144,
  maxInstructionsChars: 32_000,
} as const satisfies StudioSettings["limits"];

/** Knowledge bases and how they embed and fetch (lib/knowledge). */
export interface KnowledgeSettings {
  /** Every knowledge base the OS serves: those under knowledge.bases and those agents name, by id. */
  bases: KnowledgeDefinition[];
  /** Null: keyword search only. */
  embedder: EmbedderSpec | null;
  /** Hosts URL ingestion may fetch even when they resolve to private addresses (lower-cased). */
  allowHosts: string[];
  /** How documents are read off the event loop, and the limits each one is held to. */
  limits: KnowledgeLimits;
}

/** What one document may cost to read and chunk (lib/knowledge/readers/reader-limits.ts applies them). */
export interface KnowledgeLimits {
  readerTimeoutSeconds: number;
  readerThreads: number;
  readerMemoryMiB: number;
  maxInflatedBytes: number;
  maxExtractedChars: number;
  maxPdfPages: number;
  maxHtmlBytes: number;
  maxCsvRows: number;
  maxJsonDepth: number;
  minChunkSize: number;
  maxChunksPerContent: number;
}

export const DEFAULT_KNOWLEDGE_LIMITS = {
  readerTimeoutSeconds: 60,
  readerThreads: 2,
  readerMemoryMiB: 512,
  maxInflatedBytes: 50 * 1024 * 1024,
  maxExtractedChars: 20 * 1024 * 1024,
  maxPdfPages: 2000,
  maxHtmlBytes: 10 * 1024 * 1024,
  maxCsvRows: 200_000,
  maxJsonDepth: 64,
  minChunkSize: 100,
  maxChunksPerContent: 20_000,
} as const satisfies KnowledgeLimits;

/** The knowledge base served when the configuration names none. */
export const DEFAULT_KNOWLEDGE_BASE: KnowledgeDefinition = { id: "knowledge", name: "Knowledge" };

/** Agno's QueueConfig, with its defaults (DEFAULT_QUEUE_SETTINGS). */
export interface QueueSettings {
  /** Background runs executing at once per replica (AGNO_BACKGROUND_MAX_CONCURRENCY). */
  maxConcurrency: number;
  /** Background runs become agno_jobs rows that any worker claims, surviving restarts. */
  durable: boolean;
  /** Redis for live event streams and cross-replica cancellation; absent: database only. */
  redis?: string;
  /** Submits beyond this many queued jobs answer 429. */
  maxQueueDepth: number;
  /** Attempts a job may spend failing by itself (lost leases do not count). */
  maxAttempts: number;
  retryDelaySeconds: number;
  /** A run still executing after this long is aborted and fails. */
  timeoutSeconds: number;
  /** A lease lasts this long without a heartbeat; heartbeats come every lockGraceSeconds/4. */
  lockGraceSeconds: number;
  pollIntervalMs: number;
  /** Finished jobs are deleted after this long. */
  retentionSeconds: number;
  /** On shutdown, running jobs get this long to finish before they are released. */
  stopTimeoutSeconds: number;
  deploymentId?: string;
  /** Run the worker loop inside the web server. */
  embeddedWorker: boolean;
}

export const DEFAULT_QUEUE_SETTINGS = {
  maxConcurrency: 32,
  durable: false,
  maxQueueDepth: 1000,
  maxAttempts: 1,
  retryDelaySeconds: 30,
  timeoutSeconds: 3600,
  lockGraceSeconds: 60,
  pollIntervalMs: 1000,
  retentionSeconds: 86_400,
  stopTimeoutSeconds: 30,
  embeddedWorker: true,
} as const satisfies Omit<QueueSettings, "redis" | "deploymentId">;

/** The cron scheduler (lib/scheduler). */
export interface SchedulerSettings {
  /** Off: nothing fires and `trigger` answers 503 "Scheduler is not running". */
  enabled: boolean;
  /** The longest it sleeps between looks at agno_schedules; it wakes sooner for the next due time and on a local change. */
  pollIntervalMs: number;
  /** Fires in flight at once per process (each follows its run to its end in its own slot, never a run's). */
  maxConcurrentFires: number;
  /** A fire whose process died is taken over after this long. */
  lockGraceSeconds: number;
  /** Schedules one non-admin user may own; admins are unlimited. */
  maxSchedulesPerUser: number;
}

export const DEFAULT_SCHEDULER_SETTINGS = {
  enabled: true,
  pollIntervalMs: 15_000,
  maxConcurrentFires: 100,
  lockGraceSeconds: 300,
  maxSchedulesPerUser: 100,
} as const satisfies SchedulerSettings;

/** USD per million tokens. */
export interface ModelPrice {
  input: number;
  output: number;
  /** Cached input tokens (cache reads); the input price when absent. */
  cachedInput?: number;
}

export interface MetricsSettings {
  /** Configured prices by model id (exact, or a prefix ending in `*`), over the built-in table. */
  prices: Record<string, ModelPrice>;
  /** A daily job keeps yesterday's and today's metrics current. */
  dailyRefresh: boolean;
}

/** Runs recorded as traces (lib/tracing) and where else the spans go. */
export interface TracingSettings {
  enabled: boolean;
  maxAttributeBytes: number;
  /** 0 keeps every trace. */
  retentionDays: number;
  maxQueueSize: number;
  /** OTLP/HTTP export of the same spans, when an endpoint is set (OTEL_EXPORTER_OTLP_*). */
  otlp: { url: string; headers: Record<string, string>; serviceName: string } | null;
}

export const DEFAULT_PORT = 7777;
/** A non-admin's service-account tokens last at most this many days unless configured otherwise. */
export const DEFAULT_SERVICE_ACCOUNT_MAX_DAYS = 90;
export const DEFAULT_DATABASE_URL = "file:./data/agentry.db";
export const AGNO_CHAT_UI_ORIGIN = "http://localhost:3000";
const MiB = 1024 * 1024;

const LOOPBACK_NAMES = new Set(["localhost", "localhost.", "::1", "[::1]"]);
/** A decimal octet as an address is written canonically: 0–255, no sign, no leading zero. */
const OCTET = "(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)";
const LOOPBACK_IPV4 = new RegExp(`^127\\.${OCTET}\\.${OCTET}\\.${OCTET}$`);

/**
 * Whether a host name (no port) is this machine: an IPv4 literal in 127.0.0.0/8 in dotted decimal,
 * `::1` (bare or bracketed), or exactly `localhost` / `localhost.`. Nothing else: a DNS name that
 * merely starts with `127.` or `localhost` can resolve anywhere (DNS rebinding), and hex or short
 * forms such as `0x7f.0.0.1` are not what a browser sends.
 */
export const isLoopback = (host: string) => {
  const name = host.toLowerCase();
  return LOOPBACK_NAMES.has(name) || LOOPBACK_IPV4.test(name);
};

/**
 * `warn` receives what the file still accepts but should change (a deprecated key); the server's
 * getSettings logs it once, when the settings are resolved (default: console.warn).
 */
export function resolveSettings({ env, file: rawFile, warn = console.warn }: { env: Env; file: FileConfig; warn?: (message: string) => void }): Settings {
  const parsed = FileConfigSchema.safeParse(rawFile ?? {});
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new ConfigError(`agentry.config.ts is invalid: ${issues}`);
  }
  const file = parsed.data;
  if (file.auth?.secretKey !== undefined) {
    throw new ConfigError("auth.secretKey was removed in v3: use auth.verificationKeys, which takes a list of keys (so keys can rotate)");
  }
  const mcpFile = mcpFromFile(file, warn);
  if ("problem" in mcpFile) throw new ConfigError(mcpFile.problem);
  const sources: Record<string, string> = {};
  /** env wins over the file; the file over the default. */
  function pick<T>(key: string, envName: string | null, envValue: T | undefined, fileValue: T | undefined, fallback: T): T {
    if (envValue !== undefined) return ((sources[key] = `env:${envName}`), envValue);
    if (fileValue !== undefined) return ((sources[key] = `config:${key}`), fileValue);
    sources[key] = "default";
    return fallback;
  }

  if (env.JWT_VERIFICATION_KEY && env.JWT_VERIFICATION_KEYS) {
    throw new ConfigError("Both JWT_VERIFICATION_KEY and JWT_VERIFICATION_KEYS are set: they name the same setting (auth.verificationKeys). Set one.");
  }
  const envKeys = env.JWT_VERIFICATION_KEYS ? parseKeyList(env.JWT_VERIFICATION_KEYS) : env.JWT_VERIFICATION_KEY ? [env.JWT_VERIFICATION_KEY] : undefined;
  const verificationKeys = pick<string[]>("auth.verificationKeys", env.JWT_VERIFICATION_KEYS ? "JWT_VERIFICATION_KEYS" : "JWT_VERIFICATION_KEY", envKeys, file.auth?.verificationKeys, []);
  const jwksFile = pick<string | undefined>("auth.jwksFile", "JWT_JWKS_FILE", env.JWT_JWKS_FILE, file.auth?.jwksFile, undefined);
  const securityKey = pick<string | undefined>("auth.securityKey", "OS_SECURITY_KEY", env.OS_SECURITY_KEY, file.auth?.securityKey, undefined);
  const jwksUrl = pick<string | undefined>("auth.jwksUrl", "JWT_JWKS_URL", env.JWT_JWKS_URL, file.auth?.jwksUrl, undefined);
  const jwks = env.JWT_JWKS;
  const mode: AuthMode = verificationKeys.length > 0 || jwksFile || jwksUrl || jwks ? "jwt" : securityKey ? "security_key" : "none";

  const host = pick("server.host", "HOST", env.HOST, file.server?.host, "127.0.0.1");
  const allowPublicBind = pick("server.allowPublicBind", "AGENTRY_ALLOW_PUBLIC_BIND", env.AGENTRY_ALLOW_PUBLIC_BIND, file.server?.allowPublicBind, false);
  if (mode === "none" && !isLoopback(host) && !allowPublicBind) {
    throw new ConfigError(
      `${sources["server.host"]} binds to ${host}, but no authentication is configured (auth mode 'none' trusts every caller as admin). ` +
        "Configure OS_SECURITY_KEY or JWT verification keys, or set AGENTRY_ALLOW_PUBLIC_BIND=true (server.allowPublicBind) to bind publicly anyway.",
    );
  }

  const databaseUrl = pick("database.url", "DATABASE_URL", env.DATABASE_URL, file.database?.url, DEFAULT_DATABASE_URL);
  const configuredOrigins = pick<string[]>(
    "cors.origins",
    "AGENTRY_CORS_ORIGINS",
    env.AGENTRY_CORS_ORIGINS?.split(",")
      .map((o) => o.trim())
      .filter(Boolean),
    file.cors?.origins,
    [],
  );
  if (configuredOrigins.includes("*")) {
    throw new ConfigError(`${sources["cors.origins"]} contains '*': credentials are allowed, so origins must be listed one by one`);
  }
  const corsOrigins = mode === "none" ? [...new Set([AGNO_CHAT_UI_ORIGIN, ...configuredOrigins])] : configuredOrigins;
  const externalAgents = (file.agents ?? []).filter(isExternalAgentDefinition);
  const agents = (file.agents ?? []).filter((a): a is AgentDefinition => !isExternalAgentDefinition(a));
  const everyAgent = [...agents, ...externalAgents];
  const duplicate = everyAgent.find((agent, i) => everyAgent.findIndex((a) => a.id === agent.id) !== i);
  if (duplicate) throw new ConfigError(`Two agents share the id '${duplicate.id}'`);
  const teams = file.teams ?? [];
  const duplicateTeam = teams.find((team, i) => teams.findIndex((t) => t.id === team.id) !== i);
  if (duplicateTeam) throw new ConfigError(`Two teams share the id '${duplicateTeam.id}'`);
  for (const team of teams) checkTeamMembers(team, [team.id]);
  const workflows = (file.workflows ?? []).map((w) => defineWorkflow(w as Parameters<typeof defineWorkflow>[0]));
  const duplicateWorkflow = workflows.find((w, i) => workflows.findIndex((o) => o.id === w.id) !== i);
  if (duplicateWorkflow) throw new ConfigError(`Two workflows share the id '${duplicateWorkflow.id}'`);
  const registryKnowledge = (file.registry?.knowledge ?? []).map((k) =>
    "knowledge" in k ? { knowledge: k.knowledge, membersMayAttach: k.membersMayAttach ?? true } : { knowledge: k, membersMayAttach: true },
  );
  const knowledge = resolveKnowledge(
    env,
    file,
    [...agents, ...teams.flatMap(memberAgentsOf), ...workflows.flatMap(workflowAgentsOf)],
    registryKnowledge.map((k) => k.knowledge),
    pick,
  );

  return {
    osId: pick("osId", "AGENTRY_OS_ID", env.AGENTRY_OS_ID, file.osId, "agentry"),
    name: pick("name", "AGENTRY_OS_NAME", env.AGENTRY_OS_NAME, file.name, "Agentry"),
    description: file.description,
    version: file.version ?? "1.0.0",
    server: { port: pick("server.port", "PORT", env.PORT, file.server?.port, DEFAULT_PORT), host, allowPublicBind },
    database: {
      url: databaseUrl,
      schema: pick("database.schema", "AGENTRY_DB_SCHEMA", env.AGENTRY_DB_SCHEMA, file.database?.schema, "ai"),
      id: file.database?.id ?? "agentry-db",
      autoMigrate: file.database?.autoMigrate ?? true,
    },
    auth: {
      mode,
      securityKey,
      verificationKeys,
      jwksFile,
      jwks,
      jwksUrl,
      audience: pick<string | undefined>("auth.audience", "JWT_AUDIENCE", env.JWT_AUDIENCE, file.auth?.audience, undefined),
      issuer: pick<string | undefined>("auth.issuer", "JWT_ISSUER", env.JWT_ISSUER, file.auth?.issuer, undefined),
      userIsolation: pick("auth.userIsolation", "AGENTRY_USER_ISOLATION", env.AGENTRY_USER_ISOLATION, file.auth?.userIsolation, true),
      trustedProxies: parseTrustedProxies(
        pick<string[]>("auth.trustedProxies", "AGENTRY_TRUSTED_PROXIES", env.AGENTRY_TRUSTED_PROXIES?.split(","), file.auth?.trustedProxies, []),
        sources["auth.trustedProxies"] ?? "auth.trustedProxies",
      ),
      serviceAccountMaxDays: pick(
        "auth.serviceAccountMaxDays",
        "AGENTRY_SERVICE_ACCOUNT_MAX_DAYS",
        env.AGENTRY_SERVICE_ACCOUNT_MAX_DAYS,
        file.auth?.serviceAccountMaxDays,
        DEFAULT_SERVICE_ACCOUNT_MAX_DAYS,
      ),
    },
    dashboard: resolveDashboardSettings(env),
    corsOrigins,
    limits: {
      maxJsonBytes: file.limits?.maxJsonBytes ?? MiB,
      maxUploadBytes: pick("limits.maxUploadBytes", "AGENTRY_MAX_UPLOAD_BYTES", env.AGENTRY_MAX_UPLOAD_BYTES, file.limits?.maxUploadBytes, 25 * MiB),
      maxFormFieldBytes: pick("limits.maxFormFieldBytes", "AGENTRY_MAX_FORM_FIELD_BYTES", env.AGENTRY_MAX_FORM_FIELD_BYTES, file.limits?.maxFormFieldBytes, MiB),
    },
    docsEnabled: pick("docs.enabled", "AGENTRY_DOCS_ENABLED", env.AGENTRY_DOCS_ENABLED, file.docs?.enabled, true),
    checkResponses: pick("checkResponses", "AGENTRY_CHECK_RESPONSES", env.AGENTRY_CHECK_RESPONSES, undefined, env.NODE_ENV !== "production"),
    redisUrl: pick<string | undefined>("redis.url", "REDIS_URL", env.REDIS_URL, file.redis?.url, undefined),
    queue: resolveQueue(env, file, pick),
    scheduler: resolveScheduler(env, file, pick),
    mcp: resolveMcp(env.AGENTRY_MCP, mcpFile.raw, sources, mcpFile.key),
    metrics: { prices: file.metrics?.prices ?? {}, dailyRefresh: file.metrics?.dailyRefresh ?? true },
    tracing: resolveTracing(env, file, pick),
    agents,
    externalAgents,
    teams,
    workflows,
    knowledge,
    registry: resolveRegistry(env, file, knowledge.bases, registryKnowledge),
    studio: { limits: { ...DEFAULT_STUDIO_LIMITS, ...definedOnly(file.studio?.limits ?? {}) } },
    quickPrompts: file.quickPrompts ?? {},
    sources,
  };
}

type Pick = <T>(key: string, envName: string | null, envValue: T | undefined, fileValue: T | undefined, fallback: T) => T;

function resolveQueue(env: Env, file: FileConfig, pick: Pick): QueueSettings {
  const q = file.queue ?? {};
  const d = DEFAULT_QUEUE_SETTINGS;
  const lockGraceSeconds = pick("queue.lockGraceSeconds", "AGENTRY_QUEUE_LOCK_GRACE_SECONDS", env.AGENTRY_QUEUE_LOCK_GRACE_SECONDS, q.lockGraceSeconds, d.lockGraceSeconds);
  return {
    maxConcurrency: pick("queue.maxConcurrency", "AGNO_BACKGROUND_MAX_CONCURRENCY", env.AGNO_BACKGROUND_MAX_CONCURRENCY, q.maxConcurrency, d.maxConcurrency),
    durable: pick("queue.durable", "AGENTRY_QUEUE_DURABLE", env.AGENTRY_QUEUE_DURABLE, q.durable, d.durable),
    redis: pick<string | undefined>("queue.redis", "REDIS_URL", env.REDIS_URL, q.redis ?? file.redis?.url, undefined),
    maxQueueDepth: q.maxQueueDepth ?? d.maxQueueDepth,
    maxAttempts: q.maxAttempts ?? d.maxAttempts,
    retryDelaySeconds: q.retryDelaySeconds ?? d.retryDelaySeconds,
    timeoutSeconds: q.timeoutSeconds ?? d.timeoutSeconds,
    lockGraceSeconds,
    pollIntervalMs: pick("queue.pollIntervalMs", "AGENTRY_QUEUE_POLL_INTERVAL_MS", env.AGENTRY_QUEUE_POLL_INTERVAL_MS, q.pollIntervalMs, d.pollIntervalMs),
    retentionSeconds: q.retentionSeconds ?? d.retentionSeconds,
    stopTimeoutSeconds: q.stopTimeoutSeconds ?? d.stopTimeoutSeconds,
    deploymentId: pick<string | undefined>("queue.deploymentId", "AGENTRY_DEPLOYMENT_ID", env.AGENTRY_DEPLOYMENT_ID, q.deploymentId, undefined),
    embeddedWorker: pick("queue.embeddedWorker", "AGENTRY_EMBEDDED_WORKER", env.AGENTRY_EMBEDDED_WORKER, q.embeddedWorker, d.embeddedWorker),
  };
}

function resolveTracing(env: Env, file: FileConfig, pick: Pick): TracingSettings {
  const t = typeof file.tracing === "object" ? file.tracing : { enabled: file.tracing };
  return {
    enabled: pick("tracing", "AGENTRY_TRACING", env.AGENTRY_TRACING, t.enabled, true),
    maxAttributeBytes: pick("tracing.maxAttributeBytes", "AGENTRY_TRACE_MAX_ATTRIBUTE_BYTES", env.AGENTRY_TRACE_MAX_ATTRIBUTE_BYTES, t.maxAttributeBytes, 16 * 1024),
    retentionDays: pick("tracing.retentionDays", "AGENTRY_TRACE_RETENTION_DAYS", env.AGENTRY_TRACE_RETENTION_DAYS, t.retentionDays, 14),
    maxQueueSize: t.maxQueueSize ?? 8192,
    otlp: otlpSettings(env),
  };
}

/**
 * OpenTelemetry's OTLP/HTTP variables: the traces endpoint is used as given, the general one gains
 * `/v1/traces`; headers are `key=value` pairs, comma-separated, values URL-decoded.
 */
function otlpSettings(env: Env): TracingSettings["otlp"] {
  const url = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? (env.OTEL_EXPORTER_OTLP_ENDPOINT ? `${env.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, "")}/v1/traces` : undefined);
  if (!url) return null;
  const headers: Record<string, string> = {};
  for (const pair of (env.OTEL_EXPORTER_OTLP_HEADERS ?? "").split(",")) {
    const at = pair.indexOf("=");
    if (at <= 0) continue;
    const key = pair.slice(0, at).trim();
    const value = pair.slice(at + 1).trim();
    try {
      headers[key] = decodeURIComponent(value);
    } catch {
      headers[key] = value;
    }
  }
  return { url, headers, serviceName: env.OTEL_SERVICE_NAME ?? "agentry" };
}

/** A team's member ids are unique within it, and no team contains itself. */
function checkTeamMembers(team: TeamDefinition, path: string[]): void {
  const ids = team.members.map((m) => m.id);
  const twice = ids.find((id, i) => ids.indexOf(id) !== i);
  if (twice) throw new ConfigError(`Team '${team.id}' has two members with the id '${twice}'`);
  for (const member of team.members) {
    if (!("members" in member)) continue;
    if (path.includes(member.id)) throw new ConfigError(`Team '${member.id}' contains itself (${[...path, member.id].join(" → ")})`);
    checkTeamMembers(member, [...path, member.id]);
  }
}

/** Every agent a workflow's steps run (directly or in a team). */
function workflowAgentsOf(workflow: WorkflowDefinition): AgentDefinition[] {
  const visit = (steps: WorkflowStep[]): AgentDefinition[] =>
    steps.flatMap((s) =>
      s.type === "Step"
        ? s.agent
          ? [s.agent]
          : s.team
            ? memberAgentsOf(s.team)
            : []
        : visit(s.type === "Router" ? s.choices : s.type === "Condition" ? [...s.steps, ...(s.elseSteps ?? [])] : s.steps),
    );
  return visit(workflow.steps);
}

/** Every agent in a team, at any depth. */
export function memberAgentsOf(team: TeamDefinition): AgentDefinition[] {
  return team.members.flatMap((m) => ("members" in m ? memberAgentsOf(m) : [m]));
}

function resolveKnowledge(env: Env, file: FileConfig, agents: AgentDefinition[], registryBases: KnowledgeDefinition[], pick: Pick): KnowledgeSettings {
  const bases = new Map<string, KnowledgeDefinition>();
  for (const base of [...(file.knowledge?.bases ?? []), ...agents.flatMap((a) => (a.knowledge ? [a.knowledge] : [])), ...registryBases]) {
    const known = bases.get(base.id);
    if (known && JSON.stringify(known) !== JSON.stringify(base)) throw new ConfigError(`Two different knowledge bases share the id '${base.id}'`);
    bases.set(base.id, base);
  }
  const tables = new Map<string, string>();
  for (const base of bases.values()) {
    const table = base.vectorTable ?? DEFAULT_VECTOR_TABLE;
    const other = tables.get(table);
    if (other) throw new ConfigError(`Knowledge bases '${other}' and '${base.id}' both store their chunks in '${table}': give one its own vectorTable`);
    tables.set(table, base.id);
  }
  const fromFile = file.knowledge?.embedder;
  const embedder = fromFile !== undefined ? fromFile : embedderFromEnv(env);
  const allowHosts = pick<string[]>("knowledge.allowHosts", "AGENTRY_KNOWLEDGE_ALLOW_HOSTS", env.AGENTRY_KNOWLEDGE_ALLOW_HOSTS?.split(","), file.knowledge?.allowHosts, []);
  return {
    bases: bases.size > 0 ? [...bases.values()] : [DEFAULT_KNOWLEDGE_BASE],
    embedder,
    allowHosts: allowHosts.map((h) => h.trim().toLowerCase()).filter(Boolean),
    limits: knowledgeLimits(file.knowledge ?? {}),
  };
}

/** The knowledge limits the file sets, each over its default. */
function knowledgeLimits(file: Partial<KnowledgeLimits>): KnowledgeLimits {
  const limits: KnowledgeLimits = { ...DEFAULT_KNOWLEDGE_LIMITS };
  for (const key of Object.keys(limits) as (keyof KnowledgeLimits)[]) limits[key] = file[key] ?? limits[key];
  return limits;
}

/** The Host toolkit's id (lib/runtime/tools/host/host.ts): admin-only in the registry unless said otherwise. */
const HOST_TOOLKIT_ID = "host";

/**
 * The registry: every model the environment configures (the one agents get by default first;
 * none with `environmentModel: false`), then the listed models, each once; toolkits with who may
 * attach them (Host and run-time-listed toolkits, such as MCP servers', admin-only by default);
 * every knowledge base served; schemas and learning machines with unique names.
 */
function resolveRegistry(env: Env, file: FileConfig, bases: KnowledgeDefinition[], listedKnowledge: { knowledge: KnowledgeDefinition; membersMayAttach: boolean }[]): RegistrySettings {
  const r = file.registry ?? {};
  const models: ModelSpec[] = [];
  const envModels = r.environmentModel === false ? [] : modelsFromEnv(env);
  for (const model of [...envModels, ...(r.models ?? [])]) {
    if (!models.some((m) => m.provider === model.provider && m.id === model.id && m.baseUrl === model.baseUrl)) models.push(model);
  }
  const toolkits: RegistrySettings["toolkits"] = [];
  for (const entry of r.toolkits ?? []) {
    const given = "toolkit" in entry && !("tools" in entry) ? (entry as { toolkit: RegistryToolkitLike; membersMayAttach?: boolean }) : { toolkit: entry as RegistryToolkitLike };
    const adminOnlyByDefault = given.toolkit.id === HOST_TOOLKIT_ID || typeof given.toolkit.loadTools === "function";
    const other = toolkits.find((t) => t.toolkit.id === given.toolkit.id || t.toolkit.name === given.toolkit.name);
    if (other) throw new ConfigError(`registry.toolkits: two toolkits share the id or name of '${given.toolkit.id}' (${given.toolkit.name})`);
    toolkits.push({ toolkit: given.toolkit, membersMayAttach: given.membersMayAttach ?? !adminOnlyByDefault });
  }
  const knowledge = bases.map((base) => ({ knowledge: base, membersMayAttach: listedKnowledge.find((k) => k.knowledge.id === base.id)?.membersMayAttach ?? true }));
  const schemas = r.schemas ?? [];
  const twiceSchema = schemas.find((s, i) => schemas.findIndex((o) => o.name === s.name) !== i);
  if (twiceSchema) throw new ConfigError(`registry.schemas: two schemas share the name '${twiceSchema.name}'`);
  const learning = (r.learning ?? []) as RegistrySettings["learning"];
  const twiceMachine = learning.find((m, i) => learning.findIndex((o) => o.name === m.name) !== i);
  if (twiceMachine) throw new ConfigError(`registry.learning: two learning machines share the name '${twiceMachine.name}'`);
  return { models, toolkits, knowledge, schemas, learning };
}

/** An object's keys whose values are not undefined. */
function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** The chunk table of a knowledge base that names none. */
export const DEFAULT_VECTOR_TABLE = "agno_knowledge_vectors";

function resolveScheduler(env: Env, file: FileConfig, pick: Pick): SchedulerSettings {
  const raw = file.scheduler;
  const f = typeof raw === "object" ? raw : { enabled: raw };
  const d = DEFAULT_SCHEDULER_SETTINGS;
  return {
    enabled: pick("scheduler.enabled", "AGENTRY_SCHEDULER", env.AGENTRY_SCHEDULER, f.enabled, d.enabled),
    pollIntervalMs: pick("scheduler.pollIntervalMs", "AGENTRY_SCHEDULER_POLL_INTERVAL_MS", env.AGENTRY_SCHEDULER_POLL_INTERVAL_MS, f.pollIntervalMs, d.pollIntervalMs),
    maxConcurrentFires: f.maxConcurrentFires ?? d.maxConcurrentFires,
    lockGraceSeconds: f.lockGraceSeconds ?? d.lockGraceSeconds,
    maxSchedulesPerUser: f.maxSchedulesPerUser ?? d.maxSchedulesPerUser,
  };
}

/** JWT_VERIFICATION_KEYS: a JSON array of keys, or keys separated by blank lines / `;`. */
function parseKeyList(value: string): string[] {
  const trimmed = value.trim();
  if (trimmed.startsWith("[")) {
    const parsed: unknown = JSON.parse(trimmed);
    if (!Array.isArray(parsed) || !parsed.every((k) => typeof k === "string")) {
      throw new ConfigError("JWT_VERIFICATION_KEYS must be a JSON array of strings");
    }
    return parsed;
  }
  return trimmed
    .split(/;|\n\s*\n/)
    .map((k) => k.trim())
    .filter(Boolean);
}
