import { z } from "zod";
import { HttpError } from "../errors.ts";
import { defineRoute, type AnyRoute, type HttpMethod } from "../route.ts";

/**
 * A feature that is off in this configuration answers every method and sub-path with 503 and
 * Agno's message shape: "<Tag> not available: pass a `<x>` to AgentOS to enable this feature."
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
        throw new HttpError(503, `${tag} not available: pass a \`${enableWith}\` to AgentOS to enable this feature.`);
      },
    }),
  );
}

/** Features that have no implementation behind them in this configuration. */
export const DISABLED_FEATURES: AnyRoute[] = [
  // The durable job queue's operations endpoints exist only with `queue: { durable: true }`.
  ...disabledFeatureRoutes({
    tag: "Queue",
    prefix: "/queue",
    enableWith: "queue: { durable: true }",
    permission: "agent_os:admin",
    isDisabled: () => true,
  }),
];
