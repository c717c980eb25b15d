/** "List / id" above a detail page. */
export function Breadcrumb({ parent, current }: { parent: { href: string; label: string }; current: string }) {
  return (
    <nav aria-label="Breadcrumb" className="mb-2 text-sm text-slate-500">
      <a className="hover:underline" href={parent.href}>
        {parent.label}
      </a>{" "}
      / <span className="font-mono break-all">{current}</span>
    </nav>
  );
}
