import { z } from "zod";
import { McpConfigSchema } from "./mcp-settings.ts";
import { ExternalAgentDefinitionSchema } from "./external-agent.ts";
import { COLLIDING_MEMORY_TOOL, LearningConfigSchema, LearningMachineConfigSchema, type LearningConfig } from "./learning-config.ts";

/**
 * What a user writes in agentry.config.ts. Validated at load: unknown keys fail with their path,
 * and options Agno v3 removed fail with a message naming the replacement.
 */

/** OpenAI's request options Agentry sends as top-level chat-completions fields, any string accepted (lib/models/openai-body-options.ts). */
export const OPENAI_BODY_OPTIONS = ["reasoningEffort", "reasoningSummary", "serviceTier", "verbosity", "textVerbosity"] as const;

/** The model providers: OpenAI, Anthropic, an OpenAI-compatible server, Mistral, Cerebras, Groq and Google Gemini (lib/models/resolve-model.ts). */
export const MODEL_PROVIDERS = ["openai", "anthropic", "openai-compatible", "mistral", "cerebras", "groq", "google"] as const;

export const ModelSpecSchema = z
  .object({
    provider: z.enum(MODEL_PROVIDERS),
    /** The provider's model id, e.g. `gpt-4.1-mini`. */
    id: z.string().min(1),
    /** The provider's API base URL: required for an OpenAI-compatible server (Ollama, vLLM, LM Studio: e.g. http://localhost:11434/v1), else a proxy or gateway. */
    baseUrl: z.string().url().optional(),
    apiKey: z.string().optional(),
    /**
     * Provider options. OpenAI's (and an OpenAI-compatible server's) `reasoningEffort`,
     * `reasoningSummary`, `serviceTier` and `verbosity` (alias `textVerbosity`) take any string;
     * everything else is the provider's AI SDK options, as that SDK names them.
     */
    options: z.record(z.string(), z.unknown()).optional(),
  })
  .superRefine((spec, ctx) => {
    if (spec.provider !== "openai" && spec.provider !== "openai-compatible") return;
    for (const key of OPENAI_BODY_OPTIONS) {
      const value = spec.options?.[key];
      if (value !== undefined && typeof value !== "string") ctx.addIssue({ code: "custom", path: ["options", key], message: `${key} must be a string, got ${JSON.stringify(value)}` });
    }
    const { verbosity, textVerbosity } = spec.options ?? {};
    if (verbosity !== undefined && textVerbosity !== undefined && verbosity !== textVerbosity) {
      ctx.addIssue({ code: "custom", path: ["options", "textVerbosity"], message: "textVerbosity is an alias of verbosity: give one of them" });
    }
  });
export type ModelSpec = z.infer<typeof ModelSpecSchema>;

/** Agno v2 agent options removed in v3, and what replaces each. */
export const REMOVED_AGENT_OPTIONS: Record<string, string> = {
  enableUserMemories: "updateMemoryOnRun",
  searchSessionHistory: "searchPastSessions",
  numHistorySessions: "numPastSessionsToSearch",
  numPastSessionRuns: "numPastSessionRunsInSearch",
  reasoning: "reasoningModel (a native reasoning model, set explicitly)",
  enableAgenticCulture: "Knowledge (the culture feature is removed; use Knowledge for shared cross-user information)",
  addCultureToContext: "Knowledge (the culture feature is removed; use Knowledge for shared cross-user information)",
};

/** An embedding model for knowledge (the AI SDK's OpenAI provider, or any OpenAI-compatible server). */
export const EmbedderSpecSchema = z
  .object({
    provider: z.enum(["openai", "openai-compatible"]),
    id: z.string().min(1),
    baseUrl: z.string().url().optional(),
    apiKey: z.string().optional(),
    /** The vectors' length; known for OpenAI's models, asked of the server once otherwise. */
    dimensions: z.number().int().min(1).max(16_000).optional(),
  })
  .strict();
export type EmbedderSpec = z.infer<typeof EmbedderSpecSchema>;

