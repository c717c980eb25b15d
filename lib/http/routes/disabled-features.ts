import { z } from "zod";
import { HttpError } from "../../errors/http-error.ts";
import { defineRoute, type AnyRoute, type HttpMethod } from "../route.ts";

/** Agno's 503 for a feature that is off: "<Tag> not available: pass a `<x>` to AgentOS to enable this feature." */
export function featureDisabled(tag: string, enableWith: string): HttpError {
  return new HttpError(503, `${tag} not available: pass a \`${enableWith}\` to AgentOS to enable this feature.`);
}

/**
 * A feature that is off in this configuration answers every method and sub-path with 503 and
 * Agno's message shape (featureDisabled). While it is on, sub-paths no route declares are 404.
 */
export function disabledFeatureRoutes({
  tag,
  prefix,
  enableWith,
  permission,
  isDisabled,
}: {
  tag: string;
  prefix: string;
  enableWith: string;
  permission: string;
  isDisabled: (settings: import("../../config/settings.ts").Settings) => boolean;
}): AnyRoute[] {
  const methods: HttpMethod[] = ["GET", "POST", "PUT", "PATCH", "DELETE"];
  return methods.map((method) =>
    defineRoute({
      method,
      path: `${prefix}/{path*}`,
      summary: `${tag} (503 while the feature is off)`,
      tags: [tag],
      access: { permission },
      hidden: true,
      params: z.object({ path: z.string().optional() }),
      handler: ({ settings }) => {
        if (!isDisabled(settings)) throw new HttpError(404, "Not Found");
        throw featureDisabled(tag, enableWith);
      },
    }),
  );
}

/** The durable queue as a feature: the /queue routes answer featureDisabled(...) while it is off. */
export const QUEUE_FEATURE = { tag: "Queue", enableWith: "queue: { durable: true }" } as const;

/** Features that have no implementation behind them in this configuration. */
export const DISABLED_FEATURES: AnyRoute[] = [
  // The durable job queue's operations endpoints (routes/queue.ts) exist only with
  // `queue: { durable: true }`; this catch-all answers the rest of /queue the same way.
  ...disabledFeatureRoutes({
    tag: QUEUE_FEATURE.tag,
    prefix: "/queue",
    enableWith: QUEUE_FEATURE.enableWith,
    permission: "agent_os:admin",
    isDisabled: (settings) => !settings.queue.durable,
  }),
];
