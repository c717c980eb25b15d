// Next.js exposes no socket address to route handlers or server actions, and copies it into
// X-Forwarded-For only when a request has none — so a client's own X-Forwarded-For would stand in
// for it. A server that records socket addresses sets this header on each request from its socket,
// first, replacing any value the client sent, and says so on `globalThis`: the app believes the
// header only then (lib/auth/dashboard/client-address.ts). lib/server/serve.mjs does it for every
// request `agentry start` serves; bin/peer-address.mjs, for servers started some other way.

export const PEER_ADDRESS_HEADER = "x-agentry-peer-address";

/** @param {import("node:http").IncomingMessage} request */
export function recordPeerAddress(request) {
  request.headers[PEER_ADDRESS_HEADER] = request.socket.remoteAddress ?? "";
}

/** Tells the app that this process's server records socket addresses. */
export function markPeerAddressesRecorded() {
  globalThis[Symbol.for("agentry.peerAddressHeader")] = true;
}
