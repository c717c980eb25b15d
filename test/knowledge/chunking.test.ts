import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type Chunk, type Chunker, ChunkOptionsError } from "@/lib/knowledge/chunking/chunk.ts";
import { fixedSizeChunker } from "@/lib/knowledge/chunking/fixed-size.ts";
import { markdownChunker } from "@/lib/knowledge/chunking/markdown.ts";
import { recursiveChunker } from "@/lib/knowledge/chunking/recursive.ts";
import { CHUNKERS, chunkerFor, defaultChunkerFor } from "@/lib/knowledge/chunking/registry.ts";

const ALL: Chunker[] = [fixedSizeChunker, recursiveChunker, markdownChunker];
const contents = (chunks: Chunk[]) => chunks.map((c) => c.content);
const nonWhitespace = (s: string) => s.replace(/\s/g, "");

/**
 * Whether dropping each chunk's overlap (at most `overlap` characters, repeated from the text
 * already covered) and concatenating gives back every non-whitespace character of `text`, in
 * order, each chunk adding at least one. Tracks every position the chunks so far could end at, so
 * repeated text cannot make a valid split look invalid.
 */
function recoversText(text: string, chunks: Chunk[], overlap: number): boolean {
  const all = nonWhitespace(text);
  let ends = new Set([0]);
  for (const chunk of chunks) {
    const piece = nonWhitespace(chunk.content);
    const next = new Set<number>();
    for (const covered of ends) {
      for (let at = Math.max(0, covered - overlap); at <= covered; at++) {
        if (at + piece.length > covered && all.startsWith(piece, at)) next.add(at + piece.length);
      }
    }
    if (next.size === 0) return false;
    ends = next;
  }
  return ends.has(all.length);
}

const token = fc.oneof(
  fc.constantFrom(" ", "  ", "\n", "\n\n", "\n\n\n", ". ", "? ", "! ", "\t", "\r\n", "\u00a0", "😀", "é", "\n```\n", "\n~~~\n", "# ", "\n# Guide\n", "\n## Install\n", "\n#### Deep ##\n"),
  fc.stringMatching(/^[a-z]{1,12}$/),
  fc.stringMatching(/^[A-Za-z]{20,60}$/),
  fc.string({ maxLength: 20 }),
);
const texts = fc.array(token, { maxLength: 80 }).map((tokens) => tokens.join(""));
const sizes = fc.integer({ min: 1, max: 120 }).chain((chunkSize) => fc.record({ chunkSize: fc.constant(chunkSize), overlap: fc.integer({ min: 0, max: chunkSize - 1 }) }));

describe("the registry", () => {
  it("keys the chunkers by their Agno names, with Agno's defaults (5000 characters, no overlap)", () => {
    expect(Object.keys(CHUNKERS)).toEqual(["FixedSizeChunker", "RecursiveChunker", "MarkdownChunker"]);
    for (const [key, chunker] of Object.entries(CHUNKERS)) {
      expect(chunker.key).toBe(key);
      expect(chunker.name).toBe(key);
      expect(chunker.description.length).toBeGreaterThan(0);
      expect(chunker.defaults).toEqual({ chunkSize: 5000, overlap: 0 });
    }
  });

  it("finds a chunker by key or lower-case alias, and nothing for other names", () => {
    expect(chunkerFor("FixedSizeChunker")).toBe(fixedSizeChunker);
    expect(chunkerFor(" RecursiveChunker ")).toBe(recursiveChunker);
    expect(chunkerFor("fixed")).toBe(fixedSizeChunker);
    expect(chunkerFor("recursive")).toBe(recursiveChunker);
    expect(chunkerFor("Markdown")).toBe(markdownChunker);
    for (const unknown of ["SemanticChunker", "fixedsizechunker", "constructor", "toString", "", "markdownx"]) expect(chunkerFor(unknown)).toBeUndefined();
  });

  it("defaults Markdown to the Markdown chunker and text to the fixed-size one, as Agno's readers do", () => {
    expect(defaultChunkerFor("markdown")).toBe(markdownChunker);
    expect(defaultChunkerFor("text")).toBe(fixedSizeChunker);
  });
});

