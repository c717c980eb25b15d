// Pure helpers (no server imports): the dashboard's client components use them too.

/** Search params as Next hands them to a page. */
export type SearchParams = Record<string, string | string[] | undefined>;

export function firstParam(params: SearchParams, name: string): string | undefined {
  const value = params[name];
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined || first === "" ? undefined : first;
}

export function allParams(params: SearchParams, name: string): string[] {
  const value = params[name];
  return (Array.isArray(value) ? value : value === undefined ? [] : [value]).filter((v) => v !== "");
}
