/** JSON on one line when it is short (`{ "a": 2, "b": 3 }`), indented otherwise. */
function jsonText(value: unknown): string {
  const indented = JSON.stringify(value, null, 2) ?? String(value);
  const oneLine = indented.replace(/\n\s*/g, " ");
  return oneLine.length <= 72 ? oneLine : indented;
}

/** A value shown as the model and the tool see it: text as is, anything else as JSON. */
export function JsonBlock({ label, value }: { label: string; value: unknown }) {
  const text = typeof value === "string" ? value : jsonText(value);
  return (
    <div className="min-w-0">
      <div className="text-xs font-medium uppercase tracking-wide text-slate-500 dark:text-slate-400">{label}</div>
      <pre className="mt-0.5 max-h-60 overflow-auto whitespace-pre-wrap break-words rounded bg-slate-100 px-2 py-1 font-mono text-xs text-slate-800 dark:bg-slate-800 dark:text-slate-100">{text}</pre>
    </div>
  );
}
