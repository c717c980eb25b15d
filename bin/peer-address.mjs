// For a server `agentry start` does not run (`node --import ./bin/peer-address.mjs
// node_modules/next/dist/bin/next start`, or `next dev` with it in NODE_OPTIONS): every HTTP
// server this process creates records each request's socket address for sign-in throttling, as
// `agentry start` does for its own (lib/server/peer-address.mjs says why).
import http from "node:http";
import { markPeerAddressesRecorded, recordPeerAddress } from "../lib/server/peer-address.mjs";

const createServer = http.createServer;

http.createServer = function createServerRecordingPeers(...args) {
  const server = createServer.apply(this, args);
  server.prependListener("request", recordPeerAddress);
  return server;
};
markPeerAddressesRecorded();
