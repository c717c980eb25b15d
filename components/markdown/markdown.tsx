import type { Root } from "hast";
import { memo } from "react";
import ReactMarkdown, { type Components, type ExtraProps } from "react-markdown";
import rehypeHighlight from "rehype-highlight";
import remarkGfm from "remark-gfm";
import { CodeBlock } from "./code-block.tsx";
import "./markdown.css";

type HastNode = NonNullable<ExtraProps["node"]>["children"][number];

/** The text of a hast node, as written (a code block's source, for its copy button). */
function textOf(node: HastNode | NonNullable<ExtraProps["node"]>): string {
  if (node.type === "text") return node.value;
  return "children" in node ? node.children.map(textOf).join("") : "";
}

/** The fence's language (`language-ts` on the code element), for the block's caption. */
function languageOf(node: ExtraProps["node"]): string | null {
  const code = node?.children.find((child) => child.type === "element" && child.tagName === "code");
  const classes = code?.type === "element" ? code.properties.className : undefined;
  const language = Array.isArray(classes) ? classes.map(String).find((c) => c.startsWith("language-")) : undefined;
  return language ? language.slice("language-".length) : null;
}

type MdastNode = { type: string; value?: string; children?: MdastNode[] };

/**
 * A line break in an answer stays one (as a chat shows it; CommonMark would join the lines): each
 * newline inside a text node becomes a hard break. Code is untouched (its nodes are not `text`).
 */
function remarkKeepLineBreaks() {
  const split = (parent: MdastNode) => {
    parent.children = parent.children?.flatMap((child): MdastNode[] => {
      if (child.type === "text" && child.value?.includes("\n")) {
        return child.value.split(/\r?\n/).flatMap((line, i) => (i === 0 ? [{ type: "text", value: line }] : [{ type: "break" }, { type: "text", value: line }]));
      }
      if (child.children) split(child);
      return [child];
    });
  };
  return (tree: MdastNode) => split(tree);
}

/** Where block-level HTML sits in the tree (inline HTML is inside a paragraph or a phrase). */
const BLOCK_PARENTS = new Set(["blockquote", "li"]);

/**
 * Block-level HTML (a line starting with a tag) as a paragraph of its text, keeping its line breaks.
 * react-markdown then turns any raw HTML left (inline) into text as well.
 */
function rehypeBlockHtmlAsText() {
  const wrap = (parent: { children: Root["children"] }) => {
    parent.children = parent.children.map((child) => {
      if (child.type === "raw") return { type: "element", tagName: "p", properties: { className: ["markdown-html"] }, children: [{ type: "text", value: child.value }] };
      if (child.type === "element" && BLOCK_PARENTS.has(child.tagName)) wrap(child);
      return child;
    });
  };
  return (tree: Root) => wrap(tree);
}

const components: Components = {
  pre: ({ node, children }) => (
    <CodeBlock code={node ? textOf(node).replace(/\n$/, "") : ""} language={languageOf(node)}>
      {children}
    </CodeBlock>
  ),
  // Links leave the dashboard in a new tab, never sending it as the referrer or opener.
  // A link whose URL was dropped (javascript: and the like) is its text.
  a: ({ children, href, title }) =>
    href ? (
      <a href={href} title={title} target="_blank" rel="noopener noreferrer nofollow">
        {children}
      </a>
    ) : (
      <span>{children}</span>
    ),
  // An image in an answer is a link to it, never fetched: a model (or a document it read) must not
  // make the browser request a URL that could carry the conversation away. The CSP refuses them too.
  img: ({ src, alt }) => (
    <a href={typeof src === "string" ? src : undefined} target="_blank" rel="noopener noreferrer nofollow" className="markdown-image-link">
      {alt ? `Image: ${alt}` : "Image"}
    </a>
  ),
  // A wide table scrolls inside the answer instead of widening the page.
  table: ({ children }) => (
    <div className="markdown-table">
      <table>{children}</table>
    </div>
  ),
};

const remarkPlugins = [remarkGfm, remarkKeepLineBreaks];
const rehypePlugins = [rehypeBlockHtmlAsText, rehypeHighlight];

/**
 * A model's answer as Markdown (GFM: tables, task lists, strikethrough, autolinks; a newline is a
 * line break), with fenced code
 * highlighted and a copy button on each code block. Raw HTML in the text is shown as text, never
 * parsed into elements (block HTML by rehypeBlockHtmlAsText, inline HTML by react-markdown, which
 * turns raw nodes into text; there is no rehype-raw here), and URLs
 * other than http(s), mailto and relative ones are dropped (react-markdown's defaultUrlTransform).
 * Rendering the whole text again on each streamed chunk is what makes partial Markdown (an open
 * code fence, a table still missing rows) show as far as it goes; memo skips unchanged answers.
 */
export const Markdown = memo(function Markdown({ text, testId, className }: { text: string; testId?: string; className?: string }) {
  return (
    <div className={`markdown min-w-0 break-words text-sm leading-relaxed ${className ?? ""}`} data-testid={testId}>
      <ReactMarkdown remarkPlugins={remarkPlugins} rehypePlugins={rehypePlugins} components={components}>
        {text}
      </ReactMarkdown>
    </div>
  );
});
