import { ExportResultCode, type ExportResult } from "@opentelemetry/core";
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace-base";
import type { Db } from "../db/open-database.ts";
import { traceTime } from "../db/traces/trace-rows.ts";
import { writeTraceBatch } from "../db/traces/traces.ts";
import { log } from "../log.ts";
import { boundSpan, type AttributePolicy } from "./bounded-attributes.ts";
import { toSpanRow, traceRowsOf } from "./span-rows.ts";

/**
 * Writes each exported batch to `agno_traces`/`agno_spans` (lib/db/traces) in one transaction:
 * the spans, and per trace id the row this batch makes, merged into the stored one. A failed
 * write is logged and reported to the processor; it never reaches a run.
 */
export class DatabaseSpanExporter implements SpanExporter {
  constructor(
    private readonly database: () => Db | null,
    private readonly policy: () => AttributePolicy,
  ) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    const db = this.database();
    if (!db || spans.length === 0) {
      done({ code: ExportResultCode.SUCCESS });
      return;
    }
    const createdAt = traceTime(Date.now());
    const policy = this.policy();
    const rows = spans.map((span) => toSpanRow(boundSpan(span, policy), createdAt));
    writeTraceBatch(db, { traces: traceRowsOf(rows, createdAt), spans: rows }).then(
      () => done({ code: ExportResultCode.SUCCESS }),
      (error: unknown) => {
        log.error(`[tracing] storing ${rows.length} spans failed: ${error instanceof Error ? error.message : String(error)}`);
        done({ code: ExportResultCode.FAILED, error: error instanceof Error ? error : new Error(String(error)) });
      },
    );
  }

  async shutdown(): Promise<void> {}

  async forceFlush(): Promise<void> {}
}

/** An exporter that sends spans with bounded attributes to another (the OTLP export). */
export function boundedExporter(inner: SpanExporter, policy: () => AttributePolicy): SpanExporter {
  return {
    export: (spans, done) => {
      const p = policy();
      inner.export(
        spans.map((s) => boundSpan(s, p)),
        done,
      );
    },
    shutdown: () => inner.shutdown(),
    forceFlush: () => inner.forceFlush?.() ?? Promise.resolve(),
  };
}
