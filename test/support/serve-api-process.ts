/**
 * A web replica for the multi-process tests: the API (the real route table and dispatcher) on a
 * node:http server in its own OS process, configured from the environment like `npm start`
 * (agentry.config.ts + env). `tsx test/support/serve-api-process.ts` with PORT set (0: any free
 * port); prints `listening <origin>` once it serves. SIGTERM stops it like a web server: its
 * embedded worker (if any) releases its jobs.
 */
import { getSettings } from "../../lib/server/load-config.ts";
import { closeRedisCoordinations } from "../../lib/coordination/redis-coordination.ts";
import { getDatabase } from "../../lib/server/app-context.ts";
import { serveApi } from "../../lib/http/node-server.ts";
import { handleMcpRequest, MCP_PATH } from "../../lib/mcp-server/handler.ts";
import { stopEmbeddedWorkers } from "../../lib/queue/embedded-worker.ts";

const settings = getSettings();
await getDatabase(settings);
const { server, origin } = await serveApi({ settings, port: settings.server.port, host: settings.server.host, mounts: { [MCP_PATH]: (request) => handleMcpRequest(request, settings) } });
process.stdout.write(`listening ${origin}\n`);

let stopping = false;
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    server.close();
    server.closeAllConnections();
    void stopEmbeddedWorkers()
      .then(() => closeRedisCoordinations())
      .finally(() => process.exit(0));
  });
}
