// Loaded into the web server process with `node --import` (by `agentry start`), before Next.js.
// Next.js exposes no socket address to route handlers or server actions, and copies it into
// X-Forwarded-For only when a request has none — so a client's own X-Forwarded-For would stand
// in for it. Every HTTP server this process creates therefore sets `x-agentry-peer-address` on
// each request from its socket, first, replacing any value the client sent; `globalThis` records
// that it does, so the app believes the header only then (lib/auth/dashboard/client-address.ts).
import http from "node:http";

const HEADER = "x-agentry-peer-address";
const createServer = http.createServer;

http.createServer = function createServerRecordingPeers(...args) {
  const server = createServer.apply(this, args);
  server.prependListener("request", (request) => {
    request.headers[HEADER] = request.socket.remoteAddress ?? "";
  });
  return server;
};
globalThis[Symbol.for("agentry.peerAddressHeader")] = true;
