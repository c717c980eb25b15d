import { ExportResultCode, type ExportResult } from "@opentelemetry/core";
import { BasicTracerProvider, type ReadableSpan, type SpanExporter } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { TRACER_NAME } from "@/lib/runtime/run-trace.ts";
import { boundAttributes, cutUtf8 } from "@/lib/tracing/bounded-attributes.ts";
import { DatabaseSpanExporter } from "@/lib/tracing/database-exporter.ts";
import { BoundedSpanProcessor } from "@/lib/tracing/drop-counter.ts";
import { openDatabase } from "@/lib/db/open-database.ts";

/** An exporter that takes spans and never answers until released: the processor's queue backs up behind it. */
function stalledExporter() {
  const received: ReadableSpan[] = [];
  const pending: ((r: ExportResult) => void)[] = [];
  const exporter: SpanExporter = {
    export: (spans, done) => {
      received.push(...spans);
      pending.push(done);
    },
    shutdown: async () => undefined,
  };
  return {
    exporter,
    received,
    release: () => {
      for (const done of pending.splice(0)) done({ code: ExportResultCode.SUCCESS });
    },
  };
}

describe("the bounded batch processor", () => {
  it("drops and counts the spans that find its queue full, never blocking the caller, and takes only Agentry's scope", async () => {
    const stalled = stalledExporter();
    const processor = new BoundedSpanProcessor(stalled.exporter, 16, { scheduledDelayMillis: 10 });
    const provider = new BasicTracerProvider({ spanProcessors: [processor] });
    const tracer = provider.getTracer(TRACER_NAME);
    const started = performance.now();
    for (let i = 0; i < 500; i++) tracer.startSpan(`s${i}`).end();
    provider.getTracer("next.js").startSpan("GET /").end();
    expect(performance.now() - started).toBeLessThan(1000);
    await new Promise((r) => setTimeout(r, 50));
    const dropped = processor.takeDropped();
    expect(dropped).toBeGreaterThan(400);
    expect(processor.takeDropped()).toBe(0);
    // Released, the exporter takes the rest as the processor flushes.
    let flushed = false;
    const flushing = processor.forceFlush().then(() => (flushed = true));
    while (!flushed) {
      stalled.release();
      await new Promise((r) => setTimeout(r, 5));
    }
    await flushing;
    // Every span went either to the exporter or to the drop count; Next's span went nowhere.
    expect(stalled.received.length + dropped).toBe(500);
    expect(stalled.received.some((s) => s.name === "GET /")).toBe(false);
    await provider.shutdown();
  });

  it("a database that fails the write is reported to the processor and logged, never thrown", async () => {
    const db = await openDatabase({ url: "file::memory:" });
    await db.close();
    const exporter = new DatabaseSpanExporter(
      () => db,
      () => ({ maxBytes: 1024, secrets: [] }),
    );
    const provider = new BasicTracerProvider();
    const span = provider.getTracer(TRACER_NAME).startSpan("x");
    span.end();
    const result = await new Promise<ExportResult>((resolve) => exporter.export([span as unknown as ReadableSpan], resolve));
    expect(result.code).toBe(ExportResultCode.FAILED);
    // Behind the bounded processor, the failed batch's spans are counted as dropped.
    const processor = new BoundedSpanProcessor(exporter, 16, { scheduledDelayMillis: 10 });
    const counted = new BasicTracerProvider({ spanProcessors: [processor] });
    for (let i = 0; i < 3; i++) counted.getTracer(TRACER_NAME).startSpan(`lost${i}`).end();
    await expect(processor.forceFlush()).rejects.toThrow(/not open/);
    expect(processor.takeDropped()).toBe(3);
    await counted.shutdown();
  });
});

describe("bounded attributes", () => {
  it("cuts on a UTF-8 boundary and records the original byte length; redacts configured secrets", () => {
    expect(cutUtf8("abc", 10)).toBeNull();
    const cut = cutUtf8("a€€€", 5)!;
    expect(cut).toEqual({ text: "a€", bytes: 10 });
    const bounded = boundAttributes({ "input.value": "é".repeat(10), "output.value": "key sk-abcdef123456 here", other: 3 }, { maxBytes: 7, secrets: ["sk-abcdef123456"] });
    expect(bounded).toEqual({ "input.value": "ééé", "agentry.truncated.input": 20, "output.value": "key [RE", "agentry.truncated.output": 19, other: 3 });
  });
});
