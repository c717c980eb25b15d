/** The app under test for bench/dashboard.ts: `node bin/agentry.mjs start`, in its own process group. */
import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream, mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";

export interface Server {
  child: ChildProcess;
  log: string;
  stop(): Promise<void>;
}

export interface ServerOptions {
  root: string;
  /** AGENTRY_NEXT_DIST_DIR, relative to root. */
  distDir: string;
  port: number;
  databaseUrl: string;
  /** PostgreSQL schema; null on SQLite. */
  schema: string | null;
  authSecret: string;
  /** false: serve the existing build with `next start`, never building. */
  build: boolean;
  /** File for the server's output. */
  log: string;
}

/**
 * Starts the app as an operator would (`agentry start`: it builds first when the build is older
 * than the sources, migrates, and runs `next start`) and waits for /health. Auth mode `none` on
 * 127.0.0.1; the dashboard's sign-in still applies.
 */
export async function startServer({ root, distDir, port, databaseUrl, schema, authSecret, build, log }: ServerOptions): Promise<Server> {
  mkdirSync(dirname(log), { recursive: true });
  const out = createWriteStream(log);
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ["OS_SECURITY_KEY", "AGENTRY_QUEUE_DURABLE", "AGENTRY_DB_SCHEMA", "AUTH_URL"]) delete env[name];
  Object.assign(env, {
    AGENTRY_NEXT_DIST_DIR: distDir,
    PORT: String(port),
    HOST: "127.0.0.1",
    DATABASE_URL: databaseUrl,
    ...(schema ? { AGENTRY_DB_SCHEMA: schema } : {}),
    AUTH_SECRET: authSecret,
    NEXT_TELEMETRY_DISABLED: "1",
    NODE_ENV: "production",
    AGENTRY_LOG_LEVEL: "warn",
    // A configured (unreachable) model, so the shell shows no "no model provider" banner.
    OPENAI_COMPATIBLE_BASE_URL: "http://127.0.0.1:9/v1",
    OPENAI_COMPATIBLE_MODEL: "scripted",
  });
  const command = build ? [join(root, "bin/agentry.mjs"), "start"] : [join(root, "node_modules/next/dist/bin/next"), "start", "-p", String(port), "-H", "127.0.0.1"];
  const child = spawn(process.execPath, command, { cwd: root, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  child.stdout!.pipe(out);
  child.stderr!.pipe(out);
  let exited: number | null = null;
  child.once("exit", (code) => (exited = code ?? 1));
  const deadline = Date.now() + 15 * 60_000;
  for (;;) {
    if (exited !== null) throw new Error(`the server exited (${exited}) before it answered /health; see ${log}:\n${readFileSync(log, "utf8").slice(-3000)}`);
    if (Date.now() > deadline) throw new Error(`the server did not answer /health within 15 minutes; see ${log}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/health`);
      await res.arrayBuffer();
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    child,
    log,
    async stop() {
      if (exited !== null) return;
      const gone = new Promise((r) => child.once("exit", r));
      try {
        process.kill(-child.pid!, "SIGTERM"); // the process group: agentry start and its `next start`
      } catch {
        return;
      }
      await Promise.race([gone, new Promise((r) => setTimeout(r, 5000))]);
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // already gone
      }
    },
  };
}
