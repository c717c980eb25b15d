import type { ReactNode } from "react";

/** A titled card on a detail page. */
export function Section({ title, id, children, actions }: { title: ReactNode; id: string; children: ReactNode; actions?: ReactNode }) {
  return (
    <section aria-labelledby={id} className="mb-4 rounded border border-slate-200 bg-white p-4 dark:border-slate-800 dark:bg-slate-900">
      <div className="mb-2 flex items-center justify-between gap-2">
        <h2 id={id} className="text-lg font-medium">
          {title}
        </h2>
        {actions}
      </div>
      {children}
    </section>
  );
}
