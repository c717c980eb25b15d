import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { ToolCallCard } from "@/components/dashboard/playground/tool-call-card.tsx";
import type { ToolCallView } from "@/components/dashboard/playground/transcript.ts";
import { markdownBlocks } from "@/components/markdown/blocks.ts";
import { Markdown } from "@/components/markdown/markdown.tsx";

/** The HTML the chat puts on the page for an answer. */
const render = (text: string) => renderToStaticMarkup(createElement(Markdown, { text }));

describe("answers rendered as Markdown", () => {
  it("shows a <script> answer as text: no script element, the tag escaped", () => {
    const html = render('<script>window.__pwned = 1; fetch("/sessions")</script>');
    expect(html).not.toMatch(/<script/i);
    expect(html).toContain("&lt;script&gt;window.__pwned = 1; fetch(&quot;/sessions&quot;)&lt;/script&gt;");
  });

  it("shows HTML as text wherever it is: a block keeps its lines, inline tags and handlers stay words", () => {
    const html = render('<div onclick="steal()">\n  <b>bold?</b>\n</div>\n\nSee <img src=x onerror="window.__pwned=2"> and <iframe src="/dashboard"></iframe>.\n\n> <style>body{display:none}</style>');
    for (const tag of ["div onclick", "b>", "img", "iframe", "style"]) expect(html).not.toContain(`<${tag}`);
    expect(html).toContain('<p class="markdown-html">&lt;div onclick=&quot;steal()&quot;&gt;\n  &lt;b&gt;bold?&lt;/b&gt;\n&lt;/div&gt;</p>');
    expect(html).toContain("See &lt;img src=x onerror=&quot;window.__pwned=2&quot;&gt; and &lt;iframe");
    expect(html).toContain('<blockquote>\n<p class="markdown-html">&lt;style&gt;');
  });

  it("drops javascript: links (their text stays) and never loads an image, linking to it instead", () => {
    const html = render("[click me](javascript:alert(1)) and ![a chart](https://example.com/chart.png)");
    expect(html).not.toContain("javascript:");
    expect(html).toContain("<span>click me</span>");
    expect(html).not.toContain("<img");
    expect(html).toContain('<a href="https://example.com/chart.png" target="_blank" rel="noopener noreferrer nofollow" class="markdown-image-link">Image: a chart</a>');
  });

  it("renders GFM: a table with its alignment, a task list, strikethrough, and links opening in a new tab", () => {
    const html = render("| Port | Height |\n| --- | ---: |\n| Brest | 6.8 m |\n\n- [x] packed\n- [ ] ~~left~~\n\nhttps://agno.com");
    expect(html).toContain('<div class="markdown-table"><table><thead><tr><th>Port</th><th style="text-align:right">Height</th></tr></thead>');
    expect(html).toContain('<td>Brest</td><td style="text-align:right">6.8 m</td>');
    expect(html).toContain('<input type="checkbox" disabled="" checked=""/>');
    expect(html).toContain("<del>left</del>");
    expect(html).toContain('<a href="https://agno.com" target="_blank" rel="noopener noreferrer nofollow">https://agno.com</a>');
  });

  it("keeps an answer's line breaks, as a chat shows them, but not inside code", () => {
    expect(render("Roses are red,\nviolets are blue.  \nHard break.")).toBe(
      '<div class="markdown min-w-0 break-words text-sm leading-relaxed "><p>Roses are red,<br/>\nviolets are blue.<br/>\nHard break.</p></div>',
    );
    expect(render("```\na\nb\n```")).toContain("<code>a\nb\n</code>");
  });

  it("highlights a fenced code block by its language, under a caption with a copy button", () => {
    const html = render("```ts\nconst range = (high: number) => high; // m\n```\n\n```\nplain text\n```");
    expect(html).toContain('<span class="font-mono">ts</span>');
    expect(html).toContain('aria-label="Copy code"');
    expect(html).toContain('<code class="hljs language-ts"><span class="hljs-keyword">const</span> <span class="hljs-title function_">range</span>');
    expect(html).toContain('<span class="hljs-comment">// m</span>');
    // No language: the block is shown as it is, still with its copy button.
    expect(html).toContain('<span class="font-mono">text</span>');
    expect(html).toContain("<pre><code>plain text\n</code></pre>");
    expect(html.match(/data-testid="code-block"/g)).toHaveLength(2);
  });

  it("renders a streaming answer as far as it has come: an open fence is already a highlighted block", () => {
    const html = render("Here:\n\n```python\ndef tide(");
    expect(html).toContain('<code class="hljs language-python"><span class="hljs-keyword">def</span> <span class="hljs-title function_">tide</span>(');
  });
});

