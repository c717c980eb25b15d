import type { RunOutput } from "@/lib/runtime/run-output.ts";

type References = NonNullable<RunOutput["references"]>;

/** The knowledge a run looked up: each search's query, how long it took, and the chunks it used with their scores. */
export function RunReferences({ references }: { references: References }) {
  return (
    <ol className="space-y-4" data-testid="run-references">
      {references.map((search, i) => (
        <li key={i}>
          <p className="mb-2 text-sm">
            <span className="text-slate-500">Searched for </span>
            <span className="font-medium">“{search.query}”</span>
            <span className="text-slate-500">
              {" "}
              · {search.references.length} chunk(s) in {Math.round(search.time * 1000)} ms
            </span>
          </p>
          <ul className="space-y-2">
            {search.references.map((chunk, j) => {
              const score = chunk.meta_data?.similarity_score;
              return (
                <li key={j} data-testid="run-reference" className="rounded border border-slate-200 p-3 text-sm dark:border-slate-800">
                  <p className="mb-1 flex flex-wrap gap-x-3 text-xs text-slate-500">
                    <span className="font-medium text-slate-700 dark:text-slate-300">{chunk.name ?? "(unnamed)"}</span>
                    {typeof chunk.meta_data?.chunk === "number" && <span>chunk {chunk.meta_data.chunk}</span>}
                    {typeof score === "number" && <span>score {score.toFixed(4)}</span>}
                  </p>
                  <p className="line-clamp-6 whitespace-pre-wrap">{chunk.content}</p>
                </li>
              );
            })}
          </ul>
        </li>
      ))}
    </ol>
  );
}
