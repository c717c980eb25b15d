"use client";

import { useActionState, useId, useState, useTransition, type FormEvent } from "react";
import { Field, textInput } from "@/components/dashboard/form-field.tsx";
import type { SearchState } from "@/lib/http/dashboard/knowledge-actions.ts";
import type { SearchType } from "@/lib/knowledge/stores/vector-store.ts";
import { contentAnchor, type KnowledgeAction } from "./content-view.ts";

const TYPES: { value: SearchType; label: string; hint: string }[] = [
  { value: "hybrid", label: "Hybrid", hint: "by meaning and by words, fused by rank" },
  { value: "vector", label: "Vector", hint: "by meaning (embeddings)" },
  { value: "keyword", label: "Keyword", hint: "by words (full-text)" },
];

const IDLE: SearchState = { ok: null };

const link = "text-sky-700 hover:underline dark:text-sky-400";

/**
 * Tries a knowledge base's search as agents run it: a query, the search type (those the base
 * cannot run are disabled: vector and hybrid need an embedder) and how many results; each hit
 * shows its score, the content it comes from (linked to its row when the table lists it), its
 * chunk number and text. Searches see what the viewer may see: its own contents and the shared ones.
 */
export function KnowledgeSearch({
  action,
  knowledgeId,
  searchTypes,
  defaultSearchType,
  defaultMaxResults,
  maxResults,
  listedContentIds,
}: {
  action: KnowledgeAction<SearchState>;
  knowledgeId: string;
  searchTypes: SearchType[];
  defaultSearchType: SearchType;
  defaultMaxResults: number;
  maxResults: number;
  /** Contents the table shows now: their hits link to their rows. */
  listedContentIds: string[];
}) {
  const id = useId();
  const f = (name: string) => `${id}-${name}`;
  const [searchType, setSearchType] = useState<SearchType>(defaultSearchType);
  const [, startTransition] = useTransition();
  const [state, dispatch, pending] = useActionState(action, IDLE);
  // Submitted by hand: React resets a form after an action submitted through `action=`, and the query should stay.
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const formData = new FormData(event.currentTarget);
    startTransition(() => dispatch(formData));
  };
  const listed = new Set(listedContentIds);
  const noEmbedder = !searchTypes.includes("vector");
  const fieldError = (field: string) => (!pending && state.ok === false && state.field === field ? state.error : undefined);

  return (
    <div>
      <form onSubmit={onSubmit} className="grid gap-4" aria-label="Search knowledge" noValidate>
        <input type="hidden" name="knowledge_id" value={knowledgeId} />
        <div className="grid gap-4 md:grid-cols-[1fr_8rem]">
          <Field label="Query" htmlFor={f("query")}>
            <input id={f("query")} name="query" type="search" placeholder="What are you looking for?" className={textInput} aria-invalid={fieldError("query") ? true : undefined} />
            {fieldError("query") && (
              <p role="alert" className="mt-1 text-sm text-red-700 dark:text-red-300">
                {fieldError("query")}
              </p>
            )}
          </Field>
          <Field label="Max results" htmlFor={f("max")}>
            <input id={f("max")} name="max_results" type="number" min={1} max={maxResults} defaultValue={defaultMaxResults} className={textInput} />
            {fieldError("max_results") && (
              <p role="alert" className="mt-1 text-sm text-red-700 dark:text-red-300">
                {fieldError("max_results")}
              </p>
            )}
          </Field>
        </div>
        <fieldset>
          <legend className="mb-1 text-sm font-medium">Search type</legend>
          <div className="flex flex-wrap items-center gap-x-5 gap-y-2 text-sm">
            {TYPES.map((t) => {
              const available = searchTypes.includes(t.value);
              return (
                <label key={t.value} className={`flex items-center gap-1.5 ${available ? "cursor-pointer" : "cursor-not-allowed text-slate-400 dark:text-slate-600"}`} title={t.hint}>
                  <input type="radio" name="search_type" value={t.value} checked={searchType === t.value} disabled={!available} onChange={() => setSearchType(t.value)} />
                  {t.label}
                  <span className="text-xs text-slate-500">({t.hint})</span>
                </label>
              );
            })}
          </div>
          {noEmbedder && (
            <p className="mt-2 text-xs text-amber-800 dark:text-amber-300" data-testid="embedder-note">
              Vector and hybrid search need an embedder, and none is configured: set OPENAI_EMBEDDING_MODEL (with OPENAI_API_KEY), or OPENAI_COMPATIBLE_EMBEDDING_MODEL with OPENAI_COMPATIBLE_BASE_URL.
              Until then knowledge is searched by keyword.
            </p>
          )}
        </fieldset>
        <div className="flex items-center gap-3">
          <button
            type="submit"
            disabled={pending}
            className="h-9 rounded bg-slate-900 px-3 text-sm font-medium text-white hover:bg-slate-700 disabled:opacity-60 dark:bg-slate-100 dark:text-slate-900"
          >
            {pending ? "Searching…" : "Search"}
          </button>
          {!pending && state.ok && (
            <span role="status" className="text-sm text-slate-600 dark:text-slate-400" data-testid="search-summary">
              {state.message}
            </span>
          )}
        </div>
        {!pending && state.ok === false && !state.field && (
          <p role="alert" className="rounded border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-800 dark:border-red-800 dark:bg-red-950 dark:text-red-200" data-testid="search-error">
            {state.error}
          </p>
        )}
      </form>

      {state.ok && state.hits && (
        <div className={pending ? "opacity-60" : undefined}>
          {state.hits.length === 0 ? (
            <p className="mt-4 text-sm text-slate-500">Nothing you can see matches “{state.query}”.</p>
          ) : (
            <ol className="mt-4 space-y-3" aria-label="Search results" data-testid="search-results">
              {state.hits.map((hit, index) => (
                <li key={hit.id} className="rounded border border-slate-200 p-3 dark:border-slate-800" data-testid="search-hit">
                  <div className="mb-1.5 flex flex-wrap items-baseline gap-x-3 gap-y-1 text-sm">
                    <span className="text-slate-500">#{index + 1}</span>
                    <span title="Higher is more relevant">
                      <span className="text-slate-500">score </span>
                      <span className="font-mono font-medium tabular-nums" data-testid="hit-score">
                        {hit.score === null ? "—" : hit.score.toFixed(4)}
                      </span>
                    </span>
                    <span data-testid="hit-source">
                      {hit.contentId && listed.has(hit.contentId) ? (
                        <a className={link} href={`#${contentAnchor(hit.contentId)}`}>
                          {hit.name ?? "(unnamed)"}
                        </a>
                      ) : (
                        <span className="font-medium">{hit.name ?? "(unnamed)"}</span>
                      )}
                    </span>
                    <span className="text-slate-500" data-testid="hit-chunk">
                      {hit.chunk === null ? "chunk —" : `chunk ${hit.chunk}`}
                    </span>
                  </div>
                  <p className="max-h-48 overflow-y-auto text-sm break-words whitespace-pre-wrap text-slate-800 dark:text-slate-200" data-testid="hit-text">
                    {hit.content}
                  </p>
                </li>
              ))}
            </ol>
          )}
        </div>
      )}
    </div>
  );
}
