import userConfig from "../../agentry.config.ts";
import { readEnv } from "../config/env.ts";
import { resolveSettings, type Settings } from "../config/settings.ts";
import { log } from "../log.ts";

const key = Symbol.for("agentry.settings");
type Holder = { [key]?: Settings };

/**
 * The process's settings: the user's agentry.config.ts (imported statically, so Next bundles it
 * and tsx runs it in workers) resolved with the environment, once per process; what the file
 * still accepts but should change (a deprecated key) is logged as a warning then.
 */
export function getSettings(): Settings {
  const holder = globalThis as Holder;
  holder[key] ??= resolveSettings({ env: readEnv(), file: userConfig, warn: (message) => log.warn(message) });
  return holder[key];
}
