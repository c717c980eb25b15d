import type { z } from "zod";
import type { Settings } from "../config/settings.ts";
import type { Db } from "../db/open-database.ts";
import type { DataScope } from "../db/scope.ts";
import { nullsOmittedSchema, omitNullFields } from "./omit-nulls.ts";
import type { Principal } from "../auth/principal.ts";
import type { ParsedForm } from "./body.ts";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** Either a declared permission (an Agno scope) or an explicit, deliberate `public`. */
export type RouteAccess =
  | { readonly public: true }
  | {
      readonly permission: string;
      /** Path param holding the resource id, so `agents:<id>:run` satisfies `agents:run`. */
      readonly resourceParam?: string;
      /**
       * A listing that filters itself by per-resource scopes: a caller holding only
       * `agents:<id>:read` scopes gets in and sees just those; one with no scope of the family is 403.
       */
      readonly listFilter?: true;
    };

type AnyZod = z.ZodType;
type Out<S> = S extends AnyZod ? z.output<S> : undefined;

export interface RouteInput<P, Q, B, F> {
  params: Out<P>;
  query: Out<Q>;
  body: Out<B>;
  /** Form fields (validated) and the uploaded files, for form routes. */
  form: Out<F>;
  files: ParsedForm["files"];
}

/** A part of the validated input that may carry Agno's `db_id`/`table` or `user_id` fields. */
export type InputPart = "query" | "body" | "form";

/**
 * The stored data a route touches. The dispatcher resolves it after authentication, the scope
 * check, validation and the route's `resource`, before the handler runs
 * (lib/http/data-access.ts): first `requires`, then the data scope (dataScopeFor: 403 for a
 * non-admin whose credentials name no user; `owner`'s 400; `adminOnly`'s 403), then the database
 * (Agno's `db_id`/`table` rules: 400/404). Handlers never resolve these themselves. Routes that
 * touch no rows (/config, the agent list, migrations) declare none and get neither.
 */
export interface RouteData {
  /**
   * Which database: `"default"`, the configured one (runs, service accounts and the queue live
   * there), or Agno's `db_id`/`table` selection read from that part of the input, among the
   * databases keeping `tables`.
   */
  readonly db: "default" | { readonly selectFrom: InputPart; readonly tables: readonly string[] };
  /**
   * The part of the input whose `user_id` an admin names to act for that user (a non-admin acts as
   * itself whatever it names). Absent: every caller acts as itself.
   */
  readonly userFrom?: InputPart;
  /**
   * `"required"`: the route writes rows owned by one user (a memory). An admin naming nobody writes
   * as itself; with no user at all it is a 400 "User ID is required", as in Agno. The handler's
   * scope then always names its user.
   */
  readonly owner?: "required";
  /** `"always"`: a non-admin acts only as itself even where the install turned isolation off (credentials). */
  readonly isolation?: "always";
  /**
   * What must hold before anything is resolved (a feature that is on): throws the error to answer
   * (Agno's 503 for a feature that is off), ahead of the scope. Annotate its parameter
   * (`(settings: Settings) => …`): `data` is typed from its literal.
   */
  readonly requires?: (settings: Settings) => void;
  /**
   * An operator surface over every user's rows: only an admin acting in an admin scope passes (a
   * service account granted `agent_os:admin` stays self-scoped, so it does not); anyone else gets a
   * 403 with this detail, before the database is opened.
   */
  readonly adminOnly?: string;
}

/** A scope naming the one user whose rows a route writes (`owner: "required"`). */
export type OwnedScope = DataScope & { readonly userId: string };

/** What the handler of a route declaring `data` gets besides its input. */
export interface RouteDataContext<S extends DataScope = DataScope> {
  /** The data scope of the request, as the route declares it (acting for the `user_id` an admin names). */
  scope: S;
  /**
   * The caller's own scope, ignoring any `user_id` it names (and `owner`) — for reading back what
   * this request created for its caller: a submitted run's event stream follows the run's owner,
   * who is the caller unless an admin named one.
   */
  ownScope: DataScope;
  db: Db;
}

type DataContextOf<D> = D extends RouteData ? RouteDataContext<D extends { owner: "required" } ? OwnedScope : DataScope> : unknown;

type ResourceContextOf<T> = [T] extends [undefined] ? unknown : { resource: T };

/** What a loader of stored rows gets: the settings and the route's data, resolved by the dispatcher on the first call (and once). */
export interface DataLoaderContext<S extends DataScope = DataScope> {
  settings: Settings;
  data(): Promise<RouteDataContext<S>>;
}

/**
 * What a route's `resource` loader gets besides the input: the settings, the principal and, when
 * the route declares `data`, `data()` — its scope and database. A loader finds what the path
 * names in the configuration first (the agent: its 404 comes before the data scope's 403), and
 * reads stored rows only after `data()`, so a row's 404 comes after the scope, as a handler's did.
 */
