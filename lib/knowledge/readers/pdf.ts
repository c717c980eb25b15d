/**
 * PDF: the text layer of each page (PDF.js through unpdf), pages joined with blank lines. A PDF of
 * scanned images has no text layer and is refused (there is no OCR here). A PDF of more than
 * knowledge.maxPdfPages pages is refused before any page is read.
 */
import { getDocumentProxy, getMeta } from "unpdf";
import { checkExtractedText, checkPdfPages, DEFAULT_READER_LIMITS } from "./reader-limits.ts";
import { type ReadInput, type ReadOptions, type ReadOutput, type Reader, ReaderError } from "./reader.ts";

type PdfDocument = Awaited<ReturnType<typeof getDocumentProxy>>;

/** A page's text as unpdf joins it (an item's end of line is a line break), spaces tidied. */
async function pageText(pdf: PdfDocument, pageNumber: number): Promise<string> {
  const content = await (await pdf.getPage(pageNumber)).getTextContent();
  const raw = content.items.map((item) => ("str" in item ? item.str + (item.hasEOL ? "\n" : "") : "")).join("");
  return raw
    .replace(/[^\S\n]+/g, " ")
    .replace(/ ?\n ?/g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

/** The message for an error PDF.js threw while opening the file. */
function openError(error: unknown): ReaderError {
  const name = (error as { name?: string } | null)?.name;
  if (name === "PasswordException") return new ReaderError("The PDF is password-protected; remove the password (print or export it without one) and upload it again.");
  const detail = error instanceof Error && error.message ? ` (${error.message.replace(/\.$/, "")})` : "";
  return new ReaderError(`The file is not a readable PDF${detail}; check that it opens in a PDF viewer, or export it again and upload the new file.`);
}

/** The document's title and author from its information dictionary, when it has them. */
async function documentInfo(pdf: PdfDocument): Promise<Record<string, unknown>> {
  try {
    const { info } = await getMeta(pdf);
    const out: Record<string, unknown> = {};
    if (typeof info?.Title === "string" && info.Title.trim()) out.title = info.Title.trim();
    if (typeof info?.Author === "string" && info.Author.trim()) out.author = info.Author.trim();
    return out;
  } catch {
    return {};
  }
}

/** Reads the text layer of a PDF, page by page. */
export const pdfReader: Reader = {
  id: "pdf",
  name: "PDF",
  description: "PDF documents with a text layer, page by page (scanned images without text are refused).",
  mimeTypes: ["application/pdf", "application/x-pdf"],
  extensions: ["pdf"],
  async read({ bytes }: ReadInput, options?: ReadOptions): Promise<ReadOutput> {
    const signal = options?.signal;
    const limits = options?.limits ?? DEFAULT_READER_LIMITS;
    signal?.throwIfAborted();
    let pdf: PdfDocument;
    try {
      // PDF.js takes the buffer it is given (it ends up detached), so it gets a copy: `new
      // Uint8Array(bytes)` copies even a Buffer, whose slice() would share its memory.
      pdf = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 });
    } catch (error) {
      throw openError(error);
    }
    try {
      checkPdfPages(pdf.numPages, limits);
      const pages: string[] = [];
      let length = 0;
      for (let n = 1; n <= pdf.numPages; n++) {
        signal?.throwIfAborted();
        try {
          pages.push(await pageText(pdf, n));
        } catch (error) {
          throw new ReaderError(`Page ${n} of the PDF could not be read (${error instanceof Error ? error.message : String(error)}); export the PDF again and upload the new file.`);
        }
        length += pages[pages.length - 1]!.length + 2;
        checkExtractedText(length, limits);
      }
      const text = pages.filter((page) => page !== "").join("\n\n");
      if (text === "") {
        throw new ReaderError("The PDF has no text layer (scanned images?); upload a PDF with selectable text, or paste the text.");
      }
      return { text, metadata: { pages: pdf.numPages, ...(await documentInfo(pdf)) }, format: "text" };
    } finally {
      await pdf.loadingTask.destroy();
    }
  },
};
