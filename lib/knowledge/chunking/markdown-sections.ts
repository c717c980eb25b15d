/**
 * Splits Markdown into sections at its ATX headings (`#` to `######`), each with the path of
 * headings it sits under. Lines inside fenced code blocks are never headings, so a shell comment
 * such as `# install` in a code sample stays in its section.
 */
import type { Span } from "./text-spans.ts";

/** A heading line's text, or undefined: up to 3 spaces, 1-6 `#`, a space or tab, the text, an optional closing run of `#`. */
const HEADING = /^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/;
/** An opening or closing code fence: 3+ backticks or tildes, up to 3 spaces in. */
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** A heading's own line up to the next heading line (of any level), with the headings it sits under. */
export interface MarkdownSection extends Span {
  /** Level of the heading opening the section, 0 for text before the first heading. */
  level: number;
  /** Heading texts from the outermost down to this section's own; [] before the first heading. */
  path: string[];
}

/** The heading a line opens, if it is one. */
function headingOf(line: string): { level: number; text: string } | undefined {
  const match = HEADING.exec(line);
  const text = match?.[2].trim();
  return match && text ? { level: match[1].length, text } : undefined;
}

/**
 * The sections of `text` in order; together they cover it end to end. Text before the first
 * heading (blank or not) is a section of level 0 with an empty path.
 */
export function markdownSections(text: string): MarkdownSection[] {
  const sections: MarkdownSection[] = [];
  const open: { level: number; text: string }[] = [];
  let current: MarkdownSection = { start: 0, end: text.length, level: 0, path: [] };
  let fence: string | undefined;
  for (let lineStart = 0; lineStart < text.length; ) {
    const newline = text.indexOf("\n", lineStart);
    const lineEnd = newline === -1 ? text.length : newline;
    const line = text.slice(lineStart, lineEnd).replace(/\r$/, "");
    const marker = FENCE.exec(line)?.[1];
    // A fence closes on a run of the same character at least as long as the one that opened it.
    if (marker && (fence === undefined || (marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker))) {
      fence = fence === undefined ? marker : undefined;
    } else if (fence === undefined) {
      const heading = headingOf(line);
      if (heading) {
        if (lineStart > current.start) sections.push({ ...current, end: lineStart });
        while (open.length > 0 && open[open.length - 1].level >= heading.level) open.pop();
        open.push(heading);
        current = { start: lineStart, end: text.length, level: heading.level, path: open.map((h) => h.text) };
      }
    }
    lineStart = lineEnd + 1;
  }
  sections.push(current);
  return sections;
}
