/**
 * Plain text: decoded (UTF-8 unless a byte order mark or the media type says otherwise), binary
 * content refused.
 */
import { charsetOf, decodeText } from "./decode.ts";
import { type ReadInput, type ReadOutput, type Reader, ReaderError } from "./reader.ts";

/** Reads plain text as it is. */
export const textReader: Reader = {
  id: "text",
  name: "Text",
  description: "Plain text files, read as they are.",
  mimeTypes: ["text/plain"],
  extensions: ["txt", "text", "log"],
  async read({ bytes, mimeType }: ReadInput): Promise<ReadOutput> {
    const { text, encoding } = decodeText(bytes, charsetOf(mimeType));
    if (text.trim() === "") throw new ReaderError("The file is empty; upload a file with some text in it.");
    return { text, metadata: { encoding }, format: "text" };
  },
};
