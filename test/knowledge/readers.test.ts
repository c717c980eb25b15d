import { Document, HeadingLevel, Packer, Paragraph, Table, TableCell, TableRow, TextRun } from "docx";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { describe, expect, it } from "vitest";
import { csvReader } from "@/lib/knowledge/readers/csv.ts";
import { docxReader } from "@/lib/knowledge/readers/docx.ts";
import { htmlReader } from "@/lib/knowledge/readers/html.ts";
import { jsonReader } from "@/lib/knowledge/readers/json.ts";
import { markdownReader } from "@/lib/knowledge/readers/markdown.ts";
import { pdfReader } from "@/lib/knowledge/readers/pdf.ts";
import { ReaderError } from "@/lib/knowledge/readers/reader.ts";
import { READERS, pickReader, readerForId, readersForType } from "@/lib/knowledge/readers/registry.ts";
import { textReader } from "@/lib/knowledge/readers/text.ts";
import { urlFromText } from "@/lib/knowledge/readers/url.ts";

const utf8 = (text: string) => new TextEncoder().encode(text);

/** A PDF with one page per entry, each page's lines drawn in Helvetica. */
async function makePdf(pages: string[][], title?: string): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  for (const lines of pages) {
    const page = pdf.addPage();
    for (const [i, line] of lines.entries()) page.drawText(line, { x: 50, y: 700 - i * 20, size: 12, font });
  }
  if (title) pdf.setTitle(title);
  return pdf.save();
}

async function makeDocx(): Promise<Uint8Array> {
  const cell = (text: string) => new TableCell({ children: [new Paragraph(text)] });
  const doc = new Document({
    sections: [
      {
        children: [
          new Paragraph({ text: "Quarterly Report", heading: HeadingLevel.HEADING_1 }),
          new Paragraph({ children: [new TextRun("Revenue grew by "), new TextRun({ text: "12 percent", bold: true }), new TextRun(" this quarter.")] }),
          new Table({ rows: [new TableRow({ children: [cell("Region"), cell("Sales")] }), new TableRow({ children: [cell("North"), cell("420")] })] }),
        ],
      },
    ],
  });
  return new Uint8Array(await Packer.toBuffer(doc));
}

/** The ReaderError `promise` rejects with (fails the test when it resolves or rejects otherwise). */
async function readerError(promise: Promise<unknown>): Promise<ReaderError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ReaderError);
  return error as ReaderError;
}

describe("text and markdown readers", () => {
  it("decode UTF-8 (line endings made \\n), UTF-16 with a byte order mark, and Windows-1252 that is not UTF-8", async () => {
    expect(await textReader.read({ bytes: utf8("Grüße\r\naus Köln") })).toEqual({ text: "Grüße\naus Köln", metadata: { encoding: "utf-8" }, format: "text" });
    const utf16 = new Uint8Array([0xff, 0xfe, ...Array.from("Hi ☃", (c) => [c.charCodeAt(0) & 255, c.charCodeAt(0) >> 8]).flat()]);
    expect((await textReader.read({ bytes: utf16 })).text).toBe("Hi ☃");
    expect(await textReader.read({ bytes: new Uint8Array([0x63, 0x61, 0x66, 0xe9]) })).toMatchObject({ text: "café", metadata: { encoding: "windows-1252" } });
    expect((await textReader.read({ bytes: new Uint8Array([0x63, 0x61, 0x66, 0xe9]), mimeType: "text/plain; charset=ISO-8859-1" })).text).toBe("café");
  });

  it("refuse binary content (NUL bytes) and empty files, saying what to upload instead", async () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52]);
    expect((await readerError(textReader.read({ bytes: png }))).message).toMatch(/binary \(it contains NUL bytes\).*upload it as PDF, DOCX/);
    expect((await readerError(markdownReader.read({ bytes: png }))).message).toMatch(/binary/);
    expect((await readerError(textReader.read({ bytes: utf8("  \n ") }))).message).toMatch(/empty/);
  });

  it("markdown stays Markdown, titled by its front matter or first heading", async () => {
    const md = "Intro line\n\n# Release Notes\n\n- fixed the *thing*\n";
    expect(await markdownReader.read({ bytes: utf8(md) })).toEqual({ text: md, metadata: { encoding: "utf-8", title: "Release Notes" }, format: "markdown" });
    expect((await markdownReader.read({ bytes: utf8('---\ntitle: "Handbook"\n---\n# Chapter 1\n') })).metadata.title).toBe("Handbook");
  });
});

