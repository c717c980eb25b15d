import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registryEntries, registryModel } from "@/lib/components/registry.ts";
import { rehydrateAgent } from "@/lib/components/rehydrate.ts";
import { parseEnv } from "@/lib/config/env.ts";
import { DEFAULT_MODEL_IDS, MODEL_ENV_HINT, modelFromEnv, modelsFromEnv } from "@/lib/config/model-from-env.ts";
import { providerOf } from "@/lib/models/provider-names.ts";
import { DIALECTS } from "../support/databases.ts";
import { testSettings } from "../support/settings.ts";
import { readSse, startTestApp, type TestApp } from "../support/test-app.ts";

/**
 * The provider presets the environment selects: Mistral, Cerebras, Groq and Google Gemini after
 * the OpenAI-compatible URL, OpenAI and Anthropic, in that order; their defaults; every variable
 * named in the "no model configured" message; every configured preset offered in Studio's
 * registry; a model in use listed in /config's available_models.
 */

type Json = Record<string, unknown>;

const ALL_KEYS = {
  OPENAI_COMPATIBLE_BASE_URL: "http://127.0.0.1:11434/v1",
  OPENAI_API_KEY: "sk-openai",
  ANTHROPIC_API_KEY: "sk-anthropic",
  MISTRAL_API_KEY: "mistral-key",
  CEREBRAS_API_KEY: "cerebras-key",
  GROQ_API_KEY: "groq-key",
  GOOGLE_GENERATIVE_AI_API_KEY: "google-key",
};
const ORDER = ["OPENAI_COMPATIBLE_BASE_URL", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "MISTRAL_API_KEY", "CEREBRAS_API_KEY", "GROQ_API_KEY", "GOOGLE_GENERATIVE_AI_API_KEY"] as const;

describe("models from the environment", () => {
  it("each new preset alone: its provider, its key, its default model or the *_MODEL one", () => {
    const cases: [Record<string, string>, string, string, string][] = [
      [{ MISTRAL_API_KEY: "m" }, "mistral", "mistral-small-latest", "m"],
      [{ CEREBRAS_API_KEY: "c" }, "cerebras", "gpt-oss-120b", "c"],
      [{ GROQ_API_KEY: "g" }, "groq", "openai/gpt-oss-120b", "g"],
      [{ GOOGLE_GENERATIVE_AI_API_KEY: "k" }, "google", "gemini-3.7-flash", "k"],
      [{ GOOGLE_API_KEY: "k2" }, "google", "gemini-3.7-flash", "k2"],
      [{ MISTRAL_API_KEY: "m", MISTRAL_MODEL: "magistral-small-latest" }, "mistral", "magistral-small-latest", "m"],
      [{ CEREBRAS_API_KEY: "c", CEREBRAS_MODEL: "llama3.1-8b" }, "cerebras", "llama3.1-8b", "c"],
      [{ GROQ_API_KEY: "g", GROQ_MODEL: "llama-3.3-70b-versatile" }, "groq", "llama-3.3-70b-versatile", "g"],
      [{ GOOGLE_API_KEY: "k", GOOGLE_MODEL: "gemini-2.5-pro" }, "google", "gemini-2.5-pro", "k"],
    ];
    for (const [env, provider, id, apiKey] of cases) expect(modelFromEnv(parseEnv(env)), JSON.stringify(env)).toEqual({ provider, id, apiKey });
    expect(DEFAULT_MODEL_IDS).toMatchObject({ mistral: "mistral-small-latest", cerebras: "gpt-oss-120b" });
    // The AI SDK's variable wins over Google's own name when both are set.
    expect(modelFromEnv(parseEnv({ GOOGLE_API_KEY: "google-sdk", GOOGLE_GENERATIVE_AI_API_KEY: "ai-sdk" }))?.apiKey).toBe("ai-sdk");
    expect(modelFromEnv(parseEnv({}))).toBeNull();
    expect(modelFromEnv(parseEnv({ MISTRAL_API_KEY: "  " }))).toBeNull();
  });

  it("checks the new presets after the existing three, in the order Mistral, Cerebras, Groq, Google", () => {
    const env = parseEnv(ALL_KEYS);
    expect(modelsFromEnv(env).map((m) => m.provider)).toEqual(["openai-compatible", "openai", "anthropic", "mistral", "cerebras", "groq", "google"]);
    // Taking the variables away one by one from the front: the next in the order is selected.
    const expected = ["openai-compatible", "openai", "anthropic", "mistral", "cerebras", "groq", "google"];
    for (let i = 0; i < ORDER.length; i++) {
      const rest = Object.fromEntries(Object.entries(ALL_KEYS).filter(([key]) => ORDER.indexOf(key as (typeof ORDER)[number]) >= i));
      expect(modelFromEnv(parseEnv(rest))?.provider, `without ${ORDER.slice(0, i).join(", ")}`).toBe(expected[i]);
    }
  });

  it("names every variable in the 'no model configured' message, in the order they are checked", () => {
    const names = [
      "OPENAI_API_KEY",
      "OPENAI_MODEL",
      "ANTHROPIC_API_KEY",
      "ANTHROPIC_MODEL",
      "OPENAI_COMPATIBLE_BASE_URL",
      "OPENAI_COMPATIBLE_MODEL",
      "MISTRAL_API_KEY",
      "MISTRAL_MODEL",
      "CEREBRAS_API_KEY",
      "CEREBRAS_MODEL",
      "GROQ_API_KEY",
      "GROQ_MODEL",
      "GOOGLE_GENERATIVE_AI_API_KEY",
      "GOOGLE_API_KEY",
      "GOOGLE_MODEL",
    ];
    const positions = names.map((name) => MODEL_ENV_HINT.indexOf(name));
    expect(
      positions.every((p) => p >= 0),
      MODEL_ENV_HINT,
    ).toBe(true);
    expect(positions.slice(6)).toEqual([...positions.slice(6)].sort((a, b) => a - b));
  });

  it("offers every configured preset in the registry, the agents' default first, unless environmentModel is false", () => {
    const env = { GROQ_API_KEY: "g", MISTRAL_API_KEY: "m", GOOGLE_API_KEY: "k" };
    const settings = testSettings({
      env,
      file: {
        registry: {
          models: [
            { provider: "cerebras", id: "llama3.1-8b" },
            { provider: "groq", id: "openai/gpt-oss-120b" },
          ],
        },
      },
    });
    expect(settings.registry.models.map((m) => `${m.provider}:${m.id}`)).toEqual(["mistral:mistral-small-latest", "groq:openai/gpt-oss-120b", "google:gemini-3.7-flash", "cerebras:llama3.1-8b"]);
    expect(registryEntries(settings, { isAdmin: false }).filter((e) => e.type === "model")).toEqual(
      expect.arrayContaining([{ name: "gemini-3.7-flash", type: "model", metadata: { class_path: "agentry.models.google", provider: "google", model_id: "gemini-3.7-flash" } }]),
    );
    expect(testSettings({ env, file: { registry: { environmentModel: false } } }).registry.models).toEqual([]);
  });

  it("knows Agno's provider and model class names, so a stored component naming them finds the preset", async () => {
    expect(["MistralChat", "Mistral", "Cerebras", "CerebrasOpenAI", "Groq", "Gemini", "Google", " gemini "].map(providerOf)).toEqual([
      "mistral",
      "mistral",
      "cerebras",
      "cerebras",
      "groq",
      "google",
      "google",
      "google",
    ]);
    const settings = testSettings({ env: { MISTRAL_API_KEY: "m", CEREBRAS_API_KEY: "c" } });
    expect(registryModel(settings, { provider: "MistralChat", id: "mistral-small-latest" })).toMatchObject({ provider: "mistral", apiKey: "m" });
    expect(registryModel(settings, { provider: "CerebrasOpenAI", id: "gpt-oss-120b" })).toMatchObject({ provider: "cerebras" });
    expect(registryModel(settings, { provider: "Gemini", id: "gemini-3.7-flash" })).toBeUndefined();
    const agent = await rehydrateAgent(settings, { id: "stored", config: { model: { provider: "Cerebras", id: "gpt-oss-120b" } }, ownerId: null });
    expect(agent.model).toMatchObject({ provider: "cerebras", id: "gpt-oss-120b", apiKey: "c" });
    await expect(rehydrateAgent(settings, { id: "stored", config: { model: { provider: "Groq", id: "openai/gpt-oss-120b" } }, ownerId: null })).rejects.toThrow(
      /model 'Groq:openai\/gpt-oss-120b' is not in the registry/,
    );
  });
});

