import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

const SOURCES = ["app", "components", "lib", "agentry.config.ts", "next.config.ts", "proxy.ts", "package.json", "postcss.config.mjs", "prisma/schema.prisma"];
const SKIP = new Set(["node_modules", ".next", "generated", "scratch"]);

function newestMtime(path: string): number {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) {
    if (SKIP.has(entry)) continue;
    newest = Math.max(newest, newestMtime(join(path, entry)));
  }
  return newest;
}

/** Whether the build (`.next`, or AGENTRY_NEXT_DIST_DIR) is missing or older than any source that goes into the build. */
export function buildIsStale(root: string, distDir = ".next"): { stale: boolean; reason: string } {
  const buildId = join(root, distDir, "BUILD_ID");
  if (!existsSync(buildId)) return { stale: true, reason: "no build yet" };
  const built = statSync(buildId).mtimeMs;
  for (const source of SOURCES) {
    if (newestMtime(join(root, source)) > built) return { stale: true, reason: `${source} changed since the last build` };
  }
  return { stale: false, reason: "build is up to date" };
}
