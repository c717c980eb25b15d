import type { Root } from "hast";
import { memo, useMemo } from "react";
import ReactMarkdown, { type Components, type ExtraProps } from "react-markdown";
import rehypeHighlight from "rehype-highlight";
import remarkGfm from "remark-gfm";
import { markdownBlocks } from "./blocks.ts";
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

/**
 * rehype-highlight builds a new highlighter (every language registered and its grammar compiled
 * again) each time its plugin is attached, and react-markdown attaches plugins on every render: a
 * streamed answer would pay that on each update. Built once here, the same transform serves every
 * render (bench/markdown.ts measures a render).
 */
const highlight = rehypeHighlight();
const rehypeHighlightOnce = () => highlight;

const remarkPlugins = [remarkGfm, remarkKeepLineBreaks];
const rehypePlugins = [rehypeBlockHtmlAsText, rehypeHighlightOnce];

/** One top-level block of an answer; unchanged blocks are not parsed again while the answer streams. */
const MarkdownBlock = memo(function MarkdownBlock({ text }: { text: string }) {
  return (
    <ReactMarkdown remarkPlugins={remarkPlugins} rehypePlugins={rehypePlugins} components={components}>
      {text}
    </ReactMarkdown>
  );
});

/**
 * A model's answer as Markdown (GFM: tables, task lists, strikethrough, autolinks; a newline is a
 * line break), with fenced code highlighted and a copy button on each code block. Raw HTML in the
 * text is shown as text, never parsed into elements (block HTML by rehypeBlockHtmlAsText, inline
 * HTML by react-markdown, which turns raw nodes into text; there is no rehype-raw here), and URLs
 * other than http(s), mailto and relative ones are dropped (react-markdown's defaultUrlTransform).
 * While an answer streams, the text is split into its top-level blocks (./blocks.ts) and only the
 * block that changed is parsed again: the last one, where partial Markdown (an open code fence, a
 * table still missing rows) shows as far as it goes. bench/markdown.ts measures an update.
 */
export const Markdown = memo(function Markdown({ text, testId, className }: { text: string; testId?: string; className?: string }) {
  const blocks = useMemo(() => markdownBlocks(text), [text]);
  return (
    <div className={`markdown min-w-0 break-words text-sm leading-relaxed ${className ?? ""}`} data-testid={testId}>
      {blocks.map((block, i) => (
        // A block's place is its identity: blocks before the last never change while an answer streams.
        <MarkdownBlock key={i} text={block} />
      ))}
    </div>
  );
});
