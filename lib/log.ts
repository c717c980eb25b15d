import { readEnv } from "./config/env.ts";

/** Minimal leveled logging to stdout/stderr (AGENTRY_LOG_LEVEL, default info). */
const LEVELS = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;
type Level = Exclude<keyof typeof LEVELS, "silent">;

function enabled(level: Level): boolean {
  return LEVELS[level] >= LEVELS[readEnv().AGENTRY_LOG_LEVEL ?? "info"];
}

export const log = {
  debug: (message: string) => enabled("debug") && console.debug(message),
  info: (message: string) => enabled("info") && console.log(message),
  warn: (message: string) => enabled("warn") && console.warn(message),
  error: (message: string) => enabled("error") && console.error(message),
};
