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

describe("registry and studio settings", () => {
  const toolkit = (id: string, name = id, extra: Record<string, unknown> = {}) => ({ id, name, tools: [], ...extra });

  it("defaults: the environment's model, every knowledge base, Studio's limits", () => {
    const s = testSettings({ env: { OPENAI_API_KEY: "sk-test" } });
    expect(s.registry.models).toEqual([{ provider: "openai", id: "gpt-4.1-mini", apiKey: "sk-test" }]);
    expect(s.registry.toolkits).toEqual([]);
    expect(s.registry.knowledge).toEqual([{ knowledge: { id: "knowledge", name: "Knowledge" }, membersMayAttach: true }]);
    expect(s.registry.schemas).toEqual([]);
    expect(s.registry.learning).toEqual([]);
    expect(s.studio.limits).toEqual({ maxComponentsPerUser: 100, maxConfigBytes: 262_144, maxInstructionsChars: 32_000 });
    expect(testSettings().registry.models).toEqual([]);
  });

  it("takes models, toolkits (Host and run-time toolkits admin-only by default), knowledge, schemas and learning machines from the file", () => {
    const handbook = { id: "handbook", name: "Handbook" };
    const s = testSettings({
      env: { OPENAI_API_KEY: "sk-test" },
      file: {
        registry: {
          models: [
            { provider: "anthropic", id: "claude-sonnet-4-5" },
            { provider: "openai", id: "gpt-4.1-mini" },
          ],
          toolkits: [
            toolkit("calculator", "Calculator"),
            toolkit("host", "Host"),
            toolkit("mcp", "MCP", { loadTools: async () => [] }),
            { toolkit: toolkit("workspace"), membersMayAttach: false },
            { toolkit: toolkit("other-mcp", "Other", { loadTools: async () => [] }), membersMayAttach: true },
          ],
          knowledge: [{ knowledge: handbook, membersMayAttach: false }],
          schemas: [{ name: "Answer", schema: { type: "object" } }],
          learning: [{ name: "Profiles", userProfile: true }],
        },
        studio: { limits: { maxComponentsPerUser: 5 } },
      },
    });
    expect(s.registry.models.map((m) => `${m.provider}:${m.id}`)).toEqual(["openai:gpt-4.1-mini", "anthropic:claude-sonnet-4-5"]);
    expect(s.registry.toolkits.map((t) => [t.toolkit.id, t.membersMayAttach])).toEqual([
      ["calculator", true],
      ["host", false],
      ["mcp", false],
      ["workspace", false],
      ["other-mcp", true],
    ]);
    // A registry knowledge base is served like any other.
    expect(s.knowledge.bases.map((b) => b.id)).toEqual(["handbook"]);
    expect(s.registry.knowledge).toEqual([{ knowledge: handbook, membersMayAttach: false }]);
    expect(s.registry.schemas[0]!.name).toBe("Answer");
    expect(s.registry.learning).toEqual([{ name: "Profiles", userProfile: true }]);
    expect(s.studio.limits).toEqual({ maxComponentsPerUser: 5, maxConfigBytes: 262_144, maxInstructionsChars: 32_000 });
    expect(testSettings({ env: { OPENAI_API_KEY: "sk-test" }, file: { registry: { environmentModel: false } } }).registry.models).toEqual([]);
  });

  it("fails at start on a bad registry, naming the entry", () => {
    expect(() => testSettings({ file: { registry: { toolkits: [{ id: "x" }] } } as never })).toThrow(/registry\.toolkits\.0/);
    expect(() => testSettings({ file: { registry: { toolkits: [toolkit("a", "A"), toolkit("a", "B")] } } })).toThrow(/two toolkits share the id or name of 'a'/);
    expect(() =>
      testSettings({
        file: {
          registry: {
            schemas: [
              { name: "S", schema: {} },
              { name: "S", schema: {} },
            ],
          },
        },
      }),
    ).toThrow(/two schemas share the name 'S'/);
    expect(() => testSettings({ file: { registry: { learning: [{ userProfile: true }] } } as never })).toThrow(/registry\.learning\.0/);
    expect(() => testSettings({ file: { registry: { learning: [{ name: "L" }, { name: "L" }] } } })).toThrow(/two learning machines share the name 'L'/);
    expect(() => testSettings({ file: { studio: { limits: { maxConfigBytes: 10 } } } })).toThrow(/studio\.limits\.maxConfigBytes/);
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
