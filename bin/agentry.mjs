#!/usr/bin/env node
// The `agentry` command. Node 20 cannot import TypeScript, so the CLI (lib/cli/main.ts, which
// imports the user's agentry.config.ts) is loaded through tsx's in-process loader.
//
// `agentry start` leaves one process running: this one, serving with Next.js in-process
// (lib/server/serve.mjs, plain JavaScript: this process loads no TypeScript loader). What comes
// before serving — checking the settings, building when the build is stale, migrating — runs in a
// child process (`agentry prepare-start`) that exits first, so tsx, the CLI, the config it imports
// and the database code it opens do not stay resident beside Next's own copies of them.
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";

const args = process.argv.slice(2);

/** Runs `agentry prepare-start` in a child; resolves with its plan, or with its exit code when it has none. */
function prepare() {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(import.meta.url), ["prepare-start"], { stdio: "inherit" });
    let plan = null;
    const forward = (signal) => child.kill(signal);
    process.on("SIGINT", forward).on("SIGTERM", forward);
    child.on("message", (message) => (plan = message));
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      process.off("SIGINT", forward).off("SIGTERM", forward);
      resolve(code === 0 && plan ? { plan } : { code: code || (signal ? 1 : 2) });
    });
  });
}

/** `http://host:port` as a client reaches it: brackets for IPv6, a wildcard address as the local host (as `next start` writes it). */
function originOf(host, port) {
  const name = host === "0.0.0.0" ? "localhost" : host === "::" ? "[::1]" : host.includes(":") ? `[${host}]` : host;
  return `http://${name}:${port}`;
}

if (args[0] === "start") {
  const prepared = await prepare();
  if (!prepared.plan) {
    process.exitCode = prepared.code;
  } else {
    const { host, port, banner, shutdownGraceSeconds } = prepared.plan;
    // What `next start` sets before Next.js (and React) load; Next fetches from itself at the
    // private origin (a server action's redirect renders its target through it).
    process.env.NODE_ENV ||= "production";
    process.env.NEXT_TELEMETRY_DISABLED = "1";
    process.env.__NEXT_PRIVATE_ORIGIN = originOf(host, port);
    const { serveUntilSignalled } = await import("../lib/server/serve.mjs");
    try {
      await serveUntilSignalled({ dir: fileURLToPath(new URL("..", import.meta.url)), host, port, banner, shutdownGraceSeconds });
    } catch (error) {
      console.error(`agentry start: ${error?.code === "EADDRINUSE" ? `${originOf(host, port)} is in use by another process` : (error?.stack ?? error)}`);
      process.exit(1);
    }
  }
} else {
  const { tsImport } = await import("tsx/esm/api");
  const { main } = await tsImport("../lib/cli/main.ts", import.meta.url);
  process.exitCode = await main(args);
}
