"use client";

import type { ReactNode } from "react";
import type { TimelineSpan } from "@/lib/tracing/trace-timeline.ts";
import { formatCount } from "../format.ts";
import { JsonView } from "../json-view.tsx";
import { formatUsd } from "../metrics/format-usd.ts";
import { StatusBadge } from "../status-badge.tsx";
import { formatAxisMs, jsonOrText, typeBadgeClass } from "./trace-format.ts";

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <>
      <dt className="text-slate-500">{label}</dt>
      <dd className="min-w-0 break-words">{children}</dd>
    </>
  );
}

function Block({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div>
      <h4 className="mb-1 text-xs font-medium tracking-wide text-slate-500 uppercase">{title}</h4>
      {children}
    </div>
  );
}

/** One span's details: timing, a model call's tokens and cost or a tool call's arguments and result, input, output, error, attributes. */
export function SpanPanel({ span, onClose }: { span: TimelineSpan; onClose: () => void }) {
  const { llm, tool } = span;
  return (
    <section aria-label={`Span ${span.name}`} data-testid="span-panel" className="space-y-3 rounded border border-slate-200 bg-white p-3 text-sm dark:border-slate-800 dark:bg-slate-900">
      <header className="flex items-start gap-2">
        <span className={`mt-0.5 shrink-0 rounded px-1 text-[10px] font-semibold tracking-wide ${typeBadgeClass(span.type)}`}>{span.type}</span>
        <h3 className="min-w-0 flex-1 font-mono text-sm font-medium break-all">{span.name}</h3>
        <button type="button" onClick={onClose} aria-label="Close the span's panel" className="shrink-0 rounded px-1.5 text-slate-500 hover:bg-slate-100 dark:hover:bg-slate-800">
          ✕
        </button>
      </header>
      <dl className="grid grid-cols-[7rem_minmax(0,1fr)] gap-x-3 gap-y-1">
        <Field label="Status">
          <StatusBadge status={span.status} />
        </Field>
        <Field label="Duration">{span.duration}</Field>
        <Field label="Starts at">+{formatAxisMs(span.offsetMs)}</Field>
        {llm && (
          <>
            <Field label="Model">
              <span className="font-mono text-xs">
                {llm.provider ? `${llm.provider}/` : ""}
                {llm.model ?? "—"}
              </span>
            </Field>
            <Field label="Tokens">
              <span data-testid="span-tokens">
                {formatCount(llm.inputTokens)} in · {formatCount(llm.outputTokens)} out
              </span>
            </Field>
            <Field label="Cost">{formatUsd(llm.cost)}</Field>
          </>
        )}
        {tool && (
          <Field label="Tool">
            <span className="font-mono text-xs">{tool.name}</span>
          </Field>
        )}
        <Field label="Span id">
          <span className="font-mono text-xs">{span.id}</span>
        </Field>
      </dl>
      {span.error && (
        <Block title="Error">
          <p role="alert" className="rounded border border-red-300 bg-red-50 p-2 whitespace-pre-wrap text-red-800 dark:border-red-800 dark:bg-red-950 dark:text-red-200">
            {span.error}
          </p>
        </Block>
      )}
      {tool ? (
        <>
          <Block title="Arguments">
            <JsonView value={jsonOrText(tool.arguments) ?? "(none)"} label={`${tool.name} arguments`} />
          </Block>
          {!span.error && (
            <Block title="Result">
              <JsonView value={jsonOrText(tool.result) ?? "(no result)"} label={`${tool.name} result`} />
            </Block>
          )}
        </>
      ) : (
        <>
          {span.input !== null && (
            <Block title="Input">
              <JsonView value={jsonOrText(span.input)} label={`${span.name} input`} />
            </Block>
          )}
          {span.output !== null && (
            <Block title="Output">
              <JsonView value={jsonOrText(span.output)} label={`${span.name} output`} />
            </Block>
          )}
        </>
      )}
      <details>
        <summary className="cursor-pointer text-xs font-medium tracking-wide text-slate-500 uppercase">Attributes ({Object.keys(span.attributes).length})</summary>
        <div className="mt-1">
          <JsonView value={span.attributes} label={`${span.name} attributes`} />
        </div>
      </details>
    </section>
  );
}