const SQL_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** A knowledge base: its contents (rows of agno_knowledge linked to its name) and its chunk table. */
export const KnowledgeDefinitionSchema = z
  .object({
    id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, "knowledge id: letters, digits, '.', '_' or '-'"),
    name: z.string().min(1),
    description: z.string().optional(),
    /** The table holding its chunks and their vectors (Agno's PgVector `table_name`). */
    vectorTable: z.string().regex(SQL_IDENTIFIER, "vectorTable: a plain SQL identifier").optional(),
    /** Default search type (vector needs an embedder; without one, keyword is used). */
    searchType: z.enum(["vector", "keyword", "hybrid"]).optional(),
    /** Default number of results a search returns (1–100). */
    maxResults: z.number().int().min(1).max(100).optional(),
    /** A model that reorders vector and hybrid results by relevance after fusion (one call per search). */
    reranker: ModelSpecSchema.optional(),
    /**
     * The pgvector HNSW index (PostgreSQL only; sqlite-vec searches exactly): `m` and
     * `efConstruction` take effect when the index is built, `efSearch` on every search.
     * Defaults in lib/knowledge/stores/postgres-store.ts.
     */
    vectorIndex: z
      .object({
        m: z.number().int().min(2).max(100).optional(),
        efConstruction: z.number().int().min(4).max(1000).optional(),
        efSearch: z.number().int().min(1).max(1000).optional(),
      })
      .strict()
      .refine((v) => v.m === undefined || v.efConstruction === undefined || v.efConstruction >= 2 * v.m, "vectorIndex: efConstruction must be at least twice m")
      .optional(),
  })
  .strict();
export type KnowledgeDefinition = z.infer<typeof KnowledgeDefinitionSchema>;

export const AgentDefinitionSchema = z
  .object({
    id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, "agent id: letters, digits, '.', '_' or '-'"),
    name: z.string().min(1),
    description: z.string().optional(),
    /** null: no provider configured; the agent is listed and its runs fail naming the variables to set. */
    model: ModelSpecSchema.nullable(),
    instructions: z.union([z.string(), z.array(z.string())]).optional(),
    updateMemoryOnRun: z.boolean().optional(),
    searchPastSessions: z.boolean().optional(),
    numPastSessionsToSearch: z.number().int().min(0).optional(),
    numPastSessionRunsInSearch: z.number().int().min(0).optional(),
    addHistoryToContext: z.boolean().optional(),
    numHistoryRuns: z.number().int().min(0).optional(),
    reasoningModel: ModelSpecSchema.optional(),
    storeEvents: z.boolean().optional(),
    /**
     * The schedules toolkit: the agent may create, list, pause, resume and delete its own user's
     * schedules of itself (lib/scheduler/schedule-tools.ts).
     */
    manageSchedules: z.boolean().optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    tools: z.array(z.unknown()).optional(),
    outputSchema: z.unknown().optional(),
    /** A knowledge base the agent searches through its `search_knowledge_base` tool, as the run's user. */
    knowledge: KnowledgeDefinitionSchema.optional(),
    /** Give the agent the search tool (default true when it has knowledge). */
    searchKnowledge: z.boolean().optional(),
    /** Add the top chunks for the run's input to its prompt before the model is called (default false). */
    addKnowledgeToContext: z.boolean().optional(),
    /** What the agent learns about its users and its work (lib/config/learning-config.ts; lib/learning runs it). */
    learning: LearningConfigSchema.optional(),
    /** The `update_user_memory` tool over the user's memories (agno_memories): the agent decides what to remember. */
    enableAgenticMemory: z.boolean().optional(),
  })
  .strict()
  .superRefine((agent, ctx) => learningIssues(agent, ctx, { hasKnowledge: agent.knowledge !== undefined }));
export type AgentDefinition = z.infer<typeof AgentDefinitionSchema>;

