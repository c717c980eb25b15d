/**
 * The entry of a document-reading worker thread (document-pool.ts): each message is one
 * DocumentRequest, answered with its DocumentResult; the first message says the thread is ready. One document at a time; the pool ends the
 * thread when a document takes too long or its heap passes the limit.
 */
import { parentPort } from "node:worker_threads";
import { type DocumentRequest, readDocument } from "./read-document.ts";

parentPort?.on("message", (request: DocumentRequest) => {
  void readDocument(request).then((result) => parentPort?.postMessage(result));
});
// The readers are loaded: the pool starts the document's time limit from here.
parentPort?.postMessage({ ready: true });
