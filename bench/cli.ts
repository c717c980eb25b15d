/**
 * Command-line options shared by the benchmarks: `--name` flags and `--name=value` options read
 * from process.argv. A bad value prints what the option takes and exits with code 2.
 */

const args = process.argv.slice(2);

/** The PostgreSQL server the benchmarks use when neither --url nor BENCH_DATABASE_URL names one. */
export const DEFAULT_PG_URL = "postgresql://postgres@127.0.0.1:5432/test";

/** Whether `--name` was given. */
export const flag = (name: string): boolean => args.includes(`--${name}`);

/** The value of `--name=value`, or undefined. */
export const option = (name: string): string | undefined => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);

/**
 * With `--help`, prints `usage` and exits with 0; with an argument `known` does not match, names
 * it, prints `usage` and exits with 2.
 */
export function checkArgs(known: RegExp, usage: string): void {
  const unknownArgs = args.filter((a) => !known.test(a));
  if (flag("help") || unknownArgs.length > 0) {
    if (unknownArgs.length > 0) console.error(`Unknown argument(s): ${unknownArgs.join(" ")}`);
    console.error(usage);
    process.exit(unknownArgs.length > 0 ? 2 : 0);
  }
}

/** `--name=N` (underscores allowed: 10_000), at least `min` (and at most `max` when given); `fallback` when absent. */
export function intOption(name: string, fallback: number, min: number, max?: number): number {
  const raw = option(name);
  const value = raw === undefined ? fallback : Number(raw.replace(/_/g, ""));
  if (!Number.isInteger(value) || value < min || (max !== undefined && value > max)) {
    console.error(max === undefined ? `--${name} must be an integer >= ${min}, got '${raw}'` : `--${name} must be an integer from ${min} to ${max}, got '${raw}'`);
    process.exit(2);
  }
  return value;
}

/** `--name=a,b`: some of `all`, in `all`'s order; all of them when absent. */
export function listOption<T extends string>(name: string, all: readonly T[]): T[] {
  const raw = option(name);
  if (raw === undefined) return [...all];
  const picked = raw.split(",").map((s) => s.trim()) as T[];
  const bad = picked.filter((p) => !all.includes(p));
  if (bad.length > 0 || picked.length === 0) {
    console.error(`--${name} takes ${all.join(",")}; got '${raw}'`);
    process.exit(2);
  }
  return all.filter((a) => picked.includes(a));
}

/** The PostgreSQL server: --url, else BENCH_DATABASE_URL, else DEFAULT_PG_URL; it must be a postgresql:// URL. */
export function postgresUrlOption(): string {
  const url = option("url") ?? process.env.BENCH_DATABASE_URL ?? DEFAULT_PG_URL;
  if (!/^postgres(ql)?:\/\//i.test(url)) {
    console.error("--url / BENCH_DATABASE_URL must be a postgresql:// URL (SQLite always runs in a temporary directory)");
    process.exit(2);
  }
  return url;
}
