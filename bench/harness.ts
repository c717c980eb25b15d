/**
 * The process around a benchmark: clean-ups run at the end and on SIGINT/SIGTERM, the code and
 * machine it measured, its results file, and its exit code.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { load } from "./report.ts";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, "..");

/** What the benchmark opened, closed by cleanupAll (last opened first). */
export const cleanups: (() => Promise<void>)[] = [];

export async function cleanupAll(): Promise<void> {
  while (cleanups.length > 0) await cleanups.pop()!().catch((e) => console.error(`cleanup: ${e}`));
}

/** Removes `dir` and all in it at clean-up, unless `keep`. */
export function removeOnCleanup(dir: string, keep: boolean): void {
  cleanups.push(async () => {
    if (!keep) rmSync(dir, { recursive: true, force: true });
  });
}

let stopping = false;

/** Set by SIGINT/SIGTERM (see cleanUpOnSignals): in-flight work then fails on closed resources, which is not an error to report. */
export const interrupted = (): boolean => stopping;

/** On the first SIGINT or SIGTERM: `before` (if given), then every clean-up, then exit with 130. */
export function cleanUpOnSignals(before?: () => void): void {
  const onSignal = () => {
    if (stopping) return;
    stopping = true;
    before?.();
    console.error("\ninterrupted: cleaning up");
    void cleanupAll().finally(() => process.exit(130));
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
}

/** A git command's output in the repository, trimmed; "" when it fails. */
export function git(...a: string[]): string {
  try {
    return execFileSync("git", a, { cwd: ROOT, encoding: "utf8" }).trim();
  } catch {
    return "";
  }
}

/** The header's machine line: CPUs, node and the load average at the start (`load0`). */
export function machineLine(load0: number[]): string {
  return (
    `  machine  : ${cpus().length} x ${cpus()[0]?.model ?? "cpu"}, node ${process.version}, load average ${load(load0)} at start` +
    (load0[0] >= cpus().length ? " — the machine is busy, timings may be noisy" : "")
  );
}

/** Writes bench/results/<name>.json (pretty-printed) and says where. */
export function writeResults(name: string, results: unknown): void {
  const outDir = join(HERE, "results");
  mkdirSync(outDir, { recursive: true });
  const outFile = join(outDir, `${name}.json`);
  writeFileSync(outFile, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`\nResults written to ${resolve(outFile)}`);
}

/**
 * Runs the benchmark's main and exits with process.exitCode (0 when unset). An error is printed
 * and the clean-ups left are run before exiting with 1; after a signal, the signal handler exits.
 */
export function runMain(main: () => Promise<void>): void {
  main().then(
    () => process.exit(process.exitCode ?? 0),
    (error) => {
      if (stopping) return;
      console.error(error);
      void cleanupAll().finally(() => process.exit(1));
    },
  );
}
