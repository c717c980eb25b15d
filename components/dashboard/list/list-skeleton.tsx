/** What a list page shows while the server renders it (Next's loading.tsx). */
export function ListSkeleton({ title }: { title: string }) {
  return (
    <main className="mx-auto max-w-6xl p-4 md:p-6" aria-busy="true">
      <h1 className="mb-4 text-2xl font-semibold">{title}</h1>
      <p className="sr-only">Loading…</p>
      <div className="space-y-2">
        {Array.from({ length: 8 }, (_, i) => (
          <div key={i} className="h-8 animate-pulse rounded bg-slate-200 dark:bg-slate-800" />
        ))}
      </div>
    </main>
  );
}
