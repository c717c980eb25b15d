"use client";

import { type ReactNode, useEffect, useRef, useState } from "react";

type CopyState = "idle" | "copied" | "failed";

/** Puts text on the clipboard: the Clipboard API where the page may use it, else a selected textarea. */
async function copyText(text: string): Promise<void> {
  if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
  // Over plain http on another host the Clipboard API is absent: the older copy command still works.
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.style.position = "fixed";
  area.style.opacity = "0";
  document.body.append(area);
  area.select();
  const copied = document.execCommand("copy");
  area.remove();
  if (!copied) throw new Error("copy refused");
}

/** A fenced code block of an answer: its language, a copy button, and the (highlighted) code. */
export function CodeBlock({ code, language, children }: { code: string; language: string | null; children: ReactNode }) {
  const [state, setState] = useState<CopyState>("idle");
  const reset = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => () => clearTimeout(reset.current ?? undefined), []);

  async function copy() {
    try {
      await copyText(code);
      setState("copied");
    } catch {
      setState("failed");
    }
    clearTimeout(reset.current ?? undefined);
    reset.current = setTimeout(() => setState("idle"), 2000);
  }

  return (
    <div className="markdown-code group" data-testid="code-block">
      <div className="flex items-center justify-between gap-2 border-b border-slate-200 px-3 py-1 text-xs text-slate-500 dark:border-slate-700 dark:text-slate-400">
        <span className="font-mono">{language ?? "text"}</span>
        <button
          type="button"
          onClick={() => void copy()}
          aria-label={state === "copied" ? "Copied" : "Copy code"}
          className="rounded px-1.5 py-0.5 font-sans text-slate-600 hover:bg-slate-200 hover:text-slate-900 focus-visible:outline-2 focus-visible:outline-sky-600 dark:text-slate-300 dark:hover:bg-slate-700 dark:hover:text-white"
        >
          {state === "copied" ? "Copied" : state === "failed" ? "Copy failed" : "Copy"}
        </button>
      </div>
      <pre>{children}</pre>
    </div>
  );
}
