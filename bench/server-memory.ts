/**
 * What `npm start` holds in memory: bench/run-overhead.ts starts the app as an operator does
 * (`node bin/agentry.mjs start`, what `npm start` runs), points its sample agent at the bench's
 * scripted model, and reads the resident memory of every process the command leaves running —
 * the command and all its descendants, from /proc — once idle after start and again after N
 * non-streamed runs; with --mastra, of a Mastra server doing the same (bench/mastra). See
 * bench/README.md.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, type WriteStream } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export interface ProcessMemory {
  pid: number;
  /** The command line, cut to 120 characters. */
  command: string;
  rssBytes: number;
  /** Proportional set size: shared pages split between the processes that map them (smaps_rollup). */
  pssBytes: number | null;
}

export interface TreeMemory {
  processes: ProcessMemory[];
  rssBytes: number;
  pssBytes: number | null;
}

function parentOf(pid: string): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // pid (comm) state ppid …: comm may hold spaces and parentheses, so read after the last ')'.
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return null; // gone meanwhile
  }
}

function statusKiB(pid: number, field: string): number | null {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

function pssKiB(pid: number): number | null {
  try {
    const match = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

/** `root` and every process descended from it, with their resident memory (Linux /proc). */
export function treeMemory(root: number): TreeMemory {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const parent = parentOf(entry);
    if (parent === null) continue;
    const list = children.get(parent) ?? [];
    list.push(Number(entry));
    children.set(parent, list);
  }
  const pids: number[] = [];
  for (const queue = [root]; queue.length > 0; ) {
    const pid = queue.shift()!;
    pids.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  const processes: ProcessMemory[] = [];
  for (const pid of pids) {
    const rss = statusKiB(pid, "VmRSS");
    if (rss === null) continue; // exited, or a kernel thread
    let command = "";
    try {
      command = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean).join(" ");
    } catch {
      // gone meanwhile
    }
    const pss = pssKiB(pid);
    processes.push({ pid, command: command.slice(0, 120), rssBytes: rss * 1024, pssBytes: pss === null ? null : pss * 1024 });
  }
  const pssKnown = processes.every((p) => p.pssBytes !== null);
  return {
    processes,
    rssBytes: processes.reduce((sum, p) => sum + p.rssBytes, 0),
    pssBytes: pssKnown ? processes.reduce((sum, p) => sum + p.pssBytes!, 0) : null,
  };
}

export interface StartedServer {
  child: ChildProcess;
  origin: string;
  /** Milliseconds from spawning the command to the first 200 from its probe (/health). */
  startMs: number;
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }>;
}

export interface StartOptions {
  /** The checkout whose `bin/agentry.mjs start` runs (this one by default). */
  root: string;
  port: number;
  env: Record<string, string>;
  /** File for the server's output. */
  log: string;
}

/**
 * `node bin/agentry.mjs start` in `root`, waiting for /health. It builds first when the build is
 * older than the sources (minutes), so the wait allows 15 minutes.
 */
export async function startAgentry({ root, port, env, log }: StartOptions): Promise<StartedServer> {
  mkdirSync(dirname(log), { recursive: true });
  const out = createWriteStream(log);
  const childEnv: NodeJS.ProcessEnv = { ...process.env };
  // The bench's own settings must not leak into the server's.
  for (const name of ["OS_SECURITY_KEY", "AGENTRY_QUEUE_DURABLE", "AGENTRY_DB_SCHEMA", "AUTH_URL", "DATABASE_URL", "BENCH_DATABASE_URL", "NODE_OPTIONS"]) delete childEnv[name];
  Object.assign(childEnv, { PORT: String(port), HOST: "127.0.0.1", NEXT_TELEMETRY_DISABLED: "1", ...env });
  const spawnedAt = performance.now();
  const child = spawn(process.execPath, [join(root, "bin", "agentry.mjs"), "start"], { cwd: root, env: childEnv, stdio: ["ignore", "pipe", "pipe"] });
  child.stdout!.pipe(out);
  child.stderr!.pipe(out);
  return waitUntilServing(child, `http://127.0.0.1:${port}`, "/health", log, spawnedAt, out);
}

/** Waits (up to 15 minutes: a build may come first) for `origin` + `probe` to answer 200. */
async function waitUntilServing(child: ChildProcess, origin: string, probe: string, log: string, spawnedAt: number, out: WriteStream): Promise<StartedServer> {
  let exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  const exited = new Promise<void>((resolve) => child.once("exit", (code, signal) => ((exit = { code, signal }), resolve())));
  const deadline = Date.now() + 15 * 60_000;
  for (;;) {
    if (exit) throw new Error(`the server exited (${JSON.stringify(exit)}) before ${probe} answered; see ${log}:\n${readFileSync(log, "utf8").slice(-3000)}`);
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`the server did not answer ${probe} within 15 minutes; see ${log}`);
    }
    try {
      const res = await fetch(`${origin}${probe}`);
      await res.arrayBuffer();
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const startMs = performance.now() - spawnedAt;
  return {
    child,
    origin,
    startMs,
    async stop() {
      const t0 = performance.now();
      if (!exit) {
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
        await exited;
        clearTimeout(timer);
      }
      await new Promise<void>((resolve) => out.end(resolve));
      return { ...exit!, ms: performance.now() - t0 };
    },
  };
}

export interface MastraOptions {
  port: number;
  /** The scripted model's base URL (ending in /v1). */
  modelUrl: string;
  /** Its LibSQL (SQLite) file. */
  database: string;
  /** File for the server's output. */
  log: string;
  /** The Node binary (Mastra 1.71 asks for Node >= 22.13; it runs on the benchmark's own Node 20 too). */
  node?: string;
}

/** bench/mastra/server.mjs (its packages installed with `npm ci --prefix bench/mastra`), waiting for GET /api/agents. */
export async function startMastra({ port, modelUrl, database, log, node = process.execPath }: MastraOptions): Promise<StartedServer> {
  const script = fileURLToPath(new URL("./mastra/server.mjs", import.meta.url));
  if (!existsSync(join(dirname(script), "node_modules", "@mastra", "core"))) throw new Error("--mastra: bench/mastra's packages are not installed; run `npm ci --prefix bench/mastra` first");
  mkdirSync(dirname(log), { recursive: true });
  const out = createWriteStream(log);
  const spawnedAt = performance.now();
  const env: NodeJS.ProcessEnv = { ...process.env, MODEL_URL: modelUrl, DB: database, PORT: String(port) };
  delete env.NODE_OPTIONS;
  const child = spawn(node, [script], { cwd: dirname(script), env, stdio: ["ignore", "pipe", "pipe"] });
  child.stdout!.pipe(out);
  child.stderr!.pipe(out);
  return waitUntilServing(child, `http://127.0.0.1:${port}`, "/api/agents", log, spawnedAt, out);
}
