import type { Settings } from "../config/settings.ts";

/**
 * How a fire calls its schedule's endpoint: inside the process, through the API's route table,
 * never over the network. lib/http implements it (lib/http/internal-call.ts registers the
 * implementation when it is loaded); the scheduler only knows this port, so it needs nothing of
 * the HTTP layer above it.
 */
export interface EndpointCall {
  method: string;
  /** The path, with its query string. */
  path: string;
  /** The schedule's owner, whom the call acts for (null: a shared, owner-less schedule). */
  owner: string | null;
  /**
   * `scheduler`: a run endpoint, called as the internal scheduler principal acting for the owner
   * (the scopes Agno's internal service token has); `admin`: any other endpoint, called as an admin
   * acting for the owner once the owner's admin standing is confirmed again (403 otherwise).
   */
  as: "scheduler" | "admin";
  /** Form fields (run endpoints take forms). */
  form?: Record<string, string>;
  /** A JSON body (every other endpoint). */
  json?: unknown;
  headers?: Record<string, string>;
}

export interface EndpointResult {
  status: number;
  /** The decoded JSON body (null when it is not JSON). */
  body: unknown;
  text: string;
}

export type EndpointCaller = (call: EndpointCall) => Promise<EndpointResult>;

const key = Symbol.for("agentry.scheduler.endpoint-caller");
type Holder = { [key]?: (settings: Settings) => EndpointCaller };

/** Installs the implementation (process-wide: Next bundles module graphs separately). */
export function registerEndpointCaller(factory: (settings: Settings) => EndpointCaller): void {
  (globalThis as Holder)[key] = factory;
}

/** The caller for these settings' API; throws when no implementation is loaded in this process. */
export function endpointCallerFor(settings: Settings): EndpointCaller {
  const factory = (globalThis as Holder)[key];
  if (!factory) throw new Error("No endpoint caller is registered in this process: load lib/http/internal-call.ts before firing schedules");
  return factory(settings);
}
