/**
 * bench:markdown — what rendering a streamed answer as Markdown costs per update, beside the same
 * text rendered as plain text (what the chat did before components/markdown/).
 *
 * While an answer streams, the chat renders its whole text again on each update (a partial table
 * or an open code fence shows as far as it goes). This measures one such render of the dashboard's
 * own <Markdown> component (react-markdown, remark-gfm, rehype-highlight, the line-break and
 * block-HTML plugins) with react-dom/server at answer sizes from 1 KiB to 64 KiB, each size
 * rendered `--repeat` times: the whole answer, one streamed update (the answer split into its
 * blocks and the last one rendered: components/markdown/blocks.ts), and the plain-text render of
 * the same text. React renders a streamed
 * answer at most once per frame, so the per-update time at a size says how much of a 16 ms frame
 * an answer that long takes.
 *
 *   npm run bench:markdown [-- --repeat=40]
 */
import { register } from "node:module";
import { performance } from "node:perf_hooks";
import { checkArgs, intOption } from "./cli.ts";
import { ms, ratio, table } from "./report.ts";
import { stats } from "./stats.ts";
import { prng, WORDS } from "./synthetic-text.ts";

checkArgs(/^--repeat=/, "usage: npm run bench:markdown [-- --repeat=N]");
const repeat = intOption("repeat", 40, 5);

// The component imports its stylesheet (Next bundles it); Node has no loader for .css, so it loads as nothing here.
register(
  `data:text/javascript,${encodeURIComponent("export async function load(url, context, next) { return url.endsWith('.css') ? { format: 'module', source: '', shortCircuit: true } : next(url, context); }")}`,
);

const { createElement } = await import("react");
const { renderToString } = await import("react-dom/server");
const { Markdown } = await import("../components/markdown/markdown.tsx");
const { markdownBlocks } = await import("../components/markdown/blocks.ts");

/** An answer as models write them: paragraphs with emphasis and code spans, a list, a table and a fenced code block, repeated. */
function answer(bytes: number): string {
  const random = prng(33);
  const words = (n: number) => Array.from({ length: n }, () => WORDS[Math.floor(random() * WORDS.length)]).join(" ");
  const section = (i: number) =>
    [
      `## Part ${i}`,
      `${words(30)} **${words(2)}** and \`${words(1)}\` ${words(20)}.`,
      `- ${words(6)}\n- ${words(8)}\n- ${words(5)}`,
      `| name | value | note |\n| --- | ---: | --- |\n${Array.from({ length: 4 }, (_, r) => `| ${words(1)} | ${r * 17} | ${words(3)} |`).join("\n")}`,
      "```ts\n" + `export function part${i}(input: string): number {\n  const words = input.split(" ");\n  return words.filter((w) => w.length > ${i % 7}).length;\n}\n` + "```",
    ].join("\n\n");
  let text = "";
  for (let i = 1; text.length < bytes; i++) text += `${section(i)}\n\n`;
  return text.slice(0, bytes);
}

const markdown = (text: string) => renderToString(createElement(Markdown, { text }));
/**
 * One streamed update as the browser does it: the text split into blocks, then the last block
 * parsed and rendered (every other block is memoized on its unchanged text, so React skips it).
 */
const update = (text: string) => {
  const blocks = markdownBlocks(text);
  return renderToString(createElement(Markdown, { text: blocks[blocks.length - 1] }));
};
const plain = (text: string) => renderToString(createElement("div", { className: "whitespace-pre-wrap" }, text));

function time(render: (text: string) => string, text: string): number[] {
  for (let i = 0; i < 3; i++) render(text);
  const samples: number[] = [];
  for (let i = 0; i < repeat; i++) {
    const start = performance.now();
    render(text);
    samples.push(performance.now() - start);
  }
  return samples;
}

const rows: string[][] = [];
for (const kib of [1, 4, 16, 64]) {
  const text = answer(kib * 1024);
  const whole = stats(time(markdown, text));
  const streamed = stats(time(update, text));
  const base = stats(time(plain, text));
  rows.push([`${kib} KiB`, ms(whole.p50), ms(streamed.p50), ms(streamed.p99), ms(base.p50), ratio(streamed.p50 / base.p50), `${((streamed.p50 / 16.7) * 100).toFixed(0)}%`]);
}
console.log(`bench:markdown — rendering a streamed answer (ms, ${repeat} renders per size, react-dom/server)\n`);
console.log(table(["answer", "whole answer p50", "one update p50", "one update p99", "plain text p50", "update / plain", "update of a 60 fps frame"], rows));
console.log("\nwhole answer: the first render (or a page load); one update: a streamed chunk, which parses and renders only the last block");
