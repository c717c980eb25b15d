import { context, ProxyTracerProvider, trace, type Tracer, type TracerProvider } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, BatchSpanProcessor, RandomIdGenerator, type IdGenerator, type SpanProcessor } from "@opentelemetry/sdk-trace-base";
import { readEnv } from "../config/env.ts";
import type { Settings } from "../config/settings.ts";
import type { Db } from "../db/open-database.ts";
import { addDroppedSpans } from "../db/traces/traces.ts";
import { log } from "../log.ts";
import { setSpanValueLimit, TRACER_NAME, takePendingTraceId } from "../runtime/run-trace.ts";
import type { AttributePolicy } from "./bounded-attributes.ts";
import { DatabaseSpanExporter, boundedExporter } from "./database-exporter.ts";
import { AgentrySpansOnly, BoundedSpanProcessor, PROCESS_ID } from "./drop-counter.ts";

/**
 * The process's tracer provider: installed once (its state on `globalThis`, since Next loads this
 * module once per module graph), registered as OpenTelemetry's global provider for the `agentry`
 * scope only (Next.js's own spans get a no-op tracer), with the async-hooks context manager so a
 * run's children find their parent span. Spans go through a bounded batch processor to the
 * database exporter and, when an OTLP endpoint is configured, to the collector too.
 */

interface TracingState {
  shape: string;
  enabled: boolean;
  tracer: Tracer;
  db: Db | null;
  policy: AttributePolicy;
  provider: BasicTracerProvider;
  database: BoundedSpanProcessor;
  otlp: SpanProcessor | null;
  dropTimer: NodeJS.Timeout;
}

const KEY = Symbol.for("agentry.tracing");
type Holder = { [KEY]?: TracingState };

/** A trace id waiting from a continuation (lib/runtime/run-trace.ts) comes first; otherwise random ids. */
class ContinuationIdGenerator implements IdGenerator {
  private readonly random = new RandomIdGenerator();
  generateTraceId(): string {
    return takePendingTraceId() ?? this.random.generateTraceId();
  }
  generateSpanId(): string {
    return this.random.generateSpanId();
  }
}

/** The API's no-op tracer (a proxy with no provider behind it): its spans do not record, so the runtime serializes nothing for them. */
const NOOP_TRACER: Tracer = new ProxyTracerProvider().getTracer("noop");

/**
 * Strings that must never land in a span: every key, secret, token and password in the settings
 * and in the environment (a provider key the model SDK reads itself is in the environment only),
 * and the credential after an auth scheme (`Bearer <token>`) on its own.
 */
export function secretsOf(settings: Settings, env: Record<string, unknown> = readEnv()): string[] {
  const found = new Set<string>();
  const add = (value: string) => {
    if (value.length >= 8) found.add(value);
    const credential = /^\S+\s+(\S{8,})$/.exec(value.trim());
    if (credential) found.add(credential[1]!);
  };
  const walk = (value: unknown, key: string, depth: number): void => {
    if (depth > 8 || value === null || value === undefined) return;
    if (typeof value === "string") {
      if (/key|secret|token|password|authorization/i.test(key)) add(value);
      return;
    }
    if (typeof value !== "object" || typeof value === "function") return;
    if (Array.isArray(value)) for (const item of value) walk(item, key, depth + 1);
    else for (const [k, v] of Object.entries(value)) walk(v, k, depth + 1);
  };
  walk(settings, "", 0);
  walk(env, "", 0);
  return [...found];
}

function policyOf(settings: Settings): AttributePolicy {
  return { maxBytes: settings.tracing.maxAttributeBytes, secrets: secretsOf(settings) };
}

/** What a tracer provider is built from: a change (a test's OTLP receiver, another dialect's batch size) rebuilds it. */
function shapeOf(settings: Settings, db: Db): string {
  return JSON.stringify([settings.tracing.enabled, settings.tracing.maxQueueSize, settings.tracing.otlp, db.dialect]);
}

/**
 * Installs tracing for this process and writes its spans to `db` (the latest database given: one
 * per process in a server or worker). Idempotent: called again with the same tracing settings it
 * only rebinds the database; with others (enabled, queue size, OTLP endpoint) it flushes and
 * replaces the provider behind the global registration.
 */