describe("tool calls in the chat", () => {
  const call = (status: ToolCallView["status"], result?: unknown): ToolCallView => ({ id: "c1", name: "add", args: { a: 2, b: 3 }, status, ...(result !== undefined ? { result } : {}) });
  const render = (view: ToolCallView) => renderToStaticMarkup(createElement(ToolCallCard, { call: view }));

  it("are folded to a line with the arguments in brief, and hold the arguments and the result when opened", () => {
    const html = render(call("done", { result: 5 }));
    expect(html).toMatch(/^<details aria-label="Tool call add" data-testid="tool-call" class="/);
    expect(html).not.toMatch(/^<details[^>]* open/);
    expect(html).toContain("a: 2, b: 3</code>");
    expect(html).toContain('Arguments</div><pre class="');
    expect(html).toContain("{ &quot;a&quot;: 2, &quot;b&quot;: 3 }</pre>");
    expect(html).toContain("Result</div>");
    expect(html).toContain("{ &quot;result&quot;: 5 }</pre>");
  });

  it("start open while they wait for the person's decision, and say when there is no result yet", () => {
    const html = render(call("awaiting"));
    expect(html).toMatch(/^<details[^>]* open=""/);
    expect(html).toContain("waiting for you");
    expect(html).toContain("No result yet.");
  });

  it("show a failed call's error under Error", () => {
    expect(render(call("failed", "division by zero"))).toContain("Error</div><pre");
  });
});

describe("an answer's blocks (components/markdown/blocks.ts), parsed apart while it streams", () => {
  it("splits at blank lines before a line in the first column, never inside a fence or a list item's continuation", () => {
    const text = [
      "# Title",
      "",
      "A paragraph.",
      "",
      "```ts",
      "const a = 1;",
      "",
      "",
      "const b = 2;",
      "```",
      "",
      "1. Step one",
      "",
      "   ```bash",
      "   npm test",
      "",
      "   ```",
      "2. Step two",
      "",
      "| a | b |",
      "| - | - |",
      "| 1 | 2 |",
    ].join("\n");
    expect(markdownBlocks(text)).toEqual([
      "# Title\n",
      "A paragraph.\n",
      "```ts\nconst a = 1;\n\n\nconst b = 2;\n```\n",
      "1. Step one\n\n   ```bash\n   npm test\n\n   ```\n2. Step two\n",
      "| a | b |\n| - | - |\n| 1 | 2 |",
    ]);
    expect(markdownBlocks(text).join("\n")).toBe(text);
  });

  it("keeps an open fence (an answer still streaming) and ~~~ fences whole, and a longer closing fence closes", () => {
    expect(markdownBlocks("Intro\n\n```py\nx = 1\n\ny = 2")).toEqual(["Intro\n", "```py\nx = 1\n\ny = 2"]);
    expect(markdownBlocks("~~~\na\n\n```\nb\n~~~\n\nafter")).toEqual(["~~~\na\n\n```\nb\n~~~\n", "after"]);
    expect(markdownBlocks("````\na\n\n`````\n\nafter")).toEqual(["````\na\n\n`````\n", "after"]);
    expect(markdownBlocks("")).toEqual([""]);
    expect(markdownBlocks("\n\nhello")).toEqual(["\n\nhello"]);
  });

  it("renders a split answer as the whole one: the fence with blank lines is one code block, the list item keeps its indented paragraph", () => {
    const html = render("Intro\n\n```ts\nconst a = 1;\n\nconst b = 2;\n```\n\n- item\n\n    indented code in the item\n\nEnd");
    expect(html.match(/<pre/g)).toHaveLength(1);
    expect(html).toMatch(/<li>[\s\S]*indented code in the item[\s\S]*<\/li>/);
    expect(html.match(/<ul>/g)).toHaveLength(1);
  });
});
