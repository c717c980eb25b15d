import { describe, expect, it } from "vitest";
import { ConfigError, defineAgent } from "@/lib/config/define.ts";
import { EnvError, parseEnv } from "@/lib/config/env.ts";
import { testSettings } from "../support/settings.ts";

describe("settings", () => {
  it("uses Agno's defaults: port 7777, loopback, embedded SQLite, auth none, chat UI origin", () => {
    const s = testSettings();
    expect(s.server).toEqual({ port: 7777, host: "127.0.0.1", allowPublicBind: false });
    expect(s.database.url).toBe("file:./data/agentry.db");
    expect(s.auth.mode).toBe("none");
    expect(s.corsOrigins).toEqual(["http://localhost:3000"]);
    expect(s.queue.maxConcurrency).toBe(32);
    expect(s.osId).toBe("agentry");
  });

  it("lets the environment win over agentry.config.ts and records where each value came from", () => {
    const s = testSettings({
      env: { PORT: "8080", AGNO_BACKGROUND_MAX_CONCURRENCY: "4", AGENTRY_OS_ID: "from-env" },
      file: { osId: "from-file", server: { port: 9090 }, queue: { maxConcurrency: 8 } },
    });
    expect(s.server.port).toBe(8080);
    expect(s.queue.maxConcurrency).toBe(4);
    expect(s.osId).toBe("from-env");
    expect(s.sources["server.port"]).toBe("env:PORT");
    expect(testSettings({ file: { server: { port: 9090 } } }).sources["server.port"]).toBe("config:server.port");
  });

  it("derives the auth mode: JWT beats the security key", () => {
    expect(testSettings({ env: { OS_SECURITY_KEY: "k" } }).auth.mode).toBe("security_key");
    expect(testSettings({ env: { OS_SECURITY_KEY: "k", JWT_VERIFICATION_KEY: "secret" } }).auth.mode).toBe("jwt");
    expect(testSettings({ env: { JWT_VERIFICATION_KEYS: '["a","b"]' } }).auth.verificationKeys).toEqual(["a", "b"]);
  });

  it("fails at start on contradictory settings, naming both", () => {
    expect(() => testSettings({ env: { JWT_VERIFICATION_KEY: "a", JWT_VERIFICATION_KEYS: "b" } })).toThrow(/JWT_VERIFICATION_KEY and JWT_VERIFICATION_KEYS/);
    expect(() => testSettings({ env: { HOST: "0.0.0.0" } })).toThrow(/env:HOST binds to 0\.0\.0\.0.*AGENTRY_ALLOW_PUBLIC_BIND/);
    expect(testSettings({ env: { HOST: "0.0.0.0", AGENTRY_ALLOW_PUBLIC_BIND: "true" } }).server.host).toBe("0.0.0.0");
    expect(testSettings({ env: { HOST: "0.0.0.0", OS_SECURITY_KEY: "k" } }).server.host).toBe("0.0.0.0");
    expect(() => testSettings({ env: { AGENTRY_CORS_ORIGINS: "*" } })).toThrow(/'\*'/);
  });

  it("rejects the removed auth.secretKey with a pointer to verificationKeys", () => {
    expect(() => testSettings({ file: { auth: { secretKey: "x" } } })).toThrow(/secretKey was removed.*verificationKeys/);
  });

  it("names a bad environment variable", () => {
    expect(() => parseEnv({ PORT: "seventy" })).toThrow(EnvError);
    expect(() => parseEnv({ PORT: "seventy" })).toThrow(/PORT must be an integer/);
    expect(() => parseEnv({ AGENTRY_ALLOW_PUBLIC_BIND: "maybe" })).toThrow(/AGENTRY_ALLOW_PUBLIC_BIND must be true or false/);
  });

  it("rejects unknown config keys with their path", () => {
    expect(() => testSettings({ file: { server: { prot: 1 } } as never })).toThrow(/server/);
  });
});

describe("defineAgent", () => {
  it("rejects options removed in v3, naming the replacement", () => {
    const cases: [string, RegExp][] = [
      ["enableUserMemories", /updateMemoryOnRun/],
      ["searchSessionHistory", /searchPastSessions/],
      ["numHistorySessions", /numPastSessionsToSearch/],
      ["numPastSessionRuns", /numPastSessionRunsInSearch/],
      ["reasoning", /reasoningModel/],
      ["enableAgenticCulture", /Knowledge/],
      ["addCultureToContext", /Knowledge/],
    ];
    for (const [option, replacement] of cases) {
      expect(() => defineAgent({ id: "a", name: "A", model: null, [option]: true }), option).toThrow(replacement);
    }
  });

  it("accepts the v3 names and rejects unknown options", () => {
    expect(defineAgent({ id: "a", name: "A", model: null, updateMemoryOnRun: true, numHistoryRuns: 2 }).updateMemoryOnRun).toBe(true);
    expect(() => defineAgent({ id: "a", name: "A", model: null, temperture: 1 })).toThrow(ConfigError);
    expect(() => defineAgent({ id: "bad id", name: "A", model: null })).toThrow(/agent id/);
  });
});
