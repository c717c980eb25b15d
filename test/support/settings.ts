import { parseEnv } from "@/lib/config/env.ts";
import type { FileConfig } from "@/lib/config/define.ts";
import { resolveSettings, type Settings } from "@/lib/config/settings.ts";

/** Settings resolved exactly as the server resolves them, from a given env and config file. */
export function testSettings({ env = {}, file = {} }: { env?: Record<string, string>; file?: FileConfig } = {}): Settings {
  return resolveSettings({ env: parseEnv(env), file });
}