describe.each(ALL.map((chunker) => [chunker.key, chunker] as const))("%s", (_key, chunker) => {
  it("rejects options it cannot honour, naming the field and the rule", () => {
    const cases: [object, "chunkSize" | "overlap", RegExp][] = [
      [{ chunkSize: 0 }, "chunkSize", /chunkSize must be a whole number of at least 1 \(got 0\)/],
      [{ chunkSize: -5 }, "chunkSize", /chunkSize/],
      [{ chunkSize: 2.5 }, "chunkSize", /chunkSize/],
      [{ chunkSize: Number.NaN }, "chunkSize", /chunkSize/],
      [{ chunkSize: 10, overlap: -1 }, "overlap", /overlap must be a whole number of at least 0/],
      [{ chunkSize: 10, overlap: 10 }, "overlap", /overlap must be less than chunkSize \(got overlap 10, chunkSize 10\)/],
      [{ chunkSize: 10, overlap: 11 }, "overlap", /less than chunkSize/],
    ];
    for (const [options, field, message] of cases) {
      const error = (() => {
        try {
          chunker.chunk("some text", options);
        } catch (e) {
          return e;
        }
      })();
      expect(error).toBeInstanceOf(ChunkOptionsError);
      expect((error as ChunkOptionsError).field).toBe(field);
      expect((error as ChunkOptionsError).message).toMatch(message);
    }
  });

  it("returns no chunks for empty or blank text", () => {
    for (const blank of ["", " ", "\n\n\t \r\n"]) expect(chunker.chunk(blank, { chunkSize: 3 })).toEqual([]);
  });

  it("keeps a short text whole, trimmed, with the caller's metadata, `chunk` and `chunk_size`", () => {
    const metadata = { source: "notes.txt", chunk: "caller's" };
    const [only, ...rest] = chunker.chunk("  Hello there.\n", { metadata });
    expect(rest).toEqual([]);
    expect(only.content).toBe("Hello there.");
    expect(only.index).toBe(1);
    expect(only.metadata).toMatchObject({ source: "notes.txt", chunk: 1, chunk_size: 12 });
    expect(metadata).toEqual({ source: "notes.txt", chunk: "caller's" });
  });

  it("numbers chunks from 1 and gives each its own metadata object", () => {
    const chunks = chunker.chunk("one two three four five six seven eight nine ten", { chunkSize: 10, metadata: { tag: "a" } });
    expect(chunks.map((c) => c.index)).toEqual(chunks.map((_, i) => i + 1));
    expect(chunks.map((c) => c.metadata.chunk)).toEqual(chunks.map((_, i) => i + 1));
    expect(new Set(chunks.map((c) => c.metadata)).size).toBe(chunks.length);
  });

  it("(property) never yields an empty chunk, never exceeds chunkSize, and slices the text", () => {
    fc.assert(
      fc.property(texts, sizes, (text, { chunkSize, overlap }) => {
        for (const chunk of chunker.chunk(text, { chunkSize, overlap })) {
          expect(chunk.content.trim()).not.toBe("");
          expect(chunk.content.length).toBeLessThanOrEqual(chunkSize);
          expect(chunk.metadata.chunk_size).toBe(chunk.content.length);
          expect(chunk.metadata.chunk).toBe(chunk.index);
          expect(text.includes(chunk.content)).toBe(true);
        }
      }),
      { numRuns: 400 },
    );
  });

  it("(property) loses no text: the chunks minus their overlaps give back every non-whitespace character in order", () => {
    fc.assert(
      fc.property(texts, sizes, (text, { chunkSize, overlap }) => {
        expect(recoversText(text, chunker.chunk(text, { chunkSize, overlap }), overlap)).toBe(true);
      }),
      { numRuns: 400 },
    );
  });
});

describe("FixedSizeChunker", () => {
  it("cuts every chunkSize characters, each next chunk repeating the last `overlap` characters", () => {
    expect(contents(fixedSizeChunker.chunk("abcdefghijklmnopqrstuvwxyz", { chunkSize: 10, overlap: 3 }))).toEqual(["abcdefghij", "hijklmnopq", "opqrstuvwx", "vwxyz"]);
  });

  it("ends a window at whitespace in its last tenth rather than inside a word", () => {
    expect(contents(fixedSizeChunker.chunk("The quick brown fox jumps over the lazy dog again", { chunkSize: 22 }))).toEqual(["The quick brown fox", "jumps over the lazy", "dog again"]);
  });

  it("cuts inside a word when no whitespace is near the window's end", () => {
    expect(contents(fixedSizeChunker.chunk("ab supercalifragilistic", { chunkSize: 10 }))).toEqual(["ab superca", "lifragilis", "tic"]);
  });

  it("does not split an emoji's surrogate pair when the window has room to cut before it", () => {
    expect(contents(fixedSizeChunker.chunk("abc😀def", { chunkSize: 4 }))).toEqual(["abc", "😀de", "f"]);
  });
});

