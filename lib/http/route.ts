import type { z } from "zod";
import type { Settings } from "../config/settings.ts";
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

export interface RouteContext<P, Q, B, F> {
  input: RouteInput<P, Q, B, F>;
  /** Null only on public routes. */
  principal: Principal | null;
  request: Request;
  settings: Settings;
}

export interface RouteDefinition<P = AnyZod | undefined, Q = AnyZod | undefined, B = AnyZod | undefined, F = AnyZod | undefined, R = AnyZod | undefined> {
  readonly method: HttpMethod;
  /** OpenAPI-style template: `/agents/{agent_id}/runs`. */
  readonly path: string;
  readonly summary: string;
  readonly tags: readonly string[];
  readonly access: RouteAccess;
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
  readonly handler: (ctx: RouteContext<P, Q, B, F>) => Promise<unknown> | unknown;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyRoute = RouteDefinition<any, any, any, any, any>;

/** Declares a route; the types of `input` follow from the schemas. */
export function defineRoute<
  P extends AnyZod | undefined = undefined,
  Q extends AnyZod | undefined = undefined,
  B extends AnyZod | undefined = undefined,
  F extends AnyZod | undefined = undefined,
  R extends AnyZod | undefined = undefined,
>(route: RouteDefinition<P, Q, B, F, R>): RouteDefinition<P, Q, B, F, R> {
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
