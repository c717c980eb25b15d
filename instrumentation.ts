/**
 * Next calls register() once when the server starts. With the durable queue and an embedded
 * worker, opening the database starts the worker loop, so queued jobs run after a restart
 * without waiting for the first request.
 */
export async function register(): Promise<void> {
  // Next inlines NEXT_RUNTIME per bundle; the edge bundle must not import the database.
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { getSettings, getDatabase } = await import("./lib/server/app-context.ts");
  // Job kinds and run extensions are the process's before its first request or job.
  (await import("./lib/server/features.ts")).installFeatures();
  const settings = getSettings();
  // The durable queue's embedded worker and the scheduler start when the database is first opened:
  // open it now, so queued jobs run and due schedules fire without waiting for a request.
  if ((settings.queue.durable && settings.queue.embeddedWorker) || settings.scheduler.enabled) await getDatabase(settings);
  // Fires call their endpoints through the route table of this process.
  await import("./lib/http/internal-call.ts");
  // Agno's workflow WebSocket, through the upgrade hook of `agentry start` (lib/server/serve.mjs).
  const { registerUpgradeHandler } = await import("./lib/server/upgrade-handlers.ts");
  const { workflowSocketHandler } = await import("./lib/http/workflow-socket.ts");
  registerUpgradeHandler("/workflows/ws", workflowSocketHandler(getSettings));
}