describe("html reader", () => {
  const page = `<!doctype html><html lang="en"><head><title>Fox Facts</title><style>body{color:red}</style></head><body>
    <nav><a href="/">Home</a> | <a href="/about">About us</a></nav>
    <article><h1>All about foxes</h1>
    <p>The red fox is the largest of the true foxes and one of the most widely distributed members of the order Carnivora, present across the Northern Hemisphere.</p>
    <p>Foxes eat rodents, rabbits, birds and fruit. They adapt well to cities, where they are a <a href="https://example.com/urban">common sight</a> at night.</p>
    <table><tr><th>Species</th><th>Weight</th></tr><tr><td>Red fox</td><td>2-14 kg</td></tr></table>
    <script>trackVisitor()</script></article>
    <footer>Copyright 2024 Fox Society</footer></body></html>`;

  it("extracts the main content as Markdown, keeps the <title>, and drops navigation, scripts and styles", async () => {
    const out = await htmlReader.read({ bytes: utf8(page), mimeType: "text/html; charset=utf-8" });
    expect(out.format).toBe("markdown");
    expect(out.metadata).toMatchObject({ title: "Fox Facts", lang: "en", extracted_by: "readability" });
    expect(out.text).toContain("## All about foxes");
    expect(out.text).toContain("The red fox is the largest of the true foxes");
    expect(out.text).toContain("[common sight](https://example.com/urban)");
    expect(out.text).toContain("| Species | Weight |\n| --- | --- |\n| Red fox | 2-14 kg |");
    for (const gone of ["About us", "trackVisitor", "color:red", "Copyright"]) expect(out.text).not.toContain(gone);
  });

  it("falls back to the whole <body> when Readability finds no article, and reads fragments", async () => {
    const footerOnly = await htmlReader.read({ bytes: utf8("<html><head><title>Contact</title></head><body><footer>Call us at 555-1234</footer></body></html>") });
    expect(footerOnly).toMatchObject({ text: "Call us at 555-1234", metadata: { title: "Contact", extracted_by: "body" } });
    expect((await htmlReader.read({ bytes: utf8("<p>Just a <b>fragment</b></p>") })).text).toBe("Just a **fragment**");
    expect((await readerError(htmlReader.read({ bytes: utf8("<html><body><script>render()</script></body></html>") }))).message).toMatch(/no readable text/);
  });

  it("honours a <meta charset> when the media type names none", async () => {
    const latin1 = new Uint8Array([...utf8('<html><head><meta charset="iso-8859-1"><title>Men'), 0xfc, ...utf8("</title></head><body><p>Sch"), 0xf6, ...utf8("n</p></body></html>")]);
    expect(await htmlReader.read({ bytes: latin1 })).toMatchObject({ text: "Schön", metadata: { title: "Menü" } });
  });
});

describe("pdf reader", () => {
  it("reads the text of each page, pages joined by a blank line, and counts the pages", async () => {
    const bytes = await makePdf([["The quick brown fox jumps over the lazy dog.", "Second line."], [], ["Page three says hello."]], "Fox Document");
    const out = await pdfReader.read({ bytes });
    expect(out).toEqual({ text: "The quick brown fox jumps over the lazy dog.\nSecond line.\n\nPage three says hello.", metadata: { pages: 3, title: "Fox Document" }, format: "text" });
    // PDF.js detaches the buffer it is given and refuses a Buffer; the reader hands it a Uint8Array copy.
    expect(bytes.byteLength).toBeGreaterThan(0);
    const buffer = Buffer.from(bytes);
    expect((await pdfReader.read({ bytes: buffer })).text).toContain("quick brown fox");
    expect(buffer.equals(bytes)).toBe(true);
  });

  it("refuses a PDF without a text layer, and a corrupt or truncated one, saying what to do", async () => {
    expect((await readerError(pdfReader.read({ bytes: await makePdf([[], []]) }))).message).toBe("The PDF has no text layer (scanned images?); upload a PDF with selectable text, or paste the text.");
    const corrupt = await readerError(pdfReader.read({ bytes: utf8("%PDF-1.7\nthis is not really a pdf\n%%EOF") }));
    expect(corrupt.message).toMatch(/^The file is not a readable PDF \(.+\); check that it opens in a PDF viewer/);
    const real = await makePdf([["Some text"]]);
    expect((await readerError(pdfReader.read({ bytes: real.subarray(0, 200) }))).message).toMatch(/PDF/);
  });
});

describe("docx reader", () => {
  it("converts headings, emphasis and tables to Markdown", async () => {
    const out = await docxReader.read({ bytes: Buffer.from(await makeDocx()) });
    expect(out.format).toBe("markdown");
    expect(out.metadata).toEqual({ title: "Quarterly Report" });
    expect(out.text).toBe("# Quarterly Report\n\nRevenue grew by **12 percent** this quarter.\n\n| Region | Sales |\n| --- | --- |\n| North | 420 |");
  });

  it("refuses a corrupt or truncated DOCX with a message saying what to do", async () => {
    const garbage = await readerError(docxReader.read({ bytes: new Uint8Array([0x50, 0x4b, 0x03, 0x04, 1, 2, 3, 4, 5]) }));
    expect(garbage.message).toMatch(/^The file is not a readable DOCX .*save it again as \.docx/);
    const real = await makeDocx();
    expect((await readerError(docxReader.read({ bytes: real.subarray(0, real.length / 2) }))).message).toMatch(/not a readable DOCX/);
  });
});

