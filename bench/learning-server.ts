/**
 * One server of the learning benchmark (bench/learning.ts), in its own OS process: the API (the
 * route table and dispatcher the Next route handlers call) on node:http through
 * lib/http/node-server.ts's serveApi, over the database the environment names (DATABASE_URL,
 * AGENTRY_DB_SCHEMA), with ONE agent: the sample agent (agentry.config.ts's `assistant`:
 * calculator and host tools, history on; its knowledge base left out) on the bench's scripted
 * model, with `learning: true` when BENCH_LEARNING=1 and without learning otherwise.
 *
 *   BENCH_MODEL_URL=http://127.0.0.1:PORT/v1 BENCH_LEARNING=1 DATABASE_URL=file:/tmp/x.db node --import tsx bench/learning-server.ts
 *
 * Prints `listening <origin>` once it serves. `GET /bench/cpu` answers the process's own CPU time
 * (process.cpuUsage(), µs) and memory, so the benchmark reads what the server spent without /proc;
 * `GET /bench/cpu?gc=1` collects garbage first (when started with --expose-gc).
 * SIGTERM closes the server and the database, then exits.
 */
import type { AgentDefinition } from "../lib/config/define.ts";
import { readEnv } from "../lib/config/env.ts";
import { resolveSettings } from "../lib/config/settings.ts";
import { serveApi } from "../lib/http/node-server.ts";
import { calculatorToolkit } from "../lib/runtime/tools/calculator/calculator.ts";
import { hostToolkit } from "../lib/runtime/tools/host/host.ts";
import { getDatabase } from "../lib/server/app-context.ts";

const modelUrl = process.env.BENCH_MODEL_URL;
if (!modelUrl) {
  console.error("BENCH_MODEL_URL must name the scripted model's /v1 URL");
  process.exit(2);
}
const learning = process.env.BENCH_LEARNING === "1";

const assistant: AgentDefinition = {
  id: "assistant",
  name: "Assistant",
  description: "A helpful general-purpose assistant.",
  model: { provider: "openai-compatible", id: "scripted", baseUrl: modelUrl, apiKey: "x" },
  instructions: ["Be concise and accurate.", "Say so when you do not know."],
  tools: [calculatorToolkit, hostToolkit],
  addHistoryToContext: true,
  numHistoryRuns: 3,
  ...(learning ? { learning: true } : {}),
};

// As the server resolves its settings; tracing as shipped. No scheduler and no daily metrics
// refresh: nothing runs in the background but the trace exporter, on both sides alike.
const settings = resolveSettings({ env: readEnv(), file: { agents: [assistant], scheduler: false, metrics: { dailyRefresh: false } } });
const db = await getDatabase(settings);
const { server, origin } = await serveApi({
  settings,
  intercept: (req, res) => {
    if (req.url !== "/bench/cpu" && req.url !== "/bench/cpu?gc=1") return false;
    // ?gc=1: collect garbage first (the benchmark starts the server with --expose-gc), so the heap is what is retained.
    if (req.url.endsWith("gc=1")) (globalThis as { gc?: () => void }).gc?.();
    const { user, system } = process.cpuUsage();
    const memory = process.memoryUsage();
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        userMicros: user,
        systemMicros: system,
        rssBytes: memory.rss,
        heapUsedBytes: memory.heapUsed,
        heapTotalBytes: memory.heapTotal,
        externalBytes: memory.external,
        pid: process.pid,
      }),
    );
    return true;
  },
});
process.stdout.write(`listening ${origin}\n`);

let stopping = false;
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    server.close();
    server.closeAllConnections();
    void db
      .close()
      .catch(() => undefined)
      .finally(() => process.exit(0));
  });
}
