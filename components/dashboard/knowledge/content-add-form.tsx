"use client";

import { useId, useState, type FormEvent, type ReactNode } from "react";
import { Field, textInput } from "@/components/dashboard/form-field.tsx";
import { useKeepingForm } from "@/components/dashboard/use-keeping-form.ts";
import { ActionResult } from "@/components/dashboard/users/action-result.tsx";
import type { ContentFormState, KnowledgeFormField } from "@/lib/http/dashboard/knowledge-actions.ts";
import { formatBytes, type KnowledgeAction } from "./content-view.ts";

type Mode = "file" | "url" | "text";

const MODES: { value: Mode; label: string }[] = [
  { value: "file", label: "File" },
  { value: "url", label: "URL" },
  { value: "text", label: "Text" },
];

/** The formats the readers know (lib/knowledge/readers); any other file is read as text. */
const ACCEPT = ".pdf,.docx,.csv,.json,.md,.markdown,.txt,.html,.htm,application/pdf,text/*,application/json";

/**
 * Next.js refuses a server action whose body is over 1 MiB (its default `bodySizeLimit`, which
 * next.config.ts keeps), before the action runs; the form says so itself rather than fail. The
 * margin leaves room for the other fields and the multipart framing.
 */
const DASHBOARD_UPLOAD_BYTES = 1024 * 1024 - 32 * 1024;

const IDLE: ContentFormState = { ok: null };

/** A field's refusal, under the field it is about. */
function FieldError({ id, message }: { id: string; message: string | undefined }) {
  if (!message) return null;
  return (
    <p id={id} role="alert" className="mt-1 text-sm text-red-700 dark:text-red-300" data-testid="field-error">
      {message}
    </p>
  );
}

/**
 * Adds a content to the knowledge base the page shows: a file, a web address or pasted text (one
 * at a time, chosen with the switch), with an optional name, description and metadata (a JSON
 * object). A refusal is shown next to the field it is about and what was typed stays; the form
 * empties once the content is stored, and its row appears in the table as processing. While a
 * file is sent the button says so.
 */
