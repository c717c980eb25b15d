import userConfig from "../../agentry.config.ts";
import { readEnv } from "../config/env.ts";
import { resolveSettings, type Settings } from "../config/settings.ts";

const key = Symbol.for("agentry.settings");
type Holder = { [key]?: Settings };

/**
 * The process's settings: the user's agentry.config.ts (imported statically, so Next bundles it
 * and tsx runs it in workers) resolved with the environment, once per process.
 */
export function getSettings(): Settings {
  const holder = globalThis as Holder;
  holder[key] ??= resolveSettings({ env: readEnv(), file: userConfig });
  return holder[key];
}
