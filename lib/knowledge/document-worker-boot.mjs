// Starts a document-reading worker thread when the code runs from its TypeScript source (vitest,
// tsx) rather than from Next's build: the entry named in workerData is loaded through tsx.
import { workerData } from "node:worker_threads";
import { tsImport } from "tsx/esm/api";

await tsImport(workerData.entry, import.meta.url);
