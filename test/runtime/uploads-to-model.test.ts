import { UnsupportedFunctionalityError } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ModelProviderError } from "@/lib/models/model-provider-error.ts";
import { UnsendableAttachmentError, userMessageContent } from "@/lib/runtime/user-content.ts";
import { startModelServer, type ChatContentPart, type ModelServer } from "../../e2e/fixtures/model-server.ts";
import { pythonJsonDumps } from "../fixtures/python-json.ts";
import { DIALECTS } from "../support/databases.ts";
import { readSse, startTestApp, type TestApp } from "../support/test-app.ts";

type Json = Record<string, unknown>;

const CSV = 'name,city\nÅsa,Malmö\n😀,"q"\n';

function upload(fields: Record<string, string>, file: File): FormData {
  const form = new FormData();
  for (const [key, value] of Object.entries(fields)) form.set(key, value);
  form.append("files", file);
  return form;
}

async function rowCounts(app: TestApp): Promise<{ sessions: number; runs: number }> {
  const db = await app.db();
  const [sessions] = await db.sql.query<{ n: number }>("SELECT COUNT(*) AS n FROM agno_sessions");
  const [runs] = await db.sql.query<{ n: number }>("SELECT COUNT(*) AS n FROM agno_runs");
  return { sessions: Number(sessions.n), runs: Number(runs.n) };
}

const userParts = (server: ModelServer): ChatContentPart[] => {
  const user = server.requests
    .at(-1)!
    .body.messages.filter((m) => m.role === "user")
    .at(-1)!;
  return typeof user.content === "string" ? [{ type: "text", text: user.content }] : (user.content as ChatContentPart[]);
};

describe("what the model is sent for each upload (unit)", () => {
  const file = (mediaType: string, data = "x") => ({ kind: "file" as const, data: new TextEncoder().encode(data), mediaType, filename: `f.${mediaType.split("/")[1]}` });

  it("text-like files become text parts labelled with the file, binary media stays a part as base64", () => {
    expect(userMessageContent({ provider: "openai" }, "hi", [file("text/csv", CSV), file("application/json", "{}"), file("application/pdf", "%PDF")])).toEqual([
      { type: "text", text: "hi" },
      { type: "text", text: `File 'f.csv' (text/csv):\n${CSV}` },
      { type: "text", text: "File 'f.json' (application/json):\n{}" },
      { type: "file", data: Buffer.from("%PDF").toString("base64"), mediaType: "application/pdf", filename: "f.pdf" },
    ]);
  });

  it("refuses what the provider's model cannot take, naming the file and its type", () => {
    expect(() => userMessageContent({ provider: "openai" }, "hi", [file("audio/ogg")])).toThrow(UnsendableAttachmentError);
    expect(() => userMessageContent({ provider: "openai-compatible" }, "hi", [file("video/mp4")])).toThrow(/^File 'f\.mp4' \(video\/mp4\) cannot be sent to this model: /);
    expect(userMessageContent({ provider: "openai" }, "hi", [file("audio/wav")])[1]).toMatchObject({ type: "file", mediaType: "audio/wav" });
    // Anthropic's messages API takes no audio at all.
    expect(() => userMessageContent({ provider: "anthropic" }, "hi", [file("audio/wav")])).toThrow(/\(audio\/wav\) cannot be sent to this model/);
    expect(() => userMessageContent({ provider: "openai" }, "hi", [{ ...file("text/plain"), data: Uint8Array.from([0xff, 0xfe, 0x00]) }])).toThrow(/its content is not UTF-8 text/);
  });

  it("classifies the AI SDK's own refusals as the input's fault, not the provider's", () => {
    const refused = ModelProviderError.classify(new UnsupportedFunctionalityError({ functionality: "file part media type text/x-odd" }));
    expect(refused).toMatchObject({ kind: "unsupported_input", retryable: false, errorType: "model_unsupported_input_error" });
    expect(refused.message).toContain("text/x-odd");
    expect(ModelProviderError.classify({ lastError: new UnsupportedFunctionalityError({ functionality: "x" }) }).kind).toBe("unsupported_input");
  });
});

