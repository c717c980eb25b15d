import { z } from "zod";

/**
 * The process environment, validated once. This module is the only reader of `process.env`
 * in the project: everything else asks `readEnv()`, so a typo in a variable fails at start with
 * its name instead of surfacing as `undefined` deep in a request.
 */
const optionalString = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value.trim() === "" ? undefined : value));

const optionalInt = (name: string, min: number, max: number) =>
  optionalString.transform((value, ctx) => {
    if (value === undefined) return undefined;
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed < min || parsed > max) {
      ctx.addIssue({ code: "custom", message: `${name} must be an integer from ${min} to ${max}, got '${value}'` });
      return z.NEVER;
    }
    return parsed;
  });

const optionalBool = (name: string) =>
  optionalString.transform((value, ctx) => {
    if (value === undefined) return undefined;
    const v = value.toLowerCase();
    if (["1", "true", "yes", "on"].includes(v)) return true;
    if (["0", "false", "no", "off"].includes(v)) return false;
    ctx.addIssue({ code: "custom", message: `${name} must be true or false, got '${value}'` });
    return z.NEVER;
  });

/** The web search backends AGENTRY_WEB_SEARCH may name (lib/runtime/tools/websearch/ implements them). */
export const WEB_SEARCH_BACKEND_NAMES = ["duckduckgo", "brave", "tavily", "searxng"] as const;
export type WebSearchBackendName = (typeof WEB_SEARCH_BACKEND_NAMES)[number];

