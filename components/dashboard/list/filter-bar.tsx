import type { ReactNode } from "react";
import type { FilterBarModel, FilterOption } from "@/lib/http/dashboard/list-view.ts";

/**
 * A list's filters as a plain GET form: applying them changes the URL (shareable, back works, no
 * script needed). Paging cursors are dropped because they belong to the old filter.
 */
export function ListFilters({ action, children, sort, order }: { action: string; children: ReactNode; sort?: string; order?: string }) {
  return (
    // biome-ignore lint/a11y/useSemanticElements: <search> around a form is not yet announced by every screen reader; role="search" on the form is
    <form method="get" action={action} role="search" className="mb-4 flex flex-wrap items-end gap-3 rounded border border-slate-200 bg-white p-3 text-sm dark:border-slate-800 dark:bg-slate-900">
      {sort && <input type="hidden" name="sort" value={sort} />}
      {order && <input type="hidden" name="order" value={order} />}
      {children}
      <button type="submit" className="rounded bg-slate-900 px-3 py-1.5 text-white hover:bg-slate-700 dark:bg-slate-100 dark:text-slate-900">
        Apply
      </button>
      <a href={action} className="py-1.5 text-slate-600 hover:underline dark:text-slate-400">
        Clear
      </a>
    </form>
  );
}

const control = "mt-1 block rounded border border-slate-300 bg-white px-2 py-1 dark:border-slate-700 dark:bg-slate-950";

export function FilterSelect({ label, name, value, options }: { label: string; name: string; value?: string; options: readonly FilterOption[] }) {
  return (
    <label className="block">
      <span className="text-slate-600 dark:text-slate-400">{label}</span>
      <select name={name} defaultValue={value ?? ""} className={control}>
        <option value="">Any</option>
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </label>
  );
}

export function FilterInput({ label, name, value, type = "text", placeholder }: { label: string; name: string; value?: string; type?: string; placeholder?: string }) {
  return (
    <label className="block">
      <span className="text-slate-600 dark:text-slate-400">{label}</span>
      <input name={name} type={type} defaultValue={value ?? ""} placeholder={placeholder} className={control} />
    </label>
  );
}

/** What was wrong with the URL's list parameters (the list shows without them). */
export function ListProblems({ problems }: { problems: string[] }) {
  if (problems.length === 0) return null;
  return (
    <div role="alert" className="mb-4 rounded border border-amber-400 bg-amber-50 p-3 text-sm text-amber-900 dark:bg-amber-950 dark:text-amber-100">
      <ul className="list-disc pl-5">
        {problems.map((p) => (
          <li key={p}>{p}</li>
        ))}
      </ul>
    </div>
  );
}

/**
 * A list's filter bar, from the controls its filters declare (lib/http/dashboard/list-filters.ts)
 * and, for admins, the user filter; `hidden` fields ride along (the Knowledge page's base).
 */
export function FilterBar({ bar, hidden = {} }: { bar: FilterBarModel; hidden?: Record<string, string> }) {
  return (
    <ListFilters action={bar.action} sort={bar.sort} order={bar.order}>
      {Object.entries(hidden).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      {bar.fields.map((field) =>
        field.control === "select" ? (
          <FilterSelect key={field.name} label={field.label} name={field.name} value={field.value} options={field.options ?? []} />
        ) : (
          <FilterInput key={field.name} label={field.label} name={field.name} value={field.value} type={field.control === "date" ? "date" : "text"} placeholder={field.placeholder} />
        ),
      )}
    </ListFilters>
  );
}
