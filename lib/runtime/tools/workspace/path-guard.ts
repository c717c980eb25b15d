import path from "node:path";

/**
 * The Workspace exclusion policy, pure (no fs): which root-relative paths an agent may never read,
 * list, search or write, and how `allowPaths` re-allows one. Mirrors Agno v3's list exactly.
 */

/** Committed env templates: readable although they match `.env*`. */
export const ENV_TEMPLATE_NAMES: readonly string[] = [".env.example", ".env.sample", ".env.template", ".env.dist"];

/** Everything inside these directories is excluded, as is the directory itself. */
export const CREDENTIAL_DIRECTORIES: readonly string[] = [".ssh", ".aws", ".kube"];

interface NameRule {
  readonly pattern: string;
  matches(name: string): boolean;
}

const TEMPLATES = new Set(ENV_TEMPLATE_NAMES);
const exact = (pattern: string): NameRule => ({ pattern, matches: (n) => n === pattern });
const suffix = (pattern: string): NameRule => ({ pattern, matches: (n) => n.endsWith(pattern.slice(1)) });

// `credentials.*` and `secrets.*` are deliberately absent: they would refuse `credentials.py`.
const NAME_RULES: readonly NameRule[] = [
  { pattern: ".env*", matches: (n) => n.startsWith(".env") && !TEMPLATES.has(n) },
  suffix("*.env"),
  suffix("*.pem"),
  suffix("*.key"),
  { pattern: "id_rsa*", matches: (n) => n.startsWith("id_rsa") },
  exact(".npmrc"),
  exact(".netrc"),
  exact(".git-credentials"),
  exact("credentials.json"),
  exact("secrets.yaml"),
  { pattern: "service_account*.json", matches: (n) => n.startsWith("service_account") && n.endsWith(".json") },
  suffix("*.tfvars"),
];

/** Why a path is excluded: the pattern and the path component that matched it. */
export interface Exclusion {
  readonly pattern: string;
  readonly component: string;
  /** The match is a credential directory that contains the path (not the path's own name). */
  readonly inside: boolean;
}

/**
 * The rule a single path component breaks, or null. Case-insensitive, so `.ENV` or `ID_RSA` on a
 * case-insensitive filesystem cannot slip past; templates are exempt in any case as well.
 */
export function matchExcludedName(component: string): string | null {
  const name = component.toLowerCase();
  if (CREDENTIAL_DIRECTORIES.includes(name)) return `${name}/`;
  return NAME_RULES.find((rule) => rule.matches(name))?.pattern ?? null;
}

/** Why `rel` (root-relative, `/`-separated, "" for the root) is excluded, ignoring allowPaths. */
export function findExclusion(rel: string): Exclusion | null {
  const components = rel === "" ? [] : rel.split("/");
  for (const [i, component] of components.entries()) {
    const pattern = matchExcludedName(component);
    if (pattern) return { pattern, component, inside: i < components.length - 1 };
  }
  return null;
}

/** One sentence for the model: why the path is refused and how an operator can change that. */
export function describeExclusion(exclusion: Exclusion): string {
  const what = exclusion.pattern.endsWith("/")
    ? exclusion.inside
      ? `it is inside a '${exclusion.component}' credential directory`
      : `'${exclusion.component}' is a credential directory`
    : exclusion.inside
      ? `its directory '${exclusion.component}' matches the excluded pattern '${exclusion.pattern}'`
      : `it matches the excluded pattern '${exclusion.pattern}'`;
  return `${what}; env and credential files are not available to agents (an operator can re-allow a path with allowPaths)`;
}

/** The exclusion policy with the operator's re-allowed paths applied. */
export interface PathPolicy {
  /** Why the agent may not use `rel`, or null when it may. A re-allowed path is never excluded. */
  exclusionOf(rel: string): Exclusion | null;
  /** Whether a walk must enter directory `rel` (excluded) to reach a re-allowed path below it. */
  hasAllowedPathBelow(rel: string): boolean;
}

/**
 * Builds the policy. `allowPaths` are root-relative and re-allow exactly the named path: allowing
 * `config/credentials.json` does not allow `credentials.json` elsewhere, nor a directory's contents.
 */
export function createPathPolicy({ allowPaths = [] }: { allowPaths?: readonly string[] } = {}): PathPolicy {
  const allowed = new Set(allowPaths.map(normalizeAllowPath));
  return {
    exclusionOf: (rel) => (allowed.has(rel) ? null : findExclusion(rel)),
    hasAllowedPathBelow: (rel) => [...allowed].some((p) => rel === "" || p.startsWith(`${rel}/`)),
  };
}

/** `./config//credentials.json/` → `config/credentials.json`; absolute or `..` paths are config errors. */
export function normalizeAllowPath(input: string): string {
  if (path.isAbsolute(input) || input.split("/").includes("..") || input.includes("\0")) {
    throw new Error(`Workspace allowPaths entry '${input}' must be a path relative to the workspace root, without '..'`);
  }
  const rel = path.posix.normalize(input).replace(/\/+$/, "");
  if (rel === "." || rel === "") throw new Error(`Workspace allowPaths entry '${input}' names the root itself`);
  return rel;
}
