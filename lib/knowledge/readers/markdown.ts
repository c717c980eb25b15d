/**
 * Markdown: the text as written (Markdown is already what the other readers convert to); its first
 * level-one heading, or the front matter's title, is the document's title.
 */
import { charsetOf, decodeText } from "./decode.ts";
import { type ReadInput, type ReadOutput, type Reader, ReaderError } from "./reader.ts";

/** The title of a Markdown document: `title:` in a leading front matter block, else the first `# ` heading. */
export function markdownTitle(text: string): string | undefined {
  const frontMatter = /^---\n([\s\S]*?)\n---\n/.exec(text);
  const fromFrontMatter = frontMatter && /^title:\s*["']?(.+?)["']?\s*$/m.exec(frontMatter[1]!);
  if (fromFrontMatter) return fromFrontMatter[1];
  return /^#[ \t]+(.+?)[ \t#]*$/m.exec(text)?.[1];
}

/** Reads Markdown as it is. */
export const markdownReader: Reader = {
  id: "markdown",
  name: "Markdown",
  description: "Markdown files, kept as Markdown; the first heading is the title.",
  mimeTypes: ["text/markdown", "text/x-markdown"],
  extensions: ["md", "markdown", "mdx"],
  async read({ bytes, mimeType }: ReadInput): Promise<ReadOutput> {
    const { text, encoding } = decodeText(bytes, charsetOf(mimeType));
    if (text.trim() === "") throw new ReaderError("The file is empty; upload a file with some text in it.");
    const title = markdownTitle(text);
    return { text, metadata: { encoding, ...(title ? { title } : {}) }, format: "markdown" };
  },
};
