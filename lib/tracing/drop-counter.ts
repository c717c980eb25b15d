import { hostname } from "node:os";
import type { Context } from "@opentelemetry/api";
import type { ReadableSpan, Span, SpanExporter, SpanProcessor } from "@opentelemetry/sdk-trace-base";
import { BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { ExportResultCode, type ExportResult } from "@opentelemetry/core";
import { TRACER_NAME } from "../runtime/run-trace.ts";

/** This process's name in `agentry_trace_drops`. */
export const PROCESS_ID = `${hostname()}-${process.pid}`;

/**
 * A batch span processor that never blocks or fails a run: spans wait in a bounded queue for the
 * exporter, and a span that finds the queue full, or is in a batch the exporter failed to store,
 * is dropped and counted (`dropped`, which
 * lib/tracing/setup.ts adds to the database's per-process daily row). Only Agentry's own spans
 * (scope `agentry`) are taken.
 */
export class BoundedSpanProcessor implements SpanProcessor {
  private readonly inner: BatchSpanProcessor;
  private waiting = 0;
  /** Spans dropped since the count was last taken. */
  dropped = 0;

  constructor(
    exporter: SpanExporter,
    private readonly maxQueueSize: number,
    options: { maxExportBatchSize?: number; scheduledDelayMillis?: number } = {},
  ) {
    const counting: SpanExporter = {
      export: (spans: ReadableSpan[], done: (result: ExportResult) => void) => {
        this.waiting = Math.max(0, this.waiting - spans.length);
        exporter.export(spans, (result) => {
          // A batch the exporter could not store is lost: counted with the drops.
          if (result.code !== ExportResultCode.SUCCESS) this.dropped += spans.length;
          done(result);
        });
      },
      shutdown: () => exporter.shutdown(),
      forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve(),
    };
    // The inner queue is larger than ours, so it never drops a span itself: every drop is counted here.
    this.inner = new BatchSpanProcessor(counting, {
      maxQueueSize: maxQueueSize * 2,
      maxExportBatchSize: Math.min(options.maxExportBatchSize ?? 512, maxQueueSize),
      scheduledDelayMillis: options.scheduledDelayMillis ?? 1000,
    });
  }

  onStart(_span: Span, _parentContext: Context): void {}

  onEnd(span: ReadableSpan): void {
    if (span.instrumentationScope.name !== TRACER_NAME) return;
    if (this.waiting >= this.maxQueueSize) {
      this.dropped++;
      return;
    }
    this.waiting++;
    this.inner.onEnd(span);
  }

  /** Takes the drop count (and resets it). */
  takeDropped(): number {
    const n = this.dropped;
    this.dropped = 0;
    return n;
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }
}

/** A processor that passes only Agentry's spans on (the OTLP export's, whose processor drops on its own). */
export class AgentrySpansOnly implements SpanProcessor {
  constructor(private readonly inner: SpanProcessor) {}
  onStart(span: Span, parentContext: Context): void {
    this.inner.onStart(span, parentContext);
  }
  onEnd(span: ReadableSpan): void {
    if (span.instrumentationScope.name === TRACER_NAME) this.inner.onEnd(span);
  }
  forceFlush(): Promise<void> {
    return this.inner.forceFlush();
  }
  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }
}