describe("csv reader", () => {
  it('makes each row one line of "column: value" pairs, leaving empty cells out', async () => {
    const csv = 'name,city,notes\r\nAda,London,"wrote the first program, in 1843"\r\nGrace,,"two\nlines"\r\n\r\n';
    expect(await csvReader.read({ bytes: utf8(csv), name: "people.csv" })).toEqual({
      text: "name: Ada, city: London, notes: wrote the first program, in 1843\nname: Grace, notes: two lines",
      metadata: { rows: 2, columns: ["name", "city", "notes"], delimiter: "," },
      format: "text",
    });
  });

  it("reads TSV, keeps cells past the header as extra, and refuses a header with no rows", async () => {
    expect((await csvReader.read({ bytes: utf8("a\tb\n1\t2\t3\n"), name: "t.tsv" })).text).toBe("a: 1, b: 2, extra: 3");
    expect((await readerError(csvReader.read({ bytes: utf8("a,b\n") }))).message).toMatch(/no data rows/);
  });
});

describe("json reader", () => {
  it('flattens to one "path: value" line per value', async () => {
    const json = {
      title: "Orders",
      "ship-to": { city: "Paris" },
      orders: [
        { id: 1, tags: [] },
        { id: 2, note: "rush\norder", paid: true },
      ],
      empty: {},
      none: null,
    };
    expect(await jsonReader.read({ bytes: utf8(JSON.stringify(json)) })).toEqual({
      text: 'title: Orders\n["ship-to"].city: Paris\norders[0].id: 1\norders[0].tags: []\norders[1].id: 2\norders[1].note: rush order\norders[1].paid: true\nempty: {}\nnone: null',
      metadata: { json_type: "object", values: 9 },
      format: "text",
    });
    expect((await jsonReader.read({ bytes: utf8("42") })).text).toBe("42");
  });

  it("names the line and column of invalid JSON, including errors V8 gives no position for", async () => {
    const missingValue = await readerError(jsonReader.read({ bytes: utf8('{\n  "a": 1,\n  "b": }') }));
    expect(missingValue.message).toBe('The file is not valid JSON at line 3, column 8 (position 19, near "}"); fix it there, or upload it as a .txt file to read it as plain text.');
    expect((await readerError(jsonReader.read({ bytes: utf8('{"a": [1, 2') }))).message).toMatch(/ends too early/);
    expect((await readerError(jsonReader.read({ bytes: utf8('{"a": 1} trailing') }))).message).toMatch(/line 1, column 10 \(position 9/);
  });
});

describe("picking a reader", () => {
  it("goes by the declared media type, then the extension, then the bytes, then plain text", async () => {
    const pdf = await makePdf([["x"]]);
    const docx = await makeDocx();
    const pick = (input: Parameters<typeof pickReader>[0]) => pickReader(input).id;
    expect(pick({ mimeType: "application/pdf; qs=0.9", name: "notes.txt" })).toBe("pdf");
    expect(pick({ mimeType: "text/html", bytes: utf8("plain") })).toBe("html");
    expect(pick({ name: "Report.DOCX" })).toBe("docx");
    expect(pick({ name: "data.csv", mimeType: "text/plain" })).toBe("csv");
    expect(pick({ name: "blob", mimeType: "application/octet-stream", bytes: pdf })).toBe("pdf");
    expect(pick({ bytes: docx })).toBe("docx");
    expect(pick({ bytes: utf8("\uFEFF  <!DOCTYPE html><html><body>hi</body></html>") })).toBe("html");
    expect(pick({ bytes: utf8("<!-- saved --><HTML><body>hi</body></HTML>") })).toBe("html");
    expect(pick({ bytes: utf8(' [{"a": 1}] ') })).toBe("json");
    expect(pick({ bytes: utf8("{ not json") })).toBe("text");
    expect(pick({ bytes: utf8("just words") })).toBe("text");
    expect(pick({ name: "archive.zip", bytes: new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0, 0]) })).toBe("text");
    expect(pick({ name: "notes.md", mimeType: "text/markdown" })).toBe("markdown");
  });

  it("registers every reader by id, and maps media types to reader ids", () => {
    expect(Object.keys(READERS).sort()).toEqual(["csv", "docx", "html", "json", "markdown", "pdf", "text", "url"]);
    expect(readerForId(" PDF ")).toBe(READERS.pdf);
    expect(readerForId("constructor")).toBeUndefined();
    const byType = readersForType();
    expect(byType["application/pdf"]).toEqual(["pdf"]);
    expect(byType["text/html"]).toEqual(["html"]);
    expect(byType["text/uri-list"]).toEqual(["url"]);
  });

  it("the URL reader takes one address from its text", () => {
    expect(urlFromText("# saved link\n\n https://example.com/a \n")).toBe("https://example.com/a");
    expect(() => urlFromText("https://a.example\nhttps://b.example")).toThrow(/2 web addresses/);
    expect(() => urlFromText("")).toThrow(ReaderError);
  });
});