export function ContentAddForm({ action, knowledgeId, shared, maxUploadBytes }: { action: KnowledgeAction<ContentFormState>; knowledgeId: string; shared: boolean; maxUploadBytes: number }) {
  const id = useId();
  const f = (name: string) => `${id}-${name}`;
  const [mode, setMode] = useState<Mode>("file");
  const [localError, setLocalError] = useState<{ field: KnowledgeFormField; message: string } | null>(null);
  const [sending, setSending] = useState<string | null>(null);
  const { ref, onSubmit, state, pending } = useKeepingForm(action, IDLE);
  const limit = Math.min(maxUploadBytes, DASHBOARD_UPLOAD_BYTES);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    setLocalError(null);
    const file = new FormData(event.currentTarget).get("file");
    if (file instanceof File && file.size > limit) {
      event.preventDefault();
      setLocalError({ field: "file", message: `${file.name} is ${formatBytes(file.size)}; the dashboard takes files up to ${formatBytes(limit)}. Send larger ones with POST /knowledge/content.` });
      return;
    }
    setSending(file instanceof File && file.size > 0 ? `Uploading ${file.name} (${formatBytes(file.size)})…` : "Adding…");
    onSubmit(event);
  };

  const errorOf = (field: KnowledgeFormField): string | undefined =>
    localError?.field === field ? localError.message : !pending && state.ok === false && state.field === field ? state.error : undefined;
  const sourceError = errorOf("source");
  const fieldProps = (field: KnowledgeFormField) => {
    const message = errorOf(field);
    return message ? { "aria-invalid": true, "aria-describedby": f(`${field}-error`) } : {};
  };
  const otherError = !pending && state.ok === false && !state.field ? state : null;

  let source: ReactNode;
  if (mode === "file") {
    source = (
      <Field label="File to upload" htmlFor={f("file")} hint={`PDF, DOCX, CSV, JSON, Markdown, HTML or text, up to ${formatBytes(limit)}.`}>
        <input
          id={f("file")}
          name="file"
          type="file"
          accept={ACCEPT}
          className={`${textInput} file:mr-3 file:rounded file:border-0 file:bg-slate-100 file:px-2 file:py-1 file:text-sm dark:file:bg-slate-800 dark:file:text-slate-200`}
          {...fieldProps("file")}
        />
        <FieldError id={f("file-error")} message={errorOf("file")} />
      </Field>
    );
  } else if (mode === "url") {
    source = (
      <Field label="Page or file URL" htmlFor={f("url")} hint="A page or file on the web (http or https); it is fetched and read by its type.">
        <input id={f("url")} name="url" type="text" inputMode="url" placeholder="https://example.com/guide.md" className={textInput} {...fieldProps("url")} />
        <FieldError id={f("url-error")} message={errorOf("url")} />
      </Field>
    );
  } else {
    source = (
      <Field label="Text to add" htmlFor={f("text")}>
        <textarea id={f("text")} name="text_content" rows={6} placeholder="Paste the text to add…" className={textInput} {...fieldProps("text_content")} />
        <FieldError id={f("text_content-error")} message={errorOf("text_content")} />
      </Field>
    );
  }

  return (
    <form ref={ref} onSubmit={submit} className="grid gap-4" aria-label="Add content" noValidate>
      <input type="hidden" name="knowledge_id" value={knowledgeId} />
      <fieldset>
        <legend className="mb-1 text-sm font-medium">Add from</legend>
        <div className="inline-flex overflow-hidden rounded border border-slate-300 text-sm dark:border-slate-700">
          {MODES.map((m) => (
            <label
              key={m.value}
              className={`relative cursor-pointer border-slate-300 px-3 py-1.5 not-first:border-l has-[:focus-visible]:ring-2 has-[:focus-visible]:ring-slate-400 dark:border-slate-700 ${
                mode === m.value ? "bg-slate-900 text-white dark:bg-slate-100 dark:text-slate-900" : "bg-white hover:bg-slate-50 dark:bg-slate-950 dark:hover:bg-slate-800"
              }`}
            >
              <input type="radio" name="mode" value={m.value} checked={mode === m.value} onChange={() => setMode(m.value)} className="absolute inset-0 cursor-pointer opacity-0" />
              {m.label}
            </label>
          ))}
        </div>
      </fieldset>
      <div>
        {source}
        {sourceError && (
          <p role="alert" className="mt-1 text-sm text-red-700 dark:text-red-300" data-testid="field-error">
            {sourceError}
          </p>
        )}
      </div>
      <div className="grid gap-4 md:grid-cols-2">
        <Field label="Name" htmlFor={f("name")} hint="Optional; defaults to the file name, the URL or “Text”.">
          <input id={f("name")} name="name" maxLength={255} className={textInput} {...fieldProps("name")} />
          <FieldError id={f("name-error")} message={errorOf("name")} />
        </Field>
        <Field label="Description" htmlFor={f("description")} hint="Optional.">
          <input id={f("description")} name="description" maxLength={1000} className={textInput} {...fieldProps("description")} />
          <FieldError id={f("description-error")} message={errorOf("description")} />
        </Field>
      </div>
      <Field label="Metadata" htmlFor={f("metadata")} hint="Optional: a JSON object stored with every chunk, to filter searches on.">
        <textarea id={f("metadata")} name="metadata" rows={2} placeholder='{"topic": "camping"}' className={`${textInput} font-mono`} {...fieldProps("metadata")} />
        <FieldError id={f("metadata-error")} message={errorOf("metadata")} />
      </Field>
      <div className="flex flex-wrap items-center gap-3">
        <button type="submit" disabled={pending} className="h-9 rounded bg-slate-900 px-3 text-sm font-medium text-white hover:bg-slate-700 disabled:opacity-60 dark:bg-slate-100 dark:text-slate-900">
          {pending ? (mode === "file" ? "Uploading…" : "Adding…") : "Add content"}
        </button>
        {pending && (
          <span role="status" className="flex items-center gap-2 text-sm text-slate-600 dark:text-slate-400" data-testid="upload-progress">
            <span aria-hidden className="relative block h-1.5 w-24 overflow-hidden rounded bg-slate-200 dark:bg-slate-700">
              <span className="absolute inset-y-0 left-0 w-1/3 animate-pulse rounded bg-slate-600 dark:bg-slate-300" />
            </span>
            {sending}
          </span>
        )}
        {!pending && state.ok && <ActionResult state={state} />}
        {otherError && <ActionResult state={otherError} />}
        <span className="ml-auto text-xs text-slate-500">{shared ? "You are an admin: what you add is shared with every user." : "What you add is yours: only you (and admins) can see it."}</span>
      </div>
    </form>
  );
}
