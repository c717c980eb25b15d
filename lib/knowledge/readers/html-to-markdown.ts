/**
 * HTML to Markdown (turndown), for the HTML and DOCX readers: ATX headings, fenced code, tables
 * as Markdown tables (turndown alone writes each cell as its own paragraph, losing the rows); no
 * scripts, styles, embedded frames or inline (data:) images, which carry no searchable text.
 */
import TurndownService from "turndown";

const DROPPED = new Set(["script", "style", "noscript", "template", "iframe", "object", "embed", "svg", "canvas", "head"]);

const turndown = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-", emDelimiter: "_" });
turndown.remove((node) => DROPPED.has(node.nodeName.toLowerCase()));
turndown.addRule("inline-images", {
  filter: (node) => node.nodeName === "IMG" && !/^https?:/i.test(node.getAttribute("src") ?? ""),
  replacement: (_content, node) => {
    const alt = (node as HTMLElement).getAttribute("alt")?.trim();
    return alt ? `[image: ${alt}]` : "";
  },
});
turndown.addRule("tables", {
  filter: "table",
  replacement: (_content, node) => {
    const rows = Array.from((node as HTMLElement).querySelectorAll("tr"), (row) =>
      Array.from(row.children)
        .filter((cell) => cell.nodeName === "TD" || cell.nodeName === "TH")
        .map((cell) => (cell.textContent ?? "").replace(/\s+/g, " ").trim().replaceAll("|", "\\|")),
    ).filter((cells) => cells.length > 0);
    if (rows.length === 0) return "";
    const width = Math.max(...rows.map((cells) => cells.length));
    const line = (cells: string[]) => `| ${Array.from({ length: width }, (_, i) => cells[i] ?? "").join(" | ")} |`;
    return `\n\n${[line(rows[0]!), line(Array(width).fill("---")), ...rows.slice(1).map(line)].join("\n")}\n\n`;
  },
});

/** The HTML as Markdown, with runs of blank lines collapsed to one. */
export function htmlToMarkdown(html: string): string {
  return turndown
    .turndown(html)
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}
