/** The data layer's public surface. Only lib/db and lib/migrations import Prisma. */
export * from "./open-database.ts";
export * from "./pagination.ts";
export * from "./scope.ts";
export * from "./schema-error.ts";
export * from "./runs/runs.ts";
export * from "./runs/run-type.ts";
export * from "./sessions/sessions.ts";
export * from "./sessions/session-runs.ts";
export * from "./sessions/session-writes.ts";
export * from "./sessions/legacy-runs.ts";
export * from "./memories/memories.ts";
export * from "./memories/memory-stats.ts";
export * from "./metrics/metrics.ts";
export * from "./schema-versions/schema-versions.ts";
export * from "./sessions/session-data.ts";
export * from "./service-accounts/service-accounts.ts";
export * from "./jobs/index.ts";