describe("RecursiveChunker", () => {
  it("keeps paragraphs whole when they fit, packing as many as fit into a chunk", () => {
    const text = "First paragraph here.\n\nSecond one.\n\nThird paragraph is a bit longer.";
    expect(contents(recursiveChunker.chunk(text, { chunkSize: 40 }))).toEqual(["First paragraph here.\n\nSecond one.", "Third paragraph is a bit longer."]);
  });

  it("falls back to lines, then sentences, then words, then characters", () => {
    expect(contents(recursiveChunker.chunk("line one\nline two\nline three", { chunkSize: 18 }))).toEqual(["line one\nline two", "line three"]);
    expect(contents(recursiveChunker.chunk("It rains. Does it? Yes! It does.", { chunkSize: 20 }))).toEqual(["It rains. Does it?", "Yes! It does."]);
    expect(contents(recursiveChunker.chunk("alpha beta gamma delta", { chunkSize: 11 }))).toEqual(["alpha beta", "gamma delta"]);
    expect(contents(recursiveChunker.chunk("abcdefghijkl mn", { chunkSize: 5 }))).toEqual(["abcde", "fghij", "kl mn"]);
  });

  it("starts each next chunk with whole words from the previous chunk's tail, within the overlap", () => {
    const chunks = contents(recursiveChunker.chunk("alpha beta gamma delta epsilon zeta eta theta", { chunkSize: 20, overlap: 8 }));
    expect(chunks).toEqual(["alpha beta gamma", "gamma delta epsilon", "epsilon zeta eta", "zeta eta theta"]);
  });
});

describe("MarkdownChunker", () => {
  const guide = "# Guide\n\nWelcome to the guide.\n\n## Install\n\nRun the installer.\n\n## Configure\n\nEdit the config file.\n\n# API\n\nCall the endpoints.";

  it("records each chunk's heading path, merging a parent with the children that fit, never across parents", () => {
    const chunks = markdownChunker.chunk(guide, { chunkSize: 70, metadata: { doc: "guide.md" } });
    expect(chunks.map((c) => [c.content, c.metadata.headings])).toEqual([
      ["# Guide\n\nWelcome to the guide.\n\n## Install\n\nRun the installer.", ["Guide"]],
      ["## Configure\n\nEdit the config file.", ["Guide", "Configure"]],
      ["# API\n\nCall the endpoints.", ["API"]],
    ]);
    expect(chunks[1].metadata).toEqual({ doc: "guide.md", chunk: 2, chunk_size: 35, headings: ["Guide", "Configure"] });
  });

  it("merges sibling sections under their parent's path", () => {
    const text = `# Top\n\n${"Long introduction. ".repeat(4).trim()}\n\n## A\n\nShort a.\n\n## B\n\nShort b.`;
    const chunks = markdownChunker.chunk(text, { chunkSize: 90 });
    expect(chunks.map((c) => [c.content, c.metadata.headings])).toEqual([
      [`# Top\n\n${"Long introduction. ".repeat(4).trim()}`, ["Top"]],
      ["## A\n\nShort a.\n\n## B\n\nShort b.", ["Top"]],
    ]);
  });

  it("chunks a section longer than chunkSize recursively, every piece keeping its heading path", () => {
    const text = "Preface.\n\n# Guide\n\n## Install\n\nStep one is here.\n\nStep two is here.\n\nStep three is here.";
    const chunks = markdownChunker.chunk(text, { chunkSize: 40 });
    expect(chunks.map((c) => [c.content, c.metadata.headings])).toEqual([
      ["Preface.\n\n# Guide", []],
      ["## Install\n\nStep one is here.", ["Guide", "Install"]],
      ["Step two is here.\n\nStep three is here.", ["Guide", "Install"]],
    ]);
  });

  it("ignores heading-like lines inside fenced code, and reads closing hashes off headings", () => {
    const text = "## Setup ##\n\n```sh\n# install the tools\nnpm i\n```\n\nDone.\n\n### Next\n\nMore.";
    const chunks = markdownChunker.chunk(text, { chunkSize: 60 });
    expect(chunks.map((c) => [c.content, c.metadata.headings])).toEqual([
      ["## Setup ##\n\n```sh\n# install the tools\nnpm i\n```\n\nDone.", ["Setup"]],
      ["### Next\n\nMore.", ["Setup", "Next"]],
    ]);
  });
});
