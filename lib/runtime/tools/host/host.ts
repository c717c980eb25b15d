import os from "node:os";
import { z } from "zod";
import { defineTool, defineToolkit } from "../types.ts";

const MB = 1024 * 1024;

/**
 * Facts about the machine Agentry runs on. Read-only, but whatever a tool returns is sent to the
 * model provider, so the user approves each call.
 */
const serverDetails = defineTool({
  name: "server_details",
  description: "Details of the server this agent runs on: operating system, Node.js version, CPUs, memory and uptime",
  parameters: z.object({}),
  requiresConfirmation: true,
  execute: () => ({
    platform: os.platform(),
    os_release: os.release(),
    arch: os.arch(),
    node_version: process.version,
    cpus: os.cpus().length,
    memory_total_mb: Math.round(os.totalmem() / MB),
    memory_free_mb: Math.round(os.freemem() / MB),
    uptime_hours: Math.round((os.uptime() / 3600) * 10) / 10,
  }),
});

/** The model cannot know where the user is, so the user names the time zone (and the clock style). */
const currentTime = defineTool({
  name: "current_time",
  description: "The current date and time in the user's time zone (the user is asked for the zone)",
  parameters: z.object({ time_zone: z.string().optional(), hour12: z.boolean().optional() }),
  userInputFields: [
    { name: "time_zone", field_type: "str", description: "IANA time zone, e.g. Europe/Oslo or America/New_York" },
    { name: "hour12", field_type: "bool", description: "Show the time on a 12-hour clock" },
  ],
  execute: ({ time_zone = "UTC", hour12 = false }) => {
    const now = new Date();
    let localTime: string;
    try {
      localTime = new Intl.DateTimeFormat("en-GB", { dateStyle: "full", timeStyle: "short", timeZone: time_zone, hour12 }).format(now);
    } catch {
      // Intl's RangeError names no zone; the model reads this message and can ask again.
      throw new Error(`unknown time zone '${time_zone}': use an IANA name such as Europe/Oslo`);
    }
    return { time_zone, local_time: localTime, utc: now.toISOString() };
  },
});

/**
 * The names (never the values) of the server's environment variables: they tell what the server
 * is configured with, so an admin approves each call (the person asking cannot approve it).
 */
const environmentNames = defineTool({
  name: "environment_variable_names",
  description: "The names of the server's environment variables (not their values), sorted; an admin must approve each call",
  parameters: z.object({ prefix: z.string().optional() }),
  approval: "required",
  execute: ({ prefix = "" }) => ({
    names: Object.keys(process.env)
      .filter((name) => name.startsWith(prefix))
      .sort(),
  }),
});

/** Human-in-the-loop tools with harmless behaviour: one needs confirmation, one asks for input, one an admin's approval. */
export const hostToolkit = defineToolkit({
  id: "host",
  name: "Host",
  tools: [serverDetails, currentTime, environmentNames],
});
