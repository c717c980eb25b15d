#!/usr/bin/env node
// The `agentry` command. Node 20 cannot import TypeScript, so the CLI (lib/cli/main.ts, which
// imports the user's agentry.config.ts) is loaded through tsx's in-process loader.
import { tsImport } from "tsx/esm/api";

const { main } = await tsImport("../lib/cli/main.ts", import.meta.url);
process.exitCode = await main(process.argv.slice(2));