describe.each(DIALECTS)("uploads a model cannot take as they are, on $name", (dialect) => {
  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    let server: ModelServer;
    let app: TestApp;

    beforeAll(async () => {
      server = await startModelServer({ respond: () => ({ text: "Read it." }) });
      const model = { provider: "openai-compatible" as const, id: "scripted", baseUrl: server.url, apiKey: "test" };
      app = await startTestApp({ dialect, agents: [{ id: "reader", name: "Reader", model, addHistoryToContext: true }] });
    });
    afterAll(async () => {
      await app?.close();
      await server?.close();
    });

    it.each([
      ["notes.txt", "text/plain"],
      ["table.csv", "text/csv"],
      ["readme.md", "text/markdown"],
      ["data.json", "application/json"],
    ])("%s (%s) reaches the model as text labelled with its name, and the run completes", async (name, type) => {
      const response = await app.call("POST", "/agents/reader/runs", { form: upload({ message: "Summarise", stream: "false" }, new File([CSV], name, { type })) });
      expect(response.status).toBe(200);
      const output = (await response.json()) as Json;
      expect(output).toMatchObject({ status: "COMPLETED", content: "Read it.", input: { files: [{ name, mime_type: type }] } });
      expect(userParts(server)).toEqual([
        { type: "text", text: "Summarise" },
        { type: "text", text: `File '${name}' (${type}):\n${CSV}` },
      ]);
      const stored = await (await app.db()).sql.query<{ status: string }>("SELECT status FROM agno_runs WHERE run_id = ?", [output.run_id]);
      expect(stored).toEqual([{ status: "COMPLETED" }]);
    });

    it.each([
      ["voice.ogg", "audio/ogg", "false"],
      ["clip.mp4", "video/mp4", "false"],
      ["report.docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", "false"],
      ["voice.ogg", "audio/ogg", "true"],
    ])("%s (%s, stream=%s) is a 415 naming the file, before any session, run or model call", async (name, type, stream) => {
      const before = await rowCounts(app);
      const calls = server.requests.length;
      const response = await app.call("POST", "/agents/reader/runs", { form: upload({ message: "Listen", stream }, new File(["bytes"], name, { type })) });
      expect(response.status).toBe(415);
      expect(response.headers.get("content-type")).toMatch(/application\/json/);
      expect(((await response.json()) as Json).detail).toMatch(new RegExp(`^File '${name.replace(".", "\\.")}' \\(${type.replace(/[./+]/g, "\\$&")}\\) cannot be sent to this model: `));
      expect(await rowCounts(app)).toEqual(before);
      expect(server.requests.length).toBe(calls);
    });

    it("a text file that is not UTF-8 is a 415 too, and a background submit is refused the same way", async () => {
      const before = await rowCounts(app);
      const latin1 = new File([Uint8Array.from([0x63, 0x61, 0x66, 0xe9])], "café.txt", { type: "text/plain" });
      const refused = await app.call("POST", "/agents/reader/runs", { form: upload({ message: "Read", stream: "false" }, latin1) });
      expect(refused.status).toBe(415);
      expect(((await refused.json()) as Json).detail).toBe("File 'café.txt' (text/plain) cannot be sent to this model: its content is not UTF-8 text");
      const background = await app.call("POST", "/agents/reader/runs", { form: upload({ message: "Read", stream: "false", background: "true" }, new File(["x"], "a.ogg", { type: "audio/ogg" })) });
      expect(background.status).toBe(415);
      expect(await rowCounts(app)).toEqual(before);
    });

    it("media the model takes is sent as a part, streamed too, and a later run of the session replays it", async () => {
      const pdf = new File(["%PDF-1.4 tiny"], "doc.pdf", { type: "application/pdf" });
      const events = await readSse(await app.call("POST", "/agents/reader/runs", { form: upload({ message: "Read this" }, pdf) }));
      expect(events.at(-1)).toMatchObject({ event: "RunCompleted", content: "Read it." });
      const part = { type: "file", file: { filename: "doc.pdf", file_data: `data:application/pdf;base64,${Buffer.from("%PDF-1.4 tiny").toString("base64")}` } };
      expect(userParts(server)).toEqual([{ type: "text", text: "Read this" }, part]);
      const wav = await app.call("POST", "/agents/reader/runs", { form: upload({ message: "Hear", stream: "false" }, new File(["RIFF"], "a.wav", { type: "audio/wav" })) });
      expect(wav.status).toBe(200);
      expect(userParts(server)[1]).toMatchObject({ type: "input_audio", input_audio: { format: "wav" } });
      // The stored run is JSON the next run of the session sends again as it was.
      const next = await app.call("POST", "/agents/reader/runs", { form: { message: "And again?", stream: "false", session_id: String(events[0].session_id) } });
      expect(next.status).toBe(200);
      const replayed = server.requests.at(-1)!.body.messages.find((m) => m.role === "user" && Array.isArray(m.content));
      expect(replayed?.content).toEqual([{ type: "text", text: "Read this" }, part]);
    });

    it("history holding a part the model cannot take (another writer's) ends the run with a 415, recorded ERROR", async () => {
      const db = await app.db();
      const sessionId = `odd-history-${dialect.name}`;
      const runId = `odd-history-run-${dialect.name}`;
      const t = 1_748_779_200;
      await db.sql.exec("INSERT INTO agno_sessions (session_id, session_type, agent_id, user_id, session_data, created_at, updated_at) VALUES (?, 'agent', 'reader', NULL, ?, ?, ?)", [
        sessionId,
        "null",
        t,
        t,
      ]);
      // As an earlier release stored uploads: the bytes as a JSON object of byte values.
      const messages = [
        {
          role: "user",
          content: [
            { type: "text", text: "hear" },
            { type: "file", data: { 0: 79, 1: 103, 2: 103 }, mediaType: "audio/ogg", filename: "old.ogg" },
          ],
          created_at: t,
        },
        { role: "assistant", content: "heard", created_at: t },
      ];
      await db.sql.exec(
        "INSERT INTO agno_runs (run_id, session_id, run_type, agent_id, user_id, status, run_index, run_data, created_at, updated_at) VALUES (?, ?, 'agent', 'reader', NULL, 'COMPLETED', 0, ?, ?, ?)",
        [runId, sessionId, pythonJsonDumps({ run_id: runId, status: "COMPLETED", messages }), t, t],
      );
      const calls = server.requests.length;
      const response = await app.call("POST", "/agents/reader/runs", { form: { message: "More?", stream: "false", session_id: sessionId } });
      expect(response.status).toBe(415);
      const body = (await response.json()) as Json;
      expect(body).toMatchObject({ error_type: "model_unsupported_input_error" });
      expect(body.detail).toMatch(/audio\/ogg/);
      expect(server.requests.length).toBe(calls);
      const [row] = await db.sql.query<{ status: string }>("SELECT status FROM agno_runs WHERE run_id = ?", [body.run_id]);
      expect(row.status).toBe("ERROR");
    });
  });
});
