import { describe, expect, it } from "vitest";
import { parseFormBody, STREAMED_MULTIPART_BYTES } from "@/lib/http/body.ts";
import type { HttpError } from "@/lib/errors/http-error.ts";

const LIMITS = { maxBodyBytes: 30 * 1024 * 1024, maxFieldBytes: 1024 * 1024 };
const big = "x".repeat(STREAMED_MULTIPART_BYTES + 1);

/** A multipart request as a client sends it (with its boundary), its body in 64 KiB chunks. */
async function request(form: FormData): Promise<Request> {
  const encoded = new Request("http://local/", { method: "POST", body: form });
  const bytes = new Uint8Array(await encoded.arrayBuffer());
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let at = 0; at < bytes.length; at += 65536) controller.enqueue(bytes.subarray(at, at + 65536));
      controller.close();
    },
  });
  return new Request("http://local/", { method: "POST", body, headers: { "content-type": encoded.headers.get("content-type")! }, duplex: "half" } as RequestInit);
}

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: unknown) => error as HttpError,
  );

describe("multipart bodies past 1 MiB are parsed as they arrive (busboy)", () => {
  it("gives the same fields and files as the platform's parser, in order, repeated names as lists", async () => {
    const form = new FormData();
    form.set("name", "tents");
    form.append("tag", "a");
    form.append("tag", "b");
    form.set("file", new File([big], "big.txt", { type: "text/plain" }));
    const parsed = await parseFormBody(await request(form), LIMITS);
    expect(parsed.fields).toEqual({ name: "tents", tag: ["a", "b"] });
    const file = parsed.files.file![0]!;
    expect({ name: file.name, type: file.type, size: file.size }).toEqual({ name: "big.txt", type: "text/plain", size: big.length });
    expect(new TextDecoder().decode(await file.arrayBuffer())).toBe(big);
  });

  it("refuses a text field past the field limit (413 naming it), too many fields (413) and a malformed body (400)", async () => {
    const huge = new FormData();
    huge.set("message", big);
    expect(await refusal(parseFormBody(await request(huge), LIMITS))).toMatchObject({ status: 413, detail: expect.stringMatching(/Form field 'message' is larger than the limit/) });
    const many = new FormData();
    for (let i = 0; i < 1001; i++) many.append(`f${i}`, "v");
    many.set("file", new File([big], "big.txt"));
    expect(await refusal(parseFormBody(await request(many), LIMITS))).toMatchObject({ status: 413, detail: expect.stringMatching(/more than 1000 fields/) });
    const broken = new Request("http://local/", {
      method: "POST",
      body: `--XX\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\n${big}`,
      headers: { "content-type": "multipart/form-data; boundary=XX" },
    });
    expect(await refusal(parseFormBody(broken, LIMITS))).toMatchObject({ status: 400, detail: expect.stringMatching(/Malformed multipart\/form-data body/) });
  });
});
