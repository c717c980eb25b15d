import { defineConfig } from "@playwright/test";
import { E2E_JWT_SECRET, E2E_PORTS, E2E_SECURITY_KEY } from "./e2e/fixtures/ports.ts";

// Debian's Chromium drives the tests (no browser download is possible here). The port is
// configurable and never reused in CI, so a stray server on the machine is never what we test.
const port = E2E_PORTS.app;
const modelPort = E2E_PORTS.model;
const isCI = !!process.env.CI;
// The databases live in the output folder, which Playwright empties before starting the servers:
// every run begins with no dashboard user, so first-run setup is what the tests see first.
const OUTPUT_DIR = process.env.AGENTRY_E2E_OUTPUT_DIR ?? "e2e/artifacts/test-results";
const appEnv = {
  HOST: "127.0.0.1",
  NEXT_TELEMETRY_DISABLED: "1",
  OPENAI_COMPATIBLE_BASE_URL: `http://127.0.0.1:${modelPort}/v1`,
  OPENAI_COMPATIBLE_MODEL: "scripted",
  // Knowledge embeds through the scripted model's POST /v1/embeddings (its hashing embedder, 384
  // dimensions), so vector and hybrid search work; the length is given so none is probed.
  OPENAI_COMPATIBLE_EMBEDDING_MODEL: "scripted",
  AGENTRY_EMBEDDING_DIMENSIONS: "384",
  // URL ingestion refuses loopback addresses unless allowed: the knowledge test serves its pages
  // from a server of its own on 127.0.0.1.
  AGENTRY_KNOWLEDGE_ALLOW_HOSTS: "127.0.0.1",
};

export default defineConfig({
  testDir: "e2e",
  outputDir: OUTPUT_DIR,
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
      // AGENTRY_E2E_EXTERNAL_AGENT: agentry.config.ts adds e2e/fixtures/external-agents.ts's LangGraph agent.
      env: { ...appEnv, PORT: String(port), DATABASE_URL: `file:./${OUTPUT_DIR}/e2e.db`, AGENTRY_E2E_EXTERNAL_AGENT: "1" },
    },
    {
      // The same app with a security key (auth mode `security_key`), where a request without a
      // principal is 401: the cross-origin test shows a signed-in cookie does not make one.
      command: "node bin/agentry.mjs start",
      url: `http://127.0.0.1:${E2E_PORTS.securedApp}/health`,
      reuseExistingServer: !isCI,
      timeout: 240_000,
      env: { ...appEnv, PORT: String(E2E_PORTS.securedApp), DATABASE_URL: `file:./${OUTPUT_DIR}/e2e-secured.db`, OS_SECURITY_KEY: E2E_SECURITY_KEY },
    },
    {
      // The same app with the durable queue: background runs are jobs its embedded worker runs.
      command: "node bin/agentry.mjs start",
      url: `http://127.0.0.1:${E2E_PORTS.durableApp}/health`,
      reuseExistingServer: !isCI,
      timeout: 240_000,
      env: {
        ...appEnv,
        PORT: String(E2E_PORTS.durableApp),
        DATABASE_URL: `file:./${OUTPUT_DIR}/e2e-durable.db`,
        AGENTRY_QUEUE_DURABLE: "true",
        AGENTRY_QUEUE_POLL_INTERVAL_MS: "200",
      },
    },
    {
      // The same app verifying JWTs (auth mode `jwt`): Studio's test runs a member's agent over HTTP
      // with a token for that member, besides the dashboard.
      command: "node bin/agentry.mjs start",
      url: `http://127.0.0.1:${E2E_PORTS.jwtApp}/health`,
      reuseExistingServer: !isCI,
      timeout: 240_000,
      env: { ...appEnv, PORT: String(E2E_PORTS.jwtApp), DATABASE_URL: `file:./${OUTPUT_DIR}/e2e-jwt.db`, JWT_VERIFICATION_KEY: E2E_JWT_SECRET },
    },
  ],
});