describe.each(DIALECTS)("the presets over the API on $name", (dialect) => {
  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    let app: TestApp;
    const mistral = { provider: "mistral" as const, id: "mistral-small-latest", apiKey: "m" };
    const gemini = { provider: "google" as const, id: "gemini-3.7-flash", apiKey: "k" };

    beforeAll(async () => {
      app = await startTestApp({
        dialect,
        env: { GROQ_API_KEY: "g", CEREBRAS_API_KEY: "c" },
        agents: [
          { id: "mistral-agent", name: "M", model: mistral },
          { id: "gemini-agent", name: "G", model: gemini },
          { id: "also-mistral", name: "M2", model: { ...mistral } },
          { id: "no-model", name: "None", model: null },
        ],
        teams: [{ id: "desk", name: "Desk", model: { provider: "groq", id: "openai/gpt-oss-120b", apiKey: "g" }, members: [{ id: "member", name: "Member", model: gemini }] }],
      });
    });
    afterAll(async () => app?.close());

    it("/config lists each model in use by an agent or a team once, with its provider", async () => {
      const body = (await (await app.call("GET", "/config")).json()) as Json;
      expect(body.available_models).toEqual([
        { id: "mistral-small-latest", provider: "mistral" },
        { id: "gemini-3.7-flash", provider: "google" },
        { id: "openai/gpt-oss-120b", provider: "groq" },
      ]);
      expect((body.model_provider_status as Json).message).toContain("MISTRAL_API_KEY");
    });

    it("GET /registry offers the presets the environment configures", async () => {
      const models = ((await (await app.call("GET", "/registry?resource_type=model")).json()) as { data: Json[] }).data;
      expect(models.map((m) => [m.name, (m.metadata as Json).provider])).toEqual([
        ["gpt-oss-120b", "cerebras"],
        ["openai/gpt-oss-120b", "groq"],
      ]);
    });

    it("a run of an agent with no model names every provider's variables, streamed and not", async () => {
      const response = await app.call("POST", "/agents/no-model/runs", { form: { message: "hi", stream: "false" } });
      expect(response.status).toBe(503);
      const detail = String(((await response.json()) as Json).detail);
      for (const name of [
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "OPENAI_COMPATIBLE_BASE_URL",
        "MISTRAL_API_KEY",
        "CEREBRAS_API_KEY",
        "GROQ_API_KEY",
        "GOOGLE_GENERATIVE_AI_API_KEY",
        "GOOGLE_API_KEY",
      ]) {
        expect(detail).toContain(name);
      }
      const events = await readSse(await app.call("POST", "/agents/no-model/runs", { form: { message: "hi" } }));
      expect(events.at(-1)).toMatchObject({ event: "RunError", error_type: "model_not_configured_error" });
      expect(String(events.at(-1)!.content)).toContain("GROQ_API_KEY");
    });
  });
});
