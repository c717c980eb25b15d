/** One server-sent event: its name (`message` when the frame names none) and its data lines joined. */
export interface SseMessage {
  event: string;
  data: string;
}

/** A frame's fields, per the EventSource rules: comments skipped, one space after the colon dropped. */
function parseFrame(frame: string): SseMessage | null {
  let event = "message";
  const data: string[] = [];
  for (const line of frame.split("\n")) {
    if (line === "" || line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "event") event = value;
    else if (field === "data") data.push(value);
  }
  return data.length > 0 ? { event, data: data.join("\n") } : null;
}

/**
 * Reads an event stream as it arrives (EventSource cannot POST a form, so runs are read this way).
 * Frames end at a blank line; CR and CRLF line ends count as LF, and a CR at the end of a chunk
 * waits for the next one, which may start with its LF. An unfinished frame at the end is dropped,
 * as EventSource drops it.
 */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      const held = buffer.endsWith("\r") ? "\r" : "";
      const lines = (held ? buffer.slice(0, -1) : buffer).replace(/\r\n?/g, "\n");
      const frames = lines.split("\n\n");
      buffer = frames.pop()! + held;
      for (const frame of frames) {
        const message = parseFrame(frame);
        if (message) yield message;
      }
    }
  } finally {
    reader.releaseLock();
  }
}
