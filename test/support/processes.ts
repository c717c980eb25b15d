import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";

/**
 * Web replicas and standalone workers as real OS processes, for the multi-process, crash and
 * chaos tests. Each is configured by environment, as an operator would configure one.
 */

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** A port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface Spawned {
  readonly name: string;
  readonly child: ChildProcess;
  /** Every line it printed (stdout and stderr), live. */
  readonly lines: string[];
  /** Resolves with the exit code (or the signal) once it has exited. */
  readonly exited: Promise<number | NodeJS.Signals>;
  /** Resolves with the first line matching, rejects after timeoutMs or if it exits first. */
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<string>;
  kill(signal?: NodeJS.Signals): Promise<number | NodeJS.Signals>;
}

function spawnTs(name: string, script: string, env: Record<string, string>): Spawned {
  // One process (node with tsx's loader, not the tsx CLI, which runs the script in a child):
  // signals such as SIGKILL and SIGSTOP reach the process that does the work.
  const child = spawn(process.execPath, ["--import", "tsx", script], {
    cwd: ROOT,
    env: { ...process.env, AGENTRY_LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  const waiters = new Set<{ pattern: RegExp; resolve: (line: string) => void }>();
  for (const stream of [child.stdout!, child.stderr!]) {
    createInterface({ input: stream }).on("line", (line) => {
      lines.push(line);
      if (process.env.AGENTRY_TEST_SHOW_PROCESS_OUTPUT) console.log(`[${name}] ${line}`);
      for (const waiter of waiters) if (waiter.pattern.test(line)) waiter.resolve(line);
    });
  }
  const exited = new Promise<number | NodeJS.Signals>((resolve) => child.once("exit", (code, signal) => resolve(signal ?? code ?? 0)));
  return {
    name,
    child,
    lines,
    exited,
    waitForLine(pattern, timeoutMs = 60_000) {
      const seen = lines.find((line) => pattern.test(line));
      if (seen) return Promise.resolve(seen);
      return new Promise<string>((resolve, reject) => {
        const waiter = {
          pattern,
          resolve: (line: string) => {
            cleanup();
            resolve(line);
          },
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`${name}: no line matching ${pattern} within ${timeoutMs} ms; it printed:\n${lines.slice(-30).join("\n")}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(waiter);
        };
        waiters.add(waiter);
        void exited.then((how) => {
          if (!waiters.has(waiter)) return;
          cleanup();
          reject(new Error(`${name} exited (${how}) before printing a line matching ${pattern}:\n${lines.slice(-30).join("\n")}`));
        });
      });
    },
    kill(signal = "SIGTERM") {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** A web replica serving the API on its own port; resolves once it listens. */
export async function spawnApiServer(name: string, env: Record<string, string>): Promise<Spawned & { origin: string }> {
  const port = await freePort();
  const spawned = spawnTs(name, "test/support/serve-api-process.ts", { HOST: "127.0.0.1", ...env, PORT: String(port) });
  const line = await spawned.waitForLine(/^listening /);
  return Object.assign(spawned, { origin: line.slice("listening ".length) });
}

/** A standalone worker (`npm run worker`'s entry); resolves once it claims. */
export async function spawnWorker(name: string, env: Record<string, string>): Promise<Spawned> {
  const spawned = spawnTs(name, "workers/queue-worker.ts", { HOST: "127.0.0.1", ...env });
  await spawned.waitForLine(/\] claiming from /);
  return spawned;
}
