import { config, health, info, landing } from "./routes/core.ts";
import { migrateAll, migrateOne } from "./routes/databases.ts";
import { DISABLED_FEATURES } from "./routes/disabled-features.ts";
import { docsRoutes } from "./routes/docs.ts";
import type { AnyRoute } from "./route.ts";

/**
 * Every API route, in one table: the dispatcher serves it, /openapi.json describes it, and the
 * permission test walks it. Each template has an app/(api)/…/route.ts that hands requests to it.
 */
export const ROUTES: readonly AnyRoute[] = [
  landing,
  health,
  info,
  config,
  migrateAll,
  migrateOne,
  ...docsRoutes(() => ROUTES),
  ...DISABLED_FEATURES,
];

export function routesFor(template: string): AnyRoute[] {
  return ROUTES.filter((route) => route.path === template);
}
