/**
 * HTML pages: the main content (Readability's article, or the whole <body> when Readability finds
 * none, as on short pages), converted to Markdown. The page's <title> is the document's title.
 */
import { Readability } from "@mozilla/readability";
import { parseHTML } from "linkedom";
import { charsetOf, decodeText, headAscii } from "./decode.ts";
import { htmlToMarkdown } from "./html-to-markdown.ts";
import { checkHtmlSize, DEFAULT_READER_LIMITS } from "./reader-limits.ts";
import { type ReadInput, type ReadOptions, type ReadOutput, type Reader, ReaderError } from "./reader.ts";

/** The charset a page declares in its first KiB (`<meta charset>` or `<meta http-equiv content>`). */
function metaCharset(bytes: Uint8Array): string | undefined {
  return /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(headAscii(bytes))?.[1];
}

/**
 * A linkedom document for the markup. linkedom makes the first element of a fragment the document
 * element (no <html>, <body> or title), so a fragment is given a document around it.
 */
function parseDocument(html: string): Document {
  const markup = /<html[\s>]/i.test(html) ? html : `<!doctype html><html><head></head><body>${html}</body></html>`;
  return parseHTML(markup).document as unknown as Document;
}

/** Reads the main content of an HTML page as Markdown. */
export const htmlReader: Reader = {
  id: "html",
  name: "HTML",
  description: "Web pages: the main content (without navigation, scripts or styles) as Markdown; the page title is kept.",
  mimeTypes: ["text/html", "application/xhtml+xml"],
  extensions: ["html", "htm", "xhtml"],
  async read({ bytes, mimeType }: ReadInput, options?: ReadOptions): Promise<ReadOutput> {
    checkHtmlSize(bytes.byteLength, options?.limits ?? DEFAULT_READER_LIMITS);
    const { text: html, encoding } = decodeText(bytes, charsetOf(mimeType) ?? metaCharset(bytes));
    const document = parseDocument(html);
    const title = document.title?.trim() || undefined;
    const lang = document.documentElement?.getAttribute("lang") || undefined;
    // Readability rewrites the document it is given; the fallback parses the page again.
    const article = new Readability(document).parse();
    let markdown = article?.content && article.textContent?.trim() ? htmlToMarkdown(article.content) : "";
    const extractedBy = markdown ? "readability" : "body";
    if (!markdown) markdown = htmlToMarkdown(parseDocument(html).body?.innerHTML ?? "");
    if (!markdown) throw new ReaderError("The page has no readable text (it may build its content with JavaScript); save the page's text and upload it instead.");
    const metadata: Record<string, unknown> = { encoding, extracted_by: extractedBy };
    if (title) metadata.title = title;
    if (lang) metadata.lang = lang;
    if (article?.byline) metadata.byline = article.byline;
    if (article?.excerpt) metadata.excerpt = article.excerpt;
    if (article?.siteName) metadata.site_name = article.siteName;
    return { text: markdown, metadata, format: "markdown" };
  },
};
