// A Mastra 1.71 server doing what bench/run-overhead.ts asks of `agentry start` (its --mastra
// series): one agent on the benchmark's scripted OpenAI-compatible model, every run stored with
// its thread in a LibSQL (SQLite) file, served over HTTP with Mastra's Hono adapter.
//   MODEL_URL=http://127.0.0.1:…/v1 DB=/tmp/mastra.db PORT=7953 node bench/mastra/server.mjs
// Its packages are this folder's own (`npm ci --prefix bench/mastra`), not Agentry's.

/** Imports one of this folder's packages, saying how to install them when they are missing. */
async function load(name) {
  try {
    return await import(name);
  } catch (error) {
    if (error?.code === "ERR_MODULE_NOT_FOUND") {
      console.error(`bench/mastra: ${name} is not installed; run \`npm ci --prefix bench/mastra\` first`);
      process.exit(2);
    }
    throw error;
  }
}

const [{ Hono }, { serve }, { MastraServer }, { Mastra }, { Agent }, { LibSQLStore }, { Memory }, { createOpenAICompatible }] = await Promise.all(
  ["hono", "@hono/node-server", "@mastra/hono", "@mastra/core", "@mastra/core/agent", "@mastra/libsql", "@mastra/memory", "@ai-sdk/openai-compatible"].map(load),
);

const { MODEL_URL, DB, PORT } = process.env;
if (!MODEL_URL || !DB || !PORT) {
  console.error("bench/mastra/server.mjs needs MODEL_URL, DB and PORT");
  process.exit(2);
}
const provider = createOpenAICompatible({ name: "scripted", baseURL: MODEL_URL, apiKey: "x" });
const storage = new LibSQLStore({ id: "bench", url: `file:${DB}` });
const agent = new Agent({
  id: "assistant",
  name: "Assistant",
  instructions: "Be concise and accurate. Say so when you do not know.",
  model: provider.chatModel("scripted"),
  memory: new Memory({ storage }),
});
const mastra = new Mastra({ agents: { assistant: agent }, storage });
const app = new Hono();
await new MastraServer({ app, mastra }).init();
const server = serve({ fetch: app.fetch, port: Number(PORT), hostname: "127.0.0.1" }, () => console.log(`mastra on http://127.0.0.1:${PORT}`));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