export function ensureTracing(settings: Settings, db: Db): void {
  const holder = globalThis as Holder;
  const existing = holder[KEY];
  const shape = shapeOf(settings, db);
  setSpanValueLimit(settings.tracing.maxAttributeBytes);
  if (existing && existing.shape === shape) {
    existing.db = db;
    existing.policy = policyOf(settings);
    return;
  }
  if (existing) {
    holder[KEY] = undefined;
    clearInterval(existing.dropTimer);
    void existing.provider.shutdown().catch(() => undefined);
  }
  registerGlobals();
  if (!settings.tracing.enabled) return;
  const state = { shape, enabled: true, db, policy: policyOf(settings) } as TracingState;
  const policy = () => state.policy;
  // SQLite writes a batch synchronously on the event loop (better-sqlite3): smaller batches keep
  // each stall short (bench/README.md "Traces").
  state.database = new BoundedSpanProcessor(new DatabaseSpanExporter(() => state.db, policy), settings.tracing.maxQueueSize, {
    maxExportBatchSize: db.dialect === "sqlite" ? 128 : 512,
  });
  const otlp = settings.tracing.otlp;
  state.otlp = otlp ? new AgentrySpansOnly(new BatchSpanProcessor(boundedExporter(new OTLPTraceExporter({ url: otlp.url, headers: otlp.headers }), policy))) : null;
  state.provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ "service.name": otlp?.serviceName ?? "agentry" }),
    idGenerator: new ContinuationIdGenerator(),
    // A knowledge search's span names each chunk it found (two attributes a chunk): room for 100 and more.
    spanLimits: { attributeCountLimit: 1024 },
    spanProcessors: state.otlp ? [state.database, state.otlp] : [state.database],
  });
  state.tracer = state.provider.getTracer(TRACER_NAME);
  // Dropped spans are added to this process's row of the day once a minute (best effort).
  state.dropTimer = setInterval(() => void recordDrops(state), 60_000);
  state.dropTimer.unref();
  holder[KEY] = state;
  if (otlp) log.info(`[tracing] spans also go to ${otlp.url} as service ${otlp.serviceName}`);
}

const GLOBALS = Symbol.for("agentry.tracing.globals");

/**
 * Registers, once per process, the global tracer provider (Agentry's scope gets the installed
 * provider's tracer while recording is on; any other scope, such as Next.js's, a no-op one) and
 * the async-hooks context manager.
 */
function registerGlobals(): void {
  const holder = globalThis as { [GLOBALS]?: true };
  if (holder[GLOBALS]) return;
  holder[GLOBALS] = true;
  const scoped: TracerProvider = {
    getTracer: (name) => {
      const state = (globalThis as Holder)[KEY];
      return state?.enabled && name === TRACER_NAME ? state.tracer : NOOP_TRACER;
    },
  };
  if (!trace.setGlobalTracerProvider(scoped)) log.warn("[tracing] another OpenTelemetry tracer provider is registered: Agentry's spans go there");
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
}

async function recordDrops(state: TracingState): Promise<void> {
  const count = state.database.takeDropped();
  if (count === 0 || !state.db) return;
  try {
    await addDroppedSpans(state.db, { processId: PROCESS_ID, day: new Date().toISOString().slice(0, 10), count });
  } catch (error) {
    log.warn(`[tracing] could not record ${count} dropped spans: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Whether this process records spans now. */
export function tracingActive(): boolean {
  return (globalThis as Holder)[KEY]?.enabled ?? false;
}

/**
 * Turns recording on or off in this process without reinstalling (the overhead benchmark
 * interleaves runs with and without). Has no effect when tracing was never installed.
 */
export function setTracingEnabled(enabled: boolean): void {
  const state = (globalThis as Holder)[KEY];
  if (state) state.enabled = enabled;
}

/** Exports every finished span now and records the drop count (tests, a worker's shutdown); never throws. */
export async function flushTracing(): Promise<void> {
  const state = (globalThis as Holder)[KEY];
  if (!state) return;
  try {
    await state.provider.forceFlush();
  } catch (error) {
    // The failed batch is logged by the exporter and counted with the drops.
    log.warn(`[tracing] flushing spans failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  await recordDrops(state);
}

/** Spans dropped in this process and not yet added to the database. */
export function pendingDroppedSpans(): number {
  return (globalThis as Holder)[KEY]?.database.dropped ?? 0;
}
