/**
 * An answer split into top-level Markdown blocks, so that while it streams only its last block is
 * parsed and rendered again (components/markdown/markdown.tsx memoizes each block by its text).
 *
 * A block ends at a blank line that is outside a fenced code block and followed by a line that
 * starts in the first column: an indented line after a blank one continues a list item (a nested
 * paragraph or code fence), and a fence keeps its blank lines. Blocks are what CommonMark would
 * parse the same way alone; what depends on the whole text (reference-style link definitions,
 * footnotes) renders as it would at the top of its own block.
 */
export function markdownBlocks(text: string): string[] {
  const lines = text.split("\n");
  const blocks: string[] = [];
  let start = 0;
  let fence: string | null = null;
  // Whether the block begun at `start` has more than blank lines yet (leading blank lines join the next block).
  let content = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.trim() !== "") content = true;
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence) {
      // A closing fence: the same character, at least as long, nothing after it but spaces.
      if (marker && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = null;
      continue;
    }
    if (marker) {
      fence = marker;
      continue;
    }
    if (line.trim() !== "" || !content) continue;
    let next = i + 1;
    while (next < lines.length && lines[next].trim() === "") next++;
    if (next >= lines.length || /^\s/.test(lines[next])) continue;
    blocks.push(lines.slice(start, next).join("\n"));
    start = next;
    content = false;
    i = next - 1;
  }
  if (start < lines.length) blocks.push(lines.slice(start).join("\n"));
  return blocks;
}