/** A learning machine that cannot work for this agent or team: a tool two features add, learned knowledge with nowhere to go. */
function learningIssues(component: { learning?: LearningConfig; enableAgenticMemory?: boolean }, ctx: z.RefinementCtx, { hasKnowledge }: { hasKnowledge: boolean }): void {
  const learning = component.learning;
  if (!learning) return;
  // Any learning machine: it owns the user's memory (Agno turns agentic memory off with learning on).
  if (component.enableAgenticMemory) {
    ctx.addIssue({
      code: "custom",
      path: ["enableAgenticMemory"],
      message: `enableAgenticMemory and learning's user memory both give the agent the tool '${COLLIDING_MEMORY_TOOL}'; use one of them`,
    });
  }
  if (learning !== true && learning.learnedKnowledge && !hasKnowledge) {
    ctx.addIssue({ code: "custom", path: ["learning", "learnedKnowledge"], message: "learnedKnowledge stores what is learned in a knowledge base: give the agent `knowledge`" });
  }
}

export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

/** Declares an agent; throws ConfigError for removed or unknown options. */
export function defineAgent(definition: AgentDefinition & Record<string, unknown>): AgentDefinition {
  for (const [old, replacement] of Object.entries(REMOVED_AGENT_OPTIONS)) {
    if (old in definition) {
      throw new ConfigError(`Agent '${definition.id}': option '${old}' was removed in v3; use ${replacement}`);
    }
  }
  const parsed = AgentDefinitionSchema.safeParse(definition);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "agent"}: ${i.message}`).join("; ");
    throw new ConfigError(`Agent '${String(definition.id)}' is invalid: ${issues}`);
  }
  return parsed.data;
}

/** How a team's leader works with its members (Agno's TeamMode). */
export const TEAM_MODES = ["coordinate", "route", "broadcast", "tasks"] as const;
export type TeamMode = (typeof TEAM_MODES)[number];

const COMPONENT_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/**
 * A team: a leader model with its own tools, plus delegation to its members (agents or teams).
 * `coordinate` (default): the leader delegates tasks to chosen members and combines their
 * answers; `route`: it hands the request to one member whose answer is the team's; `broadcast`:
 * every member gets the same task at once; `tasks`: it plans a task list in the session state and
 * works through it, delegating each task (lib/runtime/team/ holds the runtime).
 */
export interface TeamDefinition {
  id: string;
  name: string;
  description?: string;
  role?: string;
  mode?: TeamMode;
  members: (AgentDefinition | TeamDefinition)[];
  /** The leader's model; members without one use it. null: runs fail naming the variables to set. */
  model: ModelSpec | null;
  instructions?: string | string[];
  tools?: unknown[];
  /** Keep member runs nested in the team run's `member_responses` (off by default, as in Agno; the API's own runs always keep them). */
  storeMemberResponses?: boolean;
  /** Forward the members' events in the team's stream (default true). */
  streamMemberEvents?: boolean;
  /** false: members get the user's message instead of the leader's task text. */
  determineInputForMembers?: boolean;
  /** The leader's model calls at most, in `tasks` mode (default 10). */
  maxIterations?: number;
  addHistoryToContext?: boolean;
  numHistoryRuns?: number;
  storeEvents?: boolean;
  metadata?: Record<string, unknown>;
  /** What the team's leader learns about its users (lib/config/learning-config.ts). */
  learning?: LearningConfig;
}

export const TeamDefinitionSchema: z.ZodType<TeamDefinition> = z
  .object({
    id: z.string().regex(COMPONENT_ID, "team id: letters, digits, '.', '_' or '-'"),
    name: z.string().min(1),
    description: z.string().optional(),
    role: z.string().optional(),
    mode: z.enum(TEAM_MODES).optional(),
    get members() {
      return z.array(z.union([AgentDefinitionSchema, TeamDefinitionSchema])).min(1, "a team needs at least one member");
    },
    model: ModelSpecSchema.nullable(),
    instructions: z.union([z.string(), z.array(z.string())]).optional(),
    tools: z.array(z.unknown()).optional(),
    storeMemberResponses: z.boolean().optional(),
    streamMemberEvents: z.boolean().optional(),
    determineInputForMembers: z.boolean().optional(),
    maxIterations: z.number().int().min(1).max(100).optional(),
    addHistoryToContext: z.boolean().optional(),
    numHistoryRuns: z.number().int().min(0).optional(),
    storeEvents: z.boolean().optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    learning: LearningConfigSchema.optional(),
  })
  .strict()
  .superRefine((team, ctx) => learningIssues(team, ctx, { hasKnowledge: false })) as z.ZodType<TeamDefinition>;

type TeamOptions = Omit<TeamDefinition, "members" | "id" | "name" | "model"> & Partial<Pick<TeamDefinition, "id" | "name" | "model">>;

/**
 * Declares a team: `defineTeam({ id, name, members, ... })`, or with its members first,
 * `defineTeam([a, b], { ... })` (Agno's `Team([a, b])`). Without an id, the id comes from the name
 * (lower-cased, spaces and underscores as dashes), else from the members' ids; without a name it is
 * "Team"; without a model, the first member's. Throws ConfigError naming what is wrong.
 */
export function defineTeam(definition: Partial<TeamDefinition> & { members: TeamDefinition["members"] }): TeamDefinition;
export function defineTeam(members: TeamDefinition["members"], options?: TeamOptions): TeamDefinition;
export function defineTeam(first: (Partial<TeamDefinition> & { members: TeamDefinition["members"] }) | TeamDefinition["members"], options: TeamOptions = {}): TeamDefinition {
  const given = (Array.isArray(first) ? { ...options, members: first } : first) as (Partial<TeamDefinition> & Record<string, unknown>) | undefined;
  if (!given || !Array.isArray(given.members)) throw new ConfigError("defineTeam needs members: defineTeam({ members: [agentA, agentB], ... }) or defineTeam([agentA, agentB])");
  const members = given.members as TeamDefinition["members"];
  const name = given.name ?? "Team";
  const id = given.id ?? (given.name ? slugOf(given.name) : `team-${members.map((m) => (m as { id?: string }).id ?? "member").join("-")}`);
  const model = given.model !== undefined ? given.model : (members.find((m) => m.model)?.model ?? null);
  const parsed = TeamDefinitionSchema.safeParse({ ...given, id, name, model });
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "team"}: ${i.message}`).join("; ");
    throw new ConfigError(`Team '${id}' is invalid: ${issues}`);
  }
  return parsed.data;
}

