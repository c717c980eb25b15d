// Pure (no server imports): the Studio page computes it on the server, its client components render it.

/** One line of a config diff: kept, removed (only in the published version) or added (only in the draft). */
export interface DiffLine {
  kind: "same" | "removed" | "added";
  text: string;
}

/** A config as text to compare: pretty JSON with every object's keys sorted, so key order never shows as a change. */
export function canonicalJson(value: unknown): string {
  const sorted = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sorted);
    if (v && typeof v === "object")
      return Object.fromEntries(
        Object.keys(v as object)
          .sort()
          .map((k) => [k, sorted((v as Record<string, unknown>)[k])]),
      );
    return v;
  };
  return JSON.stringify(sorted(value ?? {}), null, 2);
}

/** Past this many differing lines the diff stops looking and shows the rest as removed then added. */
const MAX_EDIT_DISTANCE = 2_000;

/**
 * The line diff of two texts (Myers' O((N+M)·D) shortest edit script), removals before additions
 * in each changed stretch. Texts far apart (more than MAX_EDIT_DISTANCE edits) come back as all of
 * `before` removed and all of `after` added.
 */
export function lineDiff(before: string, after: string): DiffLine[] {
  const a = before === "" ? [] : before.split("\n");
  const b = after === "" ? [] : after.split("\n");
  const n = a.length;
  const m = b.length;
  const max = Math.min(n + m, MAX_EDIT_DISTANCE);
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  let found = n === 0 && m === 0;
  for (let d = 0; d <= max && !found; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!) ? v[offset + k + 1]! : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) {
        found = true;
        break;
      }
    }
  }
  if (!found) return [...a.map((text) => ({ kind: "removed" as const, text })), ...b.map((text) => ({ kind: "added" as const, text }))];
  // Walk the trace back from (n, m), collecting the script in reverse.
  const reversed: DiffLine[] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d >= 0; d--) {
    const vd = trace[d]!;
    const k = x - y;
    const prevK = k === -d || (k !== d && vd[offset + k - 1]! < vd[offset + k + 1]!) ? k + 1 : k - 1;
    const prevX = d === 0 ? 0 : vd[offset + prevK]!;
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      reversed.push({ kind: "same", text: a[x - 1]! });
      x--;
      y--;
    }
    if (d > 0) {
      if (x === prevX) reversed.push({ kind: "added", text: b[y - 1]! });
      else reversed.push({ kind: "removed", text: a[x - 1]! });
      x = prevX;
      y = prevY;
    }
  }
  const lines = reversed.reverse();
  // Within each changed stretch, removals first: the published line, then what replaces it.
  const ordered: DiffLine[] = [];
  for (let i = 0; i < lines.length; ) {
    if (lines[i]!.kind === "same") {
      ordered.push(lines[i++]!);
      continue;
    }
    const stretch: DiffLine[] = [];
    while (i < lines.length && lines[i]!.kind !== "same") stretch.push(lines[i++]!);
    ordered.push(...stretch.filter((l) => l.kind === "removed"), ...stretch.filter((l) => l.kind === "added"));
  }
  return ordered;
}

/** A diff shown with `context` unchanged lines around each change; longer unchanged runs fold to a count. */
export type DiffHunkLine = DiffLine | { kind: "fold"; count: number };

export function foldDiff(lines: DiffLine[], context = 3): DiffHunkLine[] {
  const near = new Array<boolean>(lines.length).fill(false);
  lines.forEach((line, i) => {
    if (line.kind === "same") return;
    for (let j = Math.max(0, i - context); j <= Math.min(lines.length - 1, i + context); j++) near[j] = true;
  });
  const out: DiffHunkLine[] = [];
  for (let i = 0; i < lines.length; ) {
    if (near[i]) {
      out.push(lines[i++]!);
      continue;
    }
    let count = 0;
    while (i < lines.length && !near[i]) {
      count++;
      i++;
    }
    out.push({ kind: "fold", count });
  }
  return out;
}

/** The diff of two configs (published → draft): its folded lines and how many lines each side changed. */
export function configDiff(published: unknown, draft: unknown): { lines: DiffHunkLine[]; added: number; removed: number } {
  const lines = lineDiff(canonicalJson(published), canonicalJson(draft));
  return { lines: foldDiff(lines), added: lines.filter((l) => l.kind === "added").length, removed: lines.filter((l) => l.kind === "removed").length };
}