export type ResourceContext<A extends RouteAccess = RouteAccess, D extends RouteData | undefined = undefined> = {
  settings: Settings;
  principal: A extends { readonly public: true } ? null : Principal;
} & (D extends RouteData ? DataLoaderContext<D extends { owner: "required" } ? OwnedScope : DataScope> : unknown);

export type RouteContext<P, Q, B, F, A extends RouteAccess = RouteAccess, D extends RouteData | undefined = undefined, T = undefined> = {
  input: RouteInput<P, Q, B, F>;
  /** Every route but a public one has an authenticated principal; a public route has none. */
  principal: A extends { readonly public: true } ? null : Principal;
  request: Request;
  settings: Settings;
} & DataContextOf<D> &
  ResourceContextOf<T>;

export interface RouteDefinition<
  P = AnyZod | undefined,
  Q = AnyZod | undefined,
  B = AnyZod | undefined,
  F = AnyZod | undefined,
  R = AnyZod | undefined,
  A extends RouteAccess = RouteAccess,
  D extends RouteData | undefined = undefined,
  T = undefined,
> {
  readonly method: HttpMethod;
  /** OpenAPI-style template: `/agents/{agent_id}/runs`. */
  readonly path: string;
  readonly summary: string;
  readonly tags: readonly string[];
  readonly access: A;
  /** The stored data the handler touches: its scope and database come from the dispatcher. */
  readonly data?: D;
  /**
   * Loads what the path names and throws its 404 (or the owner check's 403): the configured agent
   * of `/agents/{agent_id}/…`, after validation and before the data scope, so that 404 comes
   * first; a stored row (a schedule, a session, a run) after `data()`, in the request's scope.
   * Runs after validation, before the handler, which gets it as `resource`. Routes loading the
   * same thing share one loader.
   */
  readonly resource?: (input: RouteInput<P, Q, B, F>, context: ResourceContext<A, D>) => T | Promise<T>;
  readonly params?: P;
  readonly query?: Q;
  /** A JSON body. */
  readonly body?: B;
  /** Form fields (urlencoded or multipart), as Agno's run endpoints take them. */
  readonly form?: F;
  readonly response?: R;
  /**
   * Leave null fields out of the JSON body (Agno's `response_model_exclude_none=True`): every
   * declared field of `response` whose value is null is omitted, at any depth; free-form values
   * (records such as `session_state` or `metadata`, `z.unknown()`) keep their nulls. Set where
   * Agno's route declares it together with a response model; absent = nulls are sent as null.
   * The route-by-route list is pinned in test/http/exclude-none.test.ts.
   */
  readonly excludeNone?: boolean;
  /** Success status when the handler returns a plain value. */
  readonly status?: number;
  /** Left out of /openapi.json (Agno hides `GET /`). */
  readonly hidden?: boolean;
  readonly handler: (ctx: RouteContext<P, Q, B, F, A, D, T>) => Promise<unknown> | unknown;
}

// biome-ignore lint/suspicious/noExplicitAny: the route table holds routes of every input, access, data and resource type
export type AnyRoute = RouteDefinition<any, any, any, any, any, any, any, any>;

/**
 * Declares a route; the types of `input` follow from the schemas, `principal` is non-null unless
 * the route is public, and `scope`/`ownScope`/`db` are there when it declares `data`.
 */
export function defineRoute<
  P extends AnyZod | undefined = undefined,
  Q extends AnyZod | undefined = undefined,
  B extends AnyZod | undefined = undefined,
  F extends AnyZod | undefined = undefined,
  R extends AnyZod | undefined = undefined,
  A extends RouteAccess = RouteAccess,
  D extends RouteData | undefined = undefined,
  T = undefined,
>(route: RouteDefinition<P, Q, B, F, R, A, D, T>): RouteDefinition<P, Q, B, F, R, A, D, T> {
  return route;
}

/** The JSON body a handler's plain result is sent as: without null fields under `excludeNone`. */
export function responseBody(route: AnyRoute, result: unknown): unknown {
  return route.excludeNone && route.response ? omitNullFields(result, route.response) : result;
}

/** The response schema as the body appears on the wire (null fields optional under `excludeNone`). */
export function wireResponseSchema(route: AnyRoute): z.ZodType | undefined {
  if (!route.response) return undefined;
  return route.excludeNone ? nullsOmittedSchema(route.response) : route.response;
}

/**
 * Whether a JSON body matches the route's declared response, checked as the client decodes it:
 * after the `excludeNone` omission and a JSON round trip, against `wireResponseSchema` (the schema
 * /openapi.json publishes). The body sent is never the parsed value — parsing only checks. Null
 * when it matches or the route declares no response.
 */
export async function responseMismatch(route: AnyRoute, body: unknown): Promise<z.ZodError | null> {
  const schema = wireResponseSchema(route);
  if (!schema) return null;
  const result = await schema.safeParseAsync(JSON.parse(JSON.stringify(body ?? null)));
  return result.success ? null : result.error;
}
