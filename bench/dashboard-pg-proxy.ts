/**
 * A pass-through TCP proxy in front of PostgreSQL that times the statements going through it, for
 * bench/dashboard.ts: the server under test connects through it, so the benchmark knows how long
 * a page's own SQL took inside the page request (and which statements they were) without
 * touching the app.
 *
 * It reads just enough of the wire protocol (v3): on the client side the Parse (statement name →
 * text), Bind (which statement runs), Query and Sync messages; on the server side the
 * ReadyForQuery that ends each Sync or Query. A batch runs from the arrival of its first client
 * message to the ReadyForQuery, as a client next to the proxy would see it. No TLS.
 */
import { createServer, connect, type Server, type Socket } from "node:net";

export interface TimedBatch {
  /** performance.now() when the batch's first message arrived / its ReadyForQuery did. */
  start: number;
  end: number;
  /** The statement texts the batch ran, as sent (with $n placeholders). */
  texts: string[];
}

export interface StatementProxy {
  port: number;
  /** Called for every finished batch. */
  onBatch: ((batch: TimedBatch) => void) | null;
  close(): Promise<void>;
}

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;

function cString(buffer: Buffer, at: number): [string, number] {
  const end = buffer.indexOf(0, at);
  return [buffer.toString("utf8", at, end), end + 1];
}

function track(client: Socket, upstream: Socket, proxy: StatementProxy): void {
  const statements = new Map<string, string>();
  const pending: TimedBatch[] = [];
  let current: TimedBatch | null = null;
  let startup = true;
  /** Single-byte answers the server owes to SSL/GSS requests (not framed). */
  let singleBytes = 0;
  let clientBuffer: Buffer = Buffer.alloc(0);

  const fromClient = (chunk: Buffer, now: number) => {
    clientBuffer = clientBuffer.length === 0 ? chunk : Buffer.concat([clientBuffer, chunk]);
    for (;;) {
      if (startup) {
        if (clientBuffer.length < 8) return;
        const length = clientBuffer.readInt32BE(0);
        if (clientBuffer.length < length) return;
        const code = clientBuffer.readInt32BE(4);
        if (code === SSL_REQUEST || code === GSSENC_REQUEST) singleBytes++;
        else startup = false;
        clientBuffer = clientBuffer.subarray(length);
        continue;
      }
      if (clientBuffer.length < 5) return;
      const type = String.fromCharCode(clientBuffer[0]);
      const length = clientBuffer.readInt32BE(1);
      if (clientBuffer.length < 1 + length) return;
      const body = clientBuffer.subarray(5, 1 + length);
      clientBuffer = clientBuffer.subarray(1 + length);
      if (type === "P") {
        const [name, at] = cString(body, 0);
        statements.set(name, cString(body, at)[0]);
      } else if (type === "B" || type === "Q") {
        current ??= { start: now, end: NaN, texts: [] };
        if (type === "B") {
          const [, at] = cString(body, 0); // portal
          current.texts.push(statements.get(cString(body, at)[0]) ?? "?");
        } else {
          current.texts.push(cString(body, 0)[0]);
        }
      }
      if (type === "S" || type === "Q") {
        pending.push(current ?? { start: now, end: NaN, texts: [] });
        current = null;
      }
    }
  };

  let header: Buffer = Buffer.alloc(0);
  let skip = 0;
  const fromServer = (chunk: Buffer, now: number) => {
    let at = 0;
    while (at < chunk.length) {
      if (skip > 0) {
        const n = Math.min(skip, chunk.length - at);
        skip -= n;
        at += n;
        continue;
      }
      if (singleBytes > 0 && header.length === 0) {
        singleBytes--;
        at++;
        continue;
      }
      const need = 5 - header.length;
      header = Buffer.concat([header, chunk.subarray(at, at + need)]);
      at += Math.min(need, chunk.length - at);
      if (header.length < 5) return;
      const type = String.fromCharCode(header[0]);
      skip = header.readInt32BE(1) - 4;
      header = Buffer.alloc(0);
      if (type === "Z") {
        const batch = pending.shift();
        if (batch) {
          batch.end = now;
          proxy.onBatch?.(batch);
        }
      }
    }
  };

  client.on("data", (chunk: Buffer) => {
    fromClient(chunk, performance.now());
    upstream.write(chunk);
  });
  upstream.on("data", (chunk: Buffer) => {
    fromServer(chunk, performance.now());
    client.write(chunk);
  });
  const end = () => {
    client.destroy();
    upstream.destroy();
  };
  client.on("error", end).on("close", end);
  upstream.on("error", end).on("close", end);
}

/** Listens on 127.0.0.1 (a free port) and forwards to `host:port`. */
export async function startStatementProxy(host: string, port: number): Promise<StatementProxy> {
  const sockets = new Set<Socket>();
  const proxy: StatementProxy = {
    port: 0,
    onBatch: null,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  const server: Server = createServer((client) => {
    client.setNoDelay(true);
    const upstream = connect({ host, port, noDelay: true });
    sockets.add(client).add(upstream);
    client.on("close", () => sockets.delete(client));
    upstream.on("close", () => sockets.delete(upstream));
    track(client, upstream, proxy);
  });
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(0, "127.0.0.1", () => resolve()));
  const address = server.address();
  proxy.port = typeof address === "object" && address ? address.port : 0;
  return proxy;
}

/** Total length of the union of [start, end] intervals. */
export function unionMs(intervals: { start: number; end: number }[]): number {
  const sorted = [...intervals].sort((a, b) => a.start - b.start);
  let total = 0;
  let from = -Infinity;
  let to = -Infinity;
  for (const { start, end } of sorted) {
    if (start > to) {
      if (to > from) total += to - from;
      from = start;
      to = end;
    } else if (end > to) to = end;
  }
  if (to > from) total += to - from;
  return total;
}
