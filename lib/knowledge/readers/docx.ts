/**
 * Word documents (.docx): converted to HTML by mammoth, which keeps headings, lists, tables and
 * emphasis, then to Markdown. No entry of the archive may inflate past knowledge.maxInflatedBytes. Images are left out (they carry no searchable text), and mammoth's
 * access to files outside the document (linked images) stays off.
 */
import mammoth from "mammoth";
import { htmlToMarkdown } from "./html-to-markdown.ts";
import { checkHtmlSize, DEFAULT_READER_LIMITS, ReaderLimitError } from "./reader-limits.ts";
import { type ReadInput, type ReadOptions, type ReadOutput, type Reader, ReaderError } from "./reader.ts";
import { checkZipInflation } from "./zip-entries.ts";

/** An image converter that reads no image: the <img> it makes has no source, and turndown drops it. */
const skipImages = mammoth.images.imgElement(async () => ({ src: "" }));

/** The message for an error mammoth threw: the file is no zip archive, or the archive is no Word document. */
function conversionError(error: unknown): ReaderError {
  const message = error instanceof Error ? error.message : String(error);
  if (/central directory|zip/i.test(message)) {
    return new ReaderError("The file is not a readable DOCX (it is not a valid Word archive); check that it opens in Word, or save it again as .docx (an old .doc file must be saved as .docx first).");
  }
  if (/main document part/i.test(message)) {
    return new ReaderError("The file is a zip archive but not a Word document (it has no word/document.xml); upload a .docx saved by Word, LibreOffice or Google Docs.");
  }
  return new ReaderError(`The DOCX could not be read (${message}); save it again as .docx and upload the new file.`);
}

/** Reads a Word document as Markdown. */
export const docxReader: Reader = {
  id: "docx",
  name: "Word document",
  description: "Word documents (.docx) as Markdown, keeping headings, lists and tables.",
  mimeTypes: ["application/vnd.openxmlformats-officedocument.wordprocessingml.document"],
  extensions: ["docx"],
  async read({ bytes }: ReadInput, options?: ReadOptions): Promise<ReadOutput> {
    options?.signal?.throwIfAborted();
    const limits = options?.limits ?? DEFAULT_READER_LIMITS;
    // Before mammoth (whose zip library inflates whole entries into memory) opens the archive.
    try {
      await checkZipInflation(bytes, limits);
    } catch (error) {
      throw error instanceof ReaderLimitError ? error : conversionError(error);
    }
    let result: { value: string; messages: { type: string; message: string }[] };
    try {
      const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      result = await mammoth.convertToHtml({ buffer }, { convertImage: skipImages, externalFileAccess: false });
    } catch (error) {
      throw conversionError(error);
    }
    checkHtmlSize(Buffer.byteLength(result.value), limits, "The Word document");
    const text = htmlToMarkdown(result.value);
    if (text === "") throw new ReaderError("The Word document has no text; upload a document with text in it.");
    const title = /^#[ \t]+(.+)$/m.exec(text)?.[1]?.trim();
    const warnings = result.messages.filter((m) => m.type === "warning" || m.type === "error").length;
    return { text, metadata: { ...(title ? { title } : {}), ...(warnings ? { conversion_warnings: warnings } : {}) }, format: "markdown" };
  },
};
