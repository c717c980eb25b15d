"use client";

import { useState, type FormEvent, type KeyboardEvent, type RefObject } from "react";

/**
 * The message box: Enter sends, Shift+Enter starts a new line (and Enter while an IME is composing
 * is left to the IME). While a run is in flight, Stop replaces Send.
 */
export function Composer({
  inputRef,
  busy,
  stopping,
  onSend,
  onStop,
}: {
  inputRef: RefObject<HTMLTextAreaElement | null>;
  busy: boolean;
  stopping: boolean;
  onSend: (message: string) => void;
  onStop: () => void;
}) {
  const [draft, setDraft] = useState("");

  function submit(event?: FormEvent) {
    event?.preventDefault();
    const message = draft.trim();
    if (!message || busy) return;
    onSend(message);
    setDraft("");
  }

  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    if (event.key !== "Enter" || event.shiftKey || event.nativeEvent.isComposing) return;
    event.preventDefault();
    submit();
  }

  return (
    <form onSubmit={submit} className="flex items-end gap-2">
      <div className="min-w-0 flex-1">
        <label htmlFor="playground-message" className="sr-only">
          Message
        </label>
        <textarea
          id="playground-message"
          ref={inputRef}
          rows={2}
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={onKeyDown}
          placeholder="Message the agent…"
          aria-describedby="playground-message-hint"
          className="block max-h-48 w-full resize-y rounded border border-slate-300 bg-white px-3 py-2 text-sm focus:border-slate-500 focus:outline-none focus:ring-2 focus:ring-slate-300 dark:border-slate-600 dark:bg-slate-950 dark:focus:ring-slate-700"
        />
        <p id="playground-message-hint" className="mt-1 text-xs text-slate-600 dark:text-slate-400">
          Enter sends, Shift+Enter adds a line.
        </p>
      </div>
      {busy ? (
        <button
          type="button"
          onClick={onStop}
          disabled={stopping}
          className="mb-5 h-10 rounded border border-red-300 bg-white px-4 text-sm font-medium text-red-800 hover:bg-red-50 disabled:opacity-60 dark:border-red-800 dark:bg-slate-900 dark:text-red-200 dark:hover:bg-red-950"
        >
          {stopping ? "Stopping…" : "Stop"}
        </button>
      ) : (
        <button
          type="submit"
          disabled={!draft.trim()}
          className="mb-5 h-10 rounded bg-slate-900 px-4 text-sm font-medium text-white hover:bg-slate-700 disabled:opacity-50 dark:bg-slate-100 dark:text-slate-900 dark:hover:bg-slate-300"
        >
          Send
        </button>
      )}
    </form>
  );
}