/** Agno's id from a name: lower-cased, spaces and underscores as dashes. */
function slugOf(name: string): string {
  return (
    name
      .trim()
      .toLowerCase()
      .replace(/[\s_]+/g, "-")
      .replace(/[^a-z0-9.-]/g, "") || "team"
  );
}

/** A toolkit as agentry.config.ts gives it (lib/runtime/tools/types.ts's Toolkit: an id, a name, its tools). */
export interface RegistryToolkitLike {
  readonly id: string;
  readonly name: string;
  readonly tools: readonly unknown[];
  readonly loadTools?: unknown;
}

const ToolkitLikeSchema = z.custom<RegistryToolkitLike>(
  (v) => !!v && typeof v === "object" && typeof (v as RegistryToolkitLike).id === "string" && typeof (v as RegistryToolkitLike).name === "string" && Array.isArray((v as RegistryToolkitLike).tools),
  "a toolkit (an object with id, name and tools)",
);

/** The name a registry resource is referred to by from a component config. */
const REGISTRY_NAME = z.string().min(1).max(200);

export const RegistryConfigSchema = z
  .object({
    /** Models a component may name (`{provider, id, ...}`); the environment's models are added unless `environmentModel` is false. */
    models: z.array(ModelSpecSchema).optional(),
    /** Offer every model the environment configures, one per provider whose variables are set (lib/config/model-from-env.ts); default true. */
    environmentModel: z.boolean().optional(),
    /**
     * Toolkits offered to Studio: a toolkit, or `{ toolkit, membersMayAttach }`. Members may attach
     * a toolkit unless it says otherwise; the Host toolkit (id `host`) and MCP toolkits (listed at
     * run time) are admin-only unless `membersMayAttach: true`.
     */
    toolkits: z.array(z.union([ToolkitLikeSchema, z.object({ toolkit: ToolkitLikeSchema, membersMayAttach: z.boolean().optional() }).strict()])).optional(),
    /**
     * Knowledge bases offered besides the code-defined ones (every knowledge base the OS serves is
     * in the registry): a definition, or `{ knowledge, membersMayAttach }` (default true).
     */
    knowledge: z.array(z.union([KnowledgeDefinitionSchema, z.object({ knowledge: KnowledgeDefinitionSchema, membersMayAttach: z.boolean().optional() }).strict()])).optional(),
    /** Output schemas by name: JSON schema objects a component's `output_schema` may name. */
    schemas: z.array(z.object({ name: REGISTRY_NAME, description: z.string().optional(), schema: z.record(z.string(), z.unknown()) }).strict()).optional(),
    /** Named learning machines (lib/config/learning-config.ts) a component's `learning: {name}` refers to. */
    learning: z.array(LearningMachineConfigSchema.and(z.object({ name: REGISTRY_NAME }))).optional(),
  })
  .strict();
