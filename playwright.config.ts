import { defineConfig } from "@playwright/test";

// Debian's Chromium drives the tests (no browser download is possible here). The port is
// configurable and never reused in CI, so a stray server on the machine is never what we test.
const port = Number(process.env.AGENTRY_E2E_PORT ?? 7797);
const modelPort = port + 1;
const isCI = !!process.env.CI;

export default defineConfig({
  testDir: "e2e",
  outputDir: "e2e/artifacts/test-results",
  timeout: 60_000,
  retries: 0,
  workers: 1,
  reporter: isCI ? [["list"], ["json", { outputFile: "e2e/artifacts/results.json" }]] : "list",
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    },
  },
  webServer: [
    {
      // The scripted OpenAI-compatible model (a test fixture; see e2e/fixtures/README.md).
      command: `npx tsx e2e/fixtures/serve-model.ts ${modelPort}`,
      url: `http://127.0.0.1:${modelPort}/v1/models`,
      reuseExistingServer: !isCI,
      timeout: 60_000,
    },
    {
      command: "node bin/agentry.mjs start",
      url: `http://127.0.0.1:${port}/health`,
      reuseExistingServer: !isCI,
      timeout: 240_000,
      env: {
        PORT: String(port),
        HOST: "127.0.0.1",
        DATABASE_URL: "file:./e2e/artifacts/e2e.db",
        NEXT_TELEMETRY_DISABLED: "1",
        OPENAI_COMPATIBLE_BASE_URL: `http://127.0.0.1:${modelPort}/v1`,
        OPENAI_COMPATIBLE_MODEL: "scripted",
      },
    },
  ],
});
