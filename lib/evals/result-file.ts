/**
 * Where `storeResultInFile` writes an eval's result: a path template whose placeholders are
 * `{run_id}` (the eval run's own id) and `{name}`. `{eval_id}` no longer exists (every run has its
 * own id, and a template keyed by the eval would overwrite earlier results), so it is refused with
 * a message naming `{run_id}`; any other placeholder is refused by name.
 */

const PLACEHOLDER = /\{([^{}]*)\}/g;

/** What is wrong with a template, or null. */
export function resultFileTemplateProblem(template: string): string | null {
  if (template.trim() === "") return "storeResultInFile must be a file path";
  for (const [, name] of template.matchAll(PLACEHOLDER)) {
    if (name === "eval_id") return "storeResultInFile: {eval_id} is no longer a placeholder; use {run_id} (each eval run has its own id, so results are never overwritten)";
    if (name !== "run_id" && name !== "name") return `storeResultInFile: unknown placeholder {${name}}; use {run_id} or {name}`;
  }
  return null;
}

/** The path for one eval run (throws on a template resultFileTemplateProblem refuses). */
export function resultFilePath(template: string, { runId, name }: { runId: string; name?: string | null }): string {
  const problem = resultFileTemplateProblem(template);
  if (problem) throw new Error(problem);
  return template.replace(PLACEHOLDER, (_, key: string) => (key === "run_id" ? runId : (name ?? "")));
}
