import { z } from "zod";

/**
 * The `excludeNone` response rule (FastAPI's `response_model_exclude_none`, as pydantic v2
 * applies it): a field of a declared object whose value is null is left out of the JSON. The
 * rule follows the response schema, so it reaches every nested declared object (a page's items,
 * a run inside a list) but never the inside of a free-form value — a record
 * (`z.record`, e.g. `session_state`, `metadata`, a run's `metrics`), `z.unknown()`, or the
 * elements of an array — whose nulls are data and are kept. Keys an object does not declare
 * (a loose object's extra keys) lose a null value too, and keep whatever they hold otherwise.
 */

type Def = {
  type: string;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  element?: z.ZodType;
  options?: readonly z.ZodType[];
  innerType?: z.ZodType;
  in?: z.ZodType;
  getter?: () => z.ZodType;
  items?: readonly z.ZodType[];
  rest?: z.ZodType | null;
};

const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** Wrappers that say nothing about which values are objects: look through them. */
const TRANSPARENT = new Set(["nullable", "optional", "default", "prefault", "catch", "readonly", "nonoptional"]);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** `value` as it goes on the wire under the rule, read through `schema`. Never mutates `value`. */
export function omitNullFields(value: unknown, schema: z.ZodType): unknown {
  if (value === null || value === undefined || typeof value !== "object") return value;
  const def = defOf(schema);
  if (TRANSPARENT.has(def.type)) return omitNullFields(value, def.innerType!);
  switch (def.type) {
    case "object": {
      if (!isPlainObject(value)) return value;
      const out: Record<string, unknown> = {};
      for (const [key, field] of Object.entries(value)) {
        if (field === null || field === undefined) continue;
        const fieldSchema = def.shape![key] ?? def.catchall;
        out[key] = fieldSchema ? omitNullFields(field, fieldSchema) : field;
      }
      return out;
    }
    case "array":
      return Array.isArray(value) ? value.map((item) => omitNullFields(item, def.element!)) : value;
    case "tuple":
      return Array.isArray(value) ? value.map((item, i) => omitNullFields(item, def.items![i] ?? def.rest ?? z.unknown())) : value;
    case "union": {
      // The first option the value is an instance of decides, as pydantic's union serializer does.
      const option = def.options!.find((o) => o.safeParse(value).success);
      return option ? omitNullFields(value, option) : value;
    }
    case "lazy":
      return omitNullFields(value, def.getter!());
    case "pipe":
      return omitNullFields(value, def.in!);
    default:
      // record, unknown, any, scalars: free-form or not an object — kept as it is.
      return value;
  }
}

function admitsNull(schema: z.ZodType): boolean {
  return schema.safeParse(null).success;
}

/** `schema` without null as a value: what an object field that is present holds under the rule. */
function withoutNull(schema: z.ZodType): z.ZodType {
  const def = defOf(schema);
  if (def.type === "nullable") return withoutNull(def.innerType!);
  if (def.type === "optional") return withoutNull(def.innerType!);
  if (def.type === "union") {
    const kept = def.options!.filter((o) => defOf(o).type !== "null").map(withoutNull);
    return kept.length === 1 ? kept[0] : z.union(kept as [z.ZodType, z.ZodType, ...z.ZodType[]]);
  }
  return schema;
}

function keepMeta<T extends z.ZodType>(from: z.ZodType, to: T): T {
  const meta = z.globalRegistry.get(from);
  return meta ? (to.meta(meta) as T) : to;
}

const wireCache = new WeakMap<z.ZodType, z.ZodType>();

/** The type of a value under the rule: a field that may be null is optional and non-null. */
export type NullsOmitted<T> = T extends readonly (infer E)[]
  ? NullsOmitted<E>[]
  : T extends object
    ? { [K in keyof T as null extends T[K] ? never : K]: NullsOmitted<T[K]> } & { [K in keyof T as null extends T[K] ? K : never]?: NullsOmitted<NonNullable<T[K]>> }
    : T;

/**
 * The wire shape of `schema` under the rule, for /openapi.json and for tests that check a body:
 * a declared field that admits null becomes optional and, when present, never null. Free-form
 * values are unchanged.
 */
export function nullsOmittedSchema<S extends z.ZodType>(schema: S): z.ZodType<NullsOmitted<z.output<S>>> {
  return wireOf(schema) as z.ZodType<NullsOmitted<z.output<S>>>;
}

function wireOf(schema: z.ZodType): z.ZodType {
  const cached = wireCache.get(schema);
  if (cached) return cached;
  const def = defOf(schema);
  let wire: z.ZodType;
  switch (def.type) {
    case "object": {
      const shape = Object.fromEntries(Object.entries(def.shape!).map(([key, field]) => [key, admitsNull(field) ? keepMeta(field, withoutNull(wireOf(field))).optional() : wireOf(field)]));
      const object = z.object(shape);
      wire = def.catchall ? object.catchall(def.catchall) : object;
      break;
    }
    case "array":
      wire = z.array(wireOf(def.element!));
      break;
    case "union":
      wire = z.union(def.options!.map(wireOf) as [z.ZodType, z.ZodType, ...z.ZodType[]]);
      break;
    case "nullable":
      wire = wireOf(def.innerType!).nullable();
      break;
    case "optional":
      wire = wireOf(def.innerType!).optional();
      break;
    case "lazy":
      wire = z.lazy(() => wireOf(def.getter!()));
      break;
    default:
      wire = schema;
  }
  wire = wire === schema ? schema : keepMeta(schema, wire);
  wireCache.set(schema, wire);
  return wire;
}