export const EnvSchema = z.object({
  NODE_ENV: optionalString,
  CI: optionalBool("CI"),
  DATABASE_URL: optionalString,
  AGENTRY_DB_SCHEMA: optionalString,
  REDIS_URL: optionalString,
  OS_SECURITY_KEY: optionalString,
  JWT_VERIFICATION_KEY: optionalString,
  JWT_VERIFICATION_KEYS: optionalString,
  JWT_JWKS_FILE: optionalString,
  /** Dashboard sign-in (Auth.js): the session-signing secret, the public URL, optional OAuth providers. */
  AUTH_SECRET: optionalString,
  AUTH_URL: optionalString,
  AUTH_GITHUB_ID: optionalString,
  AUTH_GITHUB_SECRET: optionalString,
  AUTH_GOOGLE_ID: optionalString,
  AUTH_GOOGLE_SECRET: optionalString,
  AUTH_OIDC_ISSUER: optionalString,
  AUTH_OIDC_ID: optionalString,
  AUTH_OIDC_SECRET: optionalString,
  AUTH_OIDC_NAME: optionalString,
  JWT_JWKS: optionalString,
  JWT_JWKS_URL: optionalString,
  JWT_AUDIENCE: optionalString,
  JWT_ISSUER: optionalString,
  /** Reverse proxies whose X-Forwarded-For entry is believed (IPs or CIDRs, comma-separated). */
  AGENTRY_TRUSTED_PROXIES: optionalString,
  AGENTRY_SERVICE_ACCOUNT_MAX_DAYS: optionalInt("AGENTRY_SERVICE_ACCOUNT_MAX_DAYS", 1, 3650),
  AGENTRY_USER_ISOLATION: optionalBool("AGENTRY_USER_ISOLATION"),
  AGNO_BACKGROUND_MAX_CONCURRENCY: optionalInt("AGNO_BACKGROUND_MAX_CONCURRENCY", 1, 10_000),
  PORT: optionalInt("PORT", 1, 65_535),
  HOST: optionalString,
  AGENTRY_ALLOW_PUBLIC_BIND: optionalBool("AGENTRY_ALLOW_PUBLIC_BIND"),
  AGENTRY_OS_ID: optionalString,
  AGENTRY_OS_NAME: optionalString,
  AGENTRY_CORS_ORIGINS: optionalString,
  AGENTRY_MAX_UPLOAD_BYTES: optionalInt("AGENTRY_MAX_UPLOAD_BYTES", 1, 2 ** 31),
  AGENTRY_MAX_FORM_FIELD_BYTES: optionalInt("AGENTRY_MAX_FORM_FIELD_BYTES", 1, 2 ** 31),
  AGENTRY_DOCS_ENABLED: optionalBool("AGENTRY_DOCS_ENABLED"),
  /** Parse every JSON response against its route's declared schema (default: unless NODE_ENV is production). */
  AGENTRY_CHECK_RESPONSES: optionalBool("AGENTRY_CHECK_RESPONSES"),
  AGENTRY_EMBEDDED_WORKER: optionalBool("AGENTRY_EMBEDDED_WORKER"),
  AGENTRY_QUEUE_DURABLE: optionalBool("AGENTRY_QUEUE_DURABLE"),
  AGENTRY_QUEUE_LOCK_GRACE_SECONDS: optionalInt("AGENTRY_QUEUE_LOCK_GRACE_SECONDS", 1, 86_400),
  AGENTRY_QUEUE_POLL_INTERVAL_MS: optionalInt("AGENTRY_QUEUE_POLL_INTERVAL_MS", 10, 3_600_000),
  AGENTRY_DEPLOYMENT_ID: optionalString,
  /** `false` turns the cron scheduler off (scheduler: false). */
  AGENTRY_SCHEDULER: optionalBool("AGENTRY_SCHEDULER"),
  AGENTRY_SCHEDULER_POLL_INTERVAL_MS: optionalInt("AGENTRY_SCHEDULER_POLL_INTERVAL_MS", 10, 3_600_000),
  /** `true` serves MCP at /mcp (mcp: true); `false` turns a configured MCP server off. */
  AGENTRY_MCP: optionalBool("AGENTRY_MCP"),
  WORKER_PORT: optionalInt("WORKER_PORT", 1, 65_535),
  /** `false` turns tracing off (tracing: false); on by default. */
  AGENTRY_TRACING: optionalBool("AGENTRY_TRACING"),
  /** `input.value`/`output.value` of a span are cut at this many UTF-8 bytes (default 16 KiB). */
  AGENTRY_TRACE_MAX_ATTRIBUTE_BYTES: optionalInt("AGENTRY_TRACE_MAX_ATTRIBUTE_BYTES", 256, 2 ** 26),
  /** Traces older than this many days are deleted daily (default 14; 0 keeps every trace). */
  AGENTRY_TRACE_RETENTION_DAYS: optionalInt("AGENTRY_TRACE_RETENTION_DAYS", 0, 36_500),
  /** OTLP/HTTP export of the same spans (OpenTelemetry's standard variables). */
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalString,
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: optionalString,
  OTEL_EXPORTER_OTLP_HEADERS: optionalString,
  OTEL_SERVICE_NAME: optionalString,
  /** The Next.js build folder (next.config.ts reads it too); default `.next`. */
  AGENTRY_NEXT_DIST_DIR: optionalString,
  AGENTRY_LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).optional(),
  OPENAI_API_KEY: optionalString,
  OPENAI_MODEL: optionalString,
  ANTHROPIC_API_KEY: optionalString,
  ANTHROPIC_MODEL: optionalString,
  OPENAI_COMPATIBLE_BASE_URL: optionalString,
  OPENAI_COMPATIBLE_MODEL: optionalString,
  OPENAI_COMPATIBLE_API_KEY: optionalString,
  /** More model providers, checked in this order after the three above (lib/config/model-from-env.ts). */
  MISTRAL_API_KEY: optionalString,
  MISTRAL_MODEL: optionalString,
  CEREBRAS_API_KEY: optionalString,
  CEREBRAS_MODEL: optionalString,
  GROQ_API_KEY: optionalString,
  GROQ_MODEL: optionalString,
  /** Google Gemini's key: the AI SDK's name, or GOOGLE_API_KEY (the name Google's own SDKs and Agno read). */
  GOOGLE_GENERATIVE_AI_API_KEY: optionalString,
  GOOGLE_API_KEY: optionalString,
  GOOGLE_MODEL: optionalString,
  /** Knowledge embedders (lib/config/embedder-from-env.ts). */
  OPENAI_EMBEDDING_MODEL: optionalString,
  OPENAI_COMPATIBLE_EMBEDDING_MODEL: optionalString,
  AGENTRY_EMBEDDING_DIMENSIONS: optionalInt("AGENTRY_EMBEDDING_DIMENSIONS", 1, 16_000),
  /** Hosts knowledge URL ingestion may fetch even when they resolve to private addresses (comma list). */
  AGENTRY_KNOWLEDGE_ALLOW_HOSTS: optionalString,
  /**
   * Web search for the sample assistant and Studio (lib/config/web-search-from-env.ts): off unless
   * this names a backend; Brave and Tavily need their key, SearXNG its instance's URL.
   */
  AGENTRY_WEB_SEARCH: optionalString.transform((value, ctx) => {
    if (value === undefined) return undefined;
    const backend = value.trim().toLowerCase();
    if ((WEB_SEARCH_BACKEND_NAMES as readonly string[]).includes(backend)) return backend as WebSearchBackendName;
    ctx.addIssue({ code: "custom", message: `AGENTRY_WEB_SEARCH must be one of ${WEB_SEARCH_BACKEND_NAMES.join(", ")} (or unset, for no web search), got '${value}'` });
    return z.NEVER;
  }),
  BRAVE_API_KEY: optionalString,
  TAVILY_API_KEY: optionalString,
  SEARXNG_URL: optionalString,
  /** Hosts web search may reach even when they resolve to private addresses (comma list; a local SearXNG). */
  AGENTRY_WEB_SEARCH_ALLOW_HOSTS: optionalString,
  /** Test harness only: the PostgreSQL and Redis servers the suites use, and whether they must be up. */
  AGENTRY_TEST_POSTGRES_URL: optionalString,
  AGENTRY_TEST_REDIS_URL: optionalString,
  AGENTRY_TEST_REQUIRE_SERVICES: optionalBool("AGENTRY_TEST_REQUIRE_SERVICES"),
  AGENTRY_E2E_PORT: optionalInt("AGENTRY_E2E_PORT", 1, 65_535),
});

export type Env = z.infer<typeof EnvSchema>;

export class EnvError extends Error {
  override readonly name = "EnvError";
}

/** Parses an environment (the process's by default). Throws EnvError naming every bad variable. */
export function parseEnv(source: Record<string, string | undefined>): Env {
  const result = EnvSchema.safeParse(source);
  if (!result.success) {
    const lines = result.error.issues.map((issue) => `  - ${issue.path.join(".") || "env"}: ${issue.message}`);
    throw new EnvError(`Invalid environment:\n${lines.join("\n")}`);
  }
  return result.data;
}

const cacheKey = Symbol.for("agentry.env");
type EnvCache = { [cacheKey]?: Env };

/** The validated process environment, parsed once per process. */
export function readEnv(): Env {
  const holder = globalThis as EnvCache;
  holder[cacheKey] ??= parseEnv(process.env);
  return holder[cacheKey];
}
