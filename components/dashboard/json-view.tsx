/** A JSON value, pretty-printed and scrollable (long values never widen the page). */
export function JsonView({ value, label }: { value: unknown; label?: string }) {
  const text = typeof value === "string" ? value : JSON.stringify(value, null, 2);
  return (
    // biome-ignore lint/a11y/useAriaPropsSupportedByRole: the label names the value for screen readers (a <pre> region has no visible caption)
    <pre aria-label={label} className="max-h-80 overflow-auto rounded bg-slate-50 p-2 font-mono text-xs whitespace-pre-wrap break-words text-slate-800 dark:bg-slate-950 dark:text-slate-200">
      {text ?? "—"}
    </pre>
  );
}