export type RegistryConfig = z.infer<typeof RegistryConfigSchema>;

export const FileConfigSchema = z
  .object({
    osId: z.string().min(1).optional(),
    name: z.string().optional(),
    description: z.string().optional(),
    /** This OS's own version, reported as /info's `os_version` (Agno's `AgentOS.version`; default "1.0.0"). */
    version: z.string().min(1).optional(),
    server: z
      .object({
        port: z.number().int().min(1).max(65535).optional(),
        host: z.string().optional(),
        allowPublicBind: z.boolean().optional(),
      })
      .strict()
      .optional(),
    database: z
      .object({
        url: z.string().optional(),
        /** PostgreSQL schema for the tables (Agno's default `ai`). */
        schema: z.string().optional(),
        /** The `db_id` the API exposes. */
        id: z.string().optional(),
        /** Migrate on start (default true). */
        autoMigrate: z.boolean().optional(),
      })
      .strict()
      .optional(),
    auth: z
      .object({
        securityKey: z.string().optional(),
        verificationKeys: z.array(z.string()).optional(),
        jwksFile: z.string().optional(),
        /** Beyond Agno: a JWKS URL (cached; refetched on an unknown kid at most once per 30 s). */
        jwksUrl: z.string().url().optional(),
        /** Checked only when set (Agno's default is not to check the audience). */
        audience: z.string().optional(),
        issuer: z.string().optional(),
        /** On by default; turn off only for single-tenant installs. */
        userIsolation: z.boolean().optional(),
        /** Reverse proxies (IPs or CIDRs) whose X-Forwarded-For entry names the client; none by default. */
        trustedProxies: z.array(z.string()).optional(),
        /** Longest lifetime, in days, of a service-account token a non-admin creates (default 90). */
        serviceAccountMaxDays: z.number().int().min(1).max(3650).optional(),
        /** Removed in v3: present only so it can be rejected with a pointer to verificationKeys. */
        secretKey: z.unknown().optional(),
      })
      .strict()
      .optional(),
    cors: z
      .object({ origins: z.array(z.string()).optional() })
      .strict()
      .optional(),
    limits: z
      .object({
        maxJsonBytes: z.number().int().positive().optional(),
        maxUploadBytes: z.number().int().positive().optional(),
        maxFormFieldBytes: z.number().int().positive().optional(),
      })
      .strict()
      .optional(),
    docs: z.object({ enabled: z.boolean().optional() }).strict().optional(),
    /** The MCP server at /mcp (lib/mcp-server): `true`, or an object (tag groups, agent tools; lib/config/mcp-settings.ts). */
    mcp: McpConfigSchema.optional(),
    /** Deprecated alias of `mcp` (the same value); accepted with a warning naming `mcp`. */
    mcpServer: McpConfigSchema.optional(),
    /** Not options: present only so they can be refused with a pointer to `mcp` (lib/config/mcp-settings.ts). */
    enableMcpServer: z.unknown().optional(),
    mcpConfig: z.unknown().optional(),
    redis: z.object({ url: z.string().optional() }).strict().optional(),
    queue: z
      .object({
        maxConcurrency: z.number().int().min(1).optional(),
        /** Background runs as agno_jobs rows any worker can claim (SQLite or PostgreSQL). */
        durable: z.boolean().optional(),
        /** Redis URL for live event streams and cross-replica cancellation (default: REDIS_URL). */
        redis: z.string().optional(),
        maxQueueDepth: z.number().int().min(1).optional(),
        maxAttempts: z.number().int().min(1).optional(),
        retryDelaySeconds: z.number().min(0).optional(),
        // A timer holds at most 2^31 − 1 ms (about 24.8 days).
        timeoutSeconds: z.number().positive().max(2_147_483).optional(),
        lockGraceSeconds: z.number().positive().max(86_400).optional(),
        pollIntervalMs: z.number().int().min(10).optional(),
        retentionSeconds: z.number().int().min(0).optional(),
        stopTimeoutSeconds: z.number().min(0).max(2_147_483).optional(),
        /** Jobs submitted here go only to workers of this deployment. */
        deploymentId: z.string().min(1).optional(),
        embeddedWorker: z.boolean().optional(),
      })
      .strict()
      .optional(),
    /**
     * The cron scheduler: on by default whenever there is a database; `false` (or AGENTRY_SCHEDULER=false)
     * turns it off, and then `POST /schedules/{id}/trigger` answers 503.
     */
    scheduler: z
      .union([
        z.boolean(),
        z
          .object({
            enabled: z.boolean().optional(),
            /** The longest the scheduler sleeps between looks at the table; it wakes sooner for the next due time. */
            pollIntervalMs: z.number().int().min(10).max(3_600_000).optional(),
            /** Fires (each following its run to its end) in flight at once per process. */
            maxConcurrentFires: z.number().int().min(1).max(10_000).optional(),
            /** A fire whose process died is taken over after this long. */
            lockGraceSeconds: z.number().int().min(1).max(86_400).optional(),
            /** Schedules one non-admin user may own (admins are unlimited); default 100. */
            maxSchedulesPerUser: z.number().int().min(1).max(1_000_000).optional(),
          })
          .strict(),
      ])
      .optional(),
    metrics: z
      .object({
        /**
         * USD per million tokens, by model id (an exact id, or a prefix ending in `*`); merged over
         * the built-in table of common OpenAI and Anthropic models (lib/models/prices.ts).
         */
        prices: z.record(z.string().min(1), z.object({ input: z.number().min(0), output: z.number().min(0), cachedInput: z.number().min(0).optional() }).strict()).optional(),
        /** Refresh yesterday's and today's metrics every day without anyone calling /metrics/refresh (default on). */
        dailyRefresh: z.boolean().optional(),
      })
      .strict()
      .optional(),
    /**
     * Every run recorded as a trace (lib/tracing): on by default; `false` (or AGENTRY_TRACING=false)
     * turns recording off (the /traces routes still answer). An object tunes it.
     */
    tracing: z
      .union([
        z.boolean(),
        z
          .object({
            enabled: z.boolean().optional(),
            /** `input.value`/`output.value` are cut at this many UTF-8 bytes (default 16 KiB). */
            maxAttributeBytes: z
              .number()
              .int()
              .min(256)
              .max(2 ** 26)
              .optional(),
            /** Traces older than this many days are deleted by a daily task (default 14; 0 keeps every trace). */
            retentionDays: z.number().int().min(0).max(36_500).optional(),
            /** Spans waiting for the database exporter; past it spans are dropped and counted (default 8,192). */
            maxQueueSize: z.number().int().min(16).max(1_000_000).optional(),
          })
          .strict(),
      ])
      .optional(),
    knowledge: z
      .object({
        /** Knowledge bases besides those agents name (with none anywhere, one named "Knowledge" is served). */
        bases: z.array(KnowledgeDefinitionSchema).optional(),
        /** The embedder (default: from the environment, OPENAI_EMBEDDING_MODEL or OPENAI_COMPATIBLE_EMBEDDING_MODEL); null for keyword search only. */
        embedder: EmbedderSpecSchema.nullable().optional(),
        /** Hosts URL ingestion may fetch even when they resolve to loopback, link-local or private addresses. */
        allowHosts: z.array(z.string().min(1)).optional(),
        /** A reader (in its worker thread) taking longer than this on one document fails it (default 60). */
        readerTimeoutSeconds: z.number().int().min(1).max(3600).optional(),
        /** Reader worker threads per process (default 2); each reads one document at a time. */
        readerThreads: z.number().int().min(1).max(64).optional(),
        /** The V8 heap a reader thread may use, in MiB (default 512); past it the document fails. */
        readerMemoryMiB: z.number().int().min(64).max(16_384).optional(),
        /** The most one entry of a zip-based document (DOCX) may inflate to, in bytes (default 50 MiB). */
        maxInflatedBytes: z.number().int().min(1024).optional(),
        /** The most text one document may yield, in characters (default 20 MiB worth). */
        maxExtractedChars: z.number().int().min(1024).optional(),
        /** The most pages of a PDF that are read (default 2,000). */
        maxPdfPages: z.number().int().min(1).optional(),
        /** The most HTML converted to Markdown per document, in bytes (default 10 MiB). */
        maxHtmlBytes: z.number().int().min(1024).optional(),
        /** The most rows of a CSV (default 200,000). */
        maxCsvRows: z.number().int().min(1).optional(),
        /** The deepest a JSON document may nest (default 64). */
        maxJsonDepth: z.number().int().min(1).max(10_000).optional(),
        /** The smallest chunk_size a submission may ask for, in characters (default 100). */
        minChunkSize: z.number().int().min(1).optional(),
        /** The most chunks one content may make (default 20,000). */
        maxChunksPerContent: z.number().int().min(1).optional(),
      })
      .strict()
      .optional(),
    /**
     * What Studio's components may use (lib/components/registry.ts): models, toolkits, knowledge
     * bases, output schemas and named learning machines. Code-defined agents, teams, workflows and
     * knowledge bases are in the registry without being listed here.
     */
    registry: RegistryConfigSchema.optional(),
    /** Studio (components made in the dashboard and the /components API). */
    studio: z
      .object({
        limits: z
          .object({
            /** Components one non-admin user may own (default 100; admins are unlimited). */
            maxComponentsPerUser: z.number().int().min(1).max(1_000_000).optional(),
            /** A component config's JSON size at most, in bytes (default 262,144: 256 KiB). */
            maxConfigBytes: z
              .number()
              .int()
              .min(1024)
              .max(64 * 1024 * 1024)
              .optional(),
            /** A config's instructions at most, in characters (default 32,000). */
            maxInstructionsChars: z.number().int().min(1).max(10_000_000).optional(),
          })
          .strict()
          .optional(),
      })
      .strict()
      .optional(),
    /** Agents (defineAgent), and agents another framework runs (defineExternalAgent, lib/config/external-agent.ts). */
    agents: z.array(z.union([ExternalAgentDefinitionSchema, AgentDefinitionSchema])).optional(),
    /** Teams (defineTeam): a leader model delegating to member agents or teams. */
    teams: z.array(TeamDefinitionSchema).optional(),
    /** Workflows (defineWorkflow, lib/config/workflow.ts; checked there: their steps hold functions). */
    workflows: z.array(z.unknown()).optional(),
    /** Chat UI quick prompts per agent id, as /config reports them. */
    quickPrompts: z.record(z.string(), z.array(z.string())).optional(),
  })
  .strict();
export type FileConfig = z.infer<typeof FileConfigSchema>;

/** Declares the whole AgentOS; validated again (with env) when settings are resolved. */
export function defineConfig(config: FileConfig): FileConfig {
  return config;
}

/** Declares a knowledge base; give it to agents (`knowledge`) or list it under `knowledge.bases`. */
export function defineKnowledge(definition: KnowledgeDefinition): KnowledgeDefinition {
  const parsed = KnowledgeDefinitionSchema.safeParse(definition);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "knowledge"}: ${i.message}`).join("; ");
    throw new ConfigError(`Knowledge '${String(definition.id)}' is invalid: ${issues}`);
  }
  return parsed.data;
}
