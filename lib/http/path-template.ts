/** Matches `/agents/{agent_id}/runs` against a pathname; returns the decoded params or null. */
export function matchTemplate(template: string, pathname: string): Record<string, string> | null {
  const names: string[] = [];
  const pattern = template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{([A-Za-z_]\w*)\}/g, (_m, name: string) => {
    names.push(name);
    return "([^/]+)";
  });
  const trimmed = pathname.length > 1 ? pathname.replace(/\/+$/, "") : pathname;
  const match = new RegExp(`^${pattern}$`).exec(trimmed);
  if (!match) return null;
  const params: Record<string, string> = {};
  names.forEach((name, i) => {
    try {
      params[name] = decodeURIComponent(match[i + 1]);
    } catch {
      params[name] = match[i + 1];
    }
  });
  return params;
}

/** The Next.js folder path of a template: `{agent_id}` → `[agent_id]`. */
export function templateToAppDir(template: string): string {
  return template.replace(/\{([^}]+)\}/g, "[$1]");
}
