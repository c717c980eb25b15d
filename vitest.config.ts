import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

/**
 * Suites that run fleets of real processes (web replicas, workers, Redis) with short leases:
 * they run last and one at a time, so no other suite competes with them for the two cores (a
 * starved worker would miss its heartbeats and lose leases it still holds).
 */
const PROCESS_SUITES = [
  "test/queue/multi-process.test.ts",
  "test/queue/chaos.test.ts",
  "test/queue/cancel-race.test.ts",
  "test/schedules/scheduler-processes.test.ts",
  "test/components/cross-replica.test.ts",
];

export default defineConfig({
  resolve: { alias: { "@": fileURLToPath(new URL(".", import.meta.url)) } },
  test: {
    pool: "forks",
    // Two cores: more workers than that only adds contention on the databases.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    env: { AGENTRY_LOG_LEVEL: "warn" },
    setupFiles: ["test/setup/features.ts"],
    // next-auth imports `next/server` without an extension, which only a bundler resolves: let Vite.
    server: { deps: { inline: ["next-auth"] } },
    projects: [
      { extends: true, test: { name: "suites", include: ["test/**/*.test.ts"], exclude: PROCESS_SUITES, sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: "processes", include: PROCESS_SUITES, fileParallelism: false, sequence: { groupOrder: 1 } } },
    ],
  },
});
