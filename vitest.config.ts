import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "@": fileURLToPath(new URL(".", import.meta.url)) } },
  test: {
    include: ["test/**/*.test.ts"],
    pool: "forks",
    // Two cores: more workers than that only adds contention on the databases.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    env: { AGENTRY_LOG_LEVEL: "warn" },
  },
});
