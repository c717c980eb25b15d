import { z } from "zod";
import type { FilterField, FilterOption } from "./list-view.ts";
import { allParams, firstParam, type SearchParams } from "./search-params.ts";

/**
 * A dashboard list's filters are one zod object: each field parses one URL parameter (an array
 * field: every value of a repeated one) and carries, in `filterControls`, how the filter bar
 * shows it. Build the fields with the helpers below; each helper registers its control.
 */
export type FilterShape = Record<string, z.ZodType>;

/** The filters a page's query gets: each one absent when the URL does not give a valid value. */
export type FilterValues<S extends FilterShape> = { [K in keyof S]?: z.output<S[K]> };

/** How the filter bar shows one filter; a select without `options` gets them from the page. */
export type FilterControl = { control: "select"; label: string; options?: readonly FilterOption[] } | { control: "text"; label: string; placeholder?: string } | { control: "date"; label: string };

/** The filter bar control of each filter schema (the schema itself is the key). */
export const filterControls = z.registry<FilterControl>();

type Values = readonly [string, ...string[]];

function enumOf<const V extends Values>(values: V, expected?: string) {
  return z.enum(values, { error: (issue) => `must be ${expected ?? `one of ${values.join(", ")}`}, got "${String(issue.input)}"` });
}

const optionsOf = (values: Values, labels: Partial<Record<string, string>> = {}) => values.map((value) => ({ value, label: labels[value] ?? value }));

/** A select of fixed values, named by `labels`; any other value is a problem (`expected` words it). */
export function oneOf<const V extends Values>(values: V, { label, labels, expected }: { label: string; labels?: Partial<Record<V[number], string>>; expected?: string }) {
  return enumOf(values, expected).register(filterControls, { control: "select", label, options: optionsOf(values, labels) });
}

/** As `oneOf`, repeatable (`?status=a&status=b`); each value outside `values` is a problem of its own. */
export function someOf<const V extends Values>(values: V, { label, labels }: { label: string; labels?: Partial<Record<V[number], string>> }) {
  return z.array(enumOf(values)).register(filterControls, { control: "select", label, options: optionsOf(values, labels) });
}

/** A select whose choices the page gives when it loads (agents, models, topics): any text is a value. */
export function choice({ label }: { label: string }) {
  return z.string().register(filterControls, { control: "select", label });
}

/** As `choice`, repeatable. */
export function choices({ label }: { label: string }) {
  return z.array(z.string()).register(filterControls, { control: "select", label });
}

/** Free text; `trim` drops surrounding spaces (all spaces is no filter). */
export function text({ label, placeholder, trim = false }: { label: string; placeholder?: string; trim?: boolean }) {
  return (trim ? z.string().trim() : z.string()).register(filterControls, { control: "text", label, placeholder });
}

/** A `YYYY-MM-DD` (UTC) as epoch seconds; `endOfDay` gives the next midnight (an exclusive bound). */
export function day({ label, endOfDay = false }: { label: string; endOfDay?: boolean }) {
  return z
    .string()
    .transform((raw, ctx) => {
      const ms = /^\d{4}-\d{2}-\d{2}$/.test(raw) ? Date.parse(`${raw}T00:00:00Z`) : Number.NaN;
      // Date.parse rolls 2026-02-31 over to March; a date that does not survive the round trip is no date.
      if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== raw) {
        ctx.addIssue({ code: "custom", message: `must be a date like 2026-12-01, got "${raw}"` });
        return z.NEVER;
      }
      return Math.floor(ms / 1000) + (endOfDay ? 86_400 : 0);
    })
    .register(filterControls, { control: "date", label });
}

/** The parsed filters, what was wrong with the URL's, and the value each control shows. */
export interface ReadFilters<S extends FilterShape> {
  values: FilterValues<S>;
  problems: string[];
  shown: Partial<Record<keyof S & string, string>>;
}

const problemOf = (name: string, error: z.ZodError) => `${name} ${error.issues[0]?.message ?? "is not valid"}`;

/**
 * Parses each filter of `schema` from the URL. A value that does not parse is a problem to show
 * and no filter (the list shows without it), never an error page; empty text is no filter.
 */
export function readFilters<S extends FilterShape>(schema: z.ZodObject<S>, params: SearchParams): ReadFilters<S> {
  const values: Record<string, unknown> = {};
  const shown: Record<string, string> = {};
  const problems: string[] = [];
  for (const [name, field] of Object.entries(schema.shape)) {
    if (field instanceof z.ZodArray) {
      const accepted: unknown[] = [];
      for (const raw of allParams(params, name)) {
        const parsed = z.safeParse(field.element, raw);
        if (!parsed.success) {
          problems.push(problemOf(name, parsed.error));
          continue;
        }
        accepted.push(parsed.data);
        shown[name] ??= raw;
      }
      values[name] = accepted;
      continue;
    }
    const raw = firstParam(params, name);
    if (raw === undefined) continue;
    const parsed = field.safeParse(raw);
    if (!parsed.success) problems.push(problemOf(name, parsed.error));
    else if (parsed.data !== "") {
      values[name] = parsed.data;
      shown[name] = typeof parsed.data === "string" ? parsed.data : raw;
    }
  }
  return { values: values as FilterValues<S>, problems, shown: shown as ReadFilters<S>["shown"] };
}

/** Whether any filter is on (an empty list of values is none). */
export function anyFilterOn(values: Record<string, unknown>): boolean {
  return Object.values(values).some((v) => v !== undefined && !(Array.isArray(v) && v.length === 0));
}

/**
 * The filter bar's controls, in the schema's order. A select's choices are its own or the page's
 * (`options`); a chosen value a page's choices lack (a topic no memory has any more) stays
 * listed, so the form shows the filter that is on.
 */
export function filterFields<S extends FilterShape>(schema: z.ZodObject<S>, shown: ReadFilters<S>["shown"], options: Partial<Record<keyof S & string, readonly FilterOption[]>> = {}): FilterField[] {
  return Object.entries(schema.shape).map(([name, field]) => {
    const control = filterControls.get(field);
    if (!control) throw new Error(`list filter "${name}" has no control: build it with oneOf, someOf, choice, choices, text or day`);
    const value = shown[name as keyof S & string];
    if (control.control !== "select") return { name, ...control, value };
    const given = control.options ?? options[name as keyof S & string] ?? [];
    return { name, ...control, value, options: control.options || !value || given.some((o) => o.value === value) ? given : [...given, { value, label: value }] };
  });
}
