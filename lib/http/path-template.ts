/** Matches `/agents/{agent_id}/runs` against a pathname; returns the decoded params or null. */
export function matchTemplate(template: string, pathname: string): Record<string, string> | null {
  const names: string[] = [];
  // `{name}` is one segment; a trailing `/{name*}` is zero or more segments (a catch-all).
  const pattern = template.replace(/[.+?^$()|[\]\\]/g, "\\$&").replace(/(\/)?\{([A-Za-z_]\w*)(\*)?\}/g, (_m, slash: string | undefined, name: string, rest: string | undefined) => {
    names.push(name);
    return rest ? "(?:/(.*))?" : `${slash ?? ""}([^/]+)`;
  });
  const trimmed = pathname.length > 1 ? pathname.replace(/\/+$/, "") : pathname;
  const match = new RegExp(`^${pattern}$`).exec(trimmed);
  if (!match) return null;
  const params: Record<string, string> = {};
  names.forEach((name, i) => {
    if (match[i + 1] === undefined) return;
    try {
      params[name] = decodeURIComponent(match[i + 1]);
    } catch {
      params[name] = match[i + 1];
    }
  });
  return params;
}

/** The Next.js folder path of a template: `{agent_id}` → `[agent_id]`, `{path*}` → `[[...path]]`. */
export function templateToAppDir(template: string): string {
  return template.replace(/\{([^}*]+)\*\}/g, "[[...$1]]").replace(/\{([^}]+)\}/g, "[$1]");
}
