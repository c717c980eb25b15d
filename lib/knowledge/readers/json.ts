/**
 * JSON: flattened to one "path: value" line per leaf (`orders[2].customer.name: Ada`), so each
 * line a search finds carries the keys that say what its value is, which pretty-printed JSON
 * spreads over the lines above it. Invalid JSON is refused with the line and column of the fault.
 */
import { charsetOf, decodeText } from "./decode.ts";
import { checkJsonDepth, DEFAULT_READER_LIMITS } from "./reader-limits.ts";
import { type ReadInput, type ReadOptions, type ReadOutput, type Reader, ReaderError } from "./reader.ts";

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

function childPath(path: string, key: string): string {
  if (IDENTIFIER.test(key)) return path ? `${path}.${key}` : key;
  return `${path}[${JSON.stringify(key)}]`;
}

function scalar(value: unknown): string {
  return typeof value === "string" ? value.replace(/\s+/g, " ").trim() : JSON.stringify(value);
}

/** The value as "path: value" lines, one per leaf (empty objects and arrays are leaves: `{}`, `[]`). */
export function flattenJson(value: unknown, path = "", lines: string[] = []): string[] {
  const entries = Array.isArray(value)
    ? value.map((v, i) => [`${path}[${i}]`, v] as const)
    : value && typeof value === "object"
      ? Object.entries(value).map(([k, v]) => [childPath(path, k), v] as const)
      : null;
  if (entries === null) lines.push(path ? `${path}: ${scalar(value)}` : scalar(value));
  else if (entries.length === 0) lines.push(`${path || "(root)"}: ${Array.isArray(value) ? "[]" : "{}"}`);
  else for (const [childKey, child] of entries) flattenJson(child, childKey, lines);
  return lines;
}

class Stop {
  constructor(readonly offset: number) {}
}

/**
 * The offset of the first syntax error in text JSON.parse refused. V8's message gives it only for
 * some errors (not for "Unexpected token"), so the text is scanned again by the JSON grammar.
 */
export function jsonErrorOffset(text: string): number | undefined {
  let i = 0;
  const stop = (): never => {
    throw new Stop(i);
  };
  const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
  const space = () => {
    while (text[i] === " " || text[i] === "\t" || text[i] === "\n" || text[i] === "\r") i++;
  };
  const string = () => {
    i++;
    for (;;) {
      const c = text[i];
      if (c === undefined || c < " ") stop();
      if (c === '"') return void i++;
      if (c !== "\\") {
        i++;
        continue;
      }
      const escaped = text[i + 1] ?? "";
      i += 2;
      if (escaped === "u") {
        if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i, i + 4))) stop();
        i += 4;
      } else if (escaped === "" || !'"\\/bfnrt'.includes(escaped)) {
        i--;
        stop();
      }
    }
  };
  const members = (close: string, member: () => void) => {
    i++;
    space();
    if (text[i] === close) return void i++;
    for (;;) {
      member();
      space();
      if (text[i] === ",") i++;
      else if (text[i] === close) return void i++;
      else stop();
    }
  };
  const value = (): void => {
    space();
    const c = text[i];
    if (c === "{")
      members("}", () => {
        space();
        if (text[i] !== '"') stop();
        string();
        space();
        if (text[i] !== ":") stop();
        i++;
        value();
      });
    else if (c === "[") members("]", value);
    else if (c === '"') string();
    else if (c !== undefined && "tfn".includes(c)) {
      const word = c === "t" ? "true" : c === "f" ? "false" : "null";
      if (!text.startsWith(word, i)) stop();
      i += word.length;
    } else {
      NUMBER.lastIndex = i;
      if (!NUMBER.exec(text)) stop();
      i = NUMBER.lastIndex;
    }
  };
  try {
    value();
    space();
    if (i < text.length) stop();
    return undefined;
  } catch (error) {
    if (error instanceof Stop) return error.offset;
    return undefined; // nested too deeply for the scanner's stack
  }
}

/** A person's description of where the JSON is broken. */
function where(text: string, offset: number | undefined): string {
  if (offset === undefined) return "";
  if (offset >= text.length) return " (it ends too early: a bracket, brace or quote is not closed)";
  const line = text.slice(0, offset).split("\n").length;
  const column = offset - text.lastIndexOf("\n", offset - 1);
  return ` at line ${line}, column ${column} (position ${offset}, near ${JSON.stringify(text.slice(offset, offset + 20))})`;
}

/** Reads JSON as "path: value" lines. */
export const jsonReader: Reader = {
  id: "json",
  name: "JSON",
  description: 'JSON documents, flattened to one "path: value" line per value.',
  mimeTypes: ["application/json", "text/json", "application/ld+json"],
  extensions: ["json"],
  async read({ bytes, mimeType }: ReadInput, options?: ReadOptions): Promise<ReadOutput> {
    const { text } = decodeText(bytes, charsetOf(mimeType));
    if (text.trim() === "") throw new ReaderError("The JSON file is empty; upload a file with a JSON value in it.");
    // flattenJson and the error scanner recurse once per level.
    checkJsonDepth(text, options?.limits ?? DEFAULT_READER_LIMITS);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new ReaderError(`The file is not valid JSON${where(text, jsonErrorOffset(text))}; fix it there, or upload it as a .txt file to read it as plain text.`);
    }
    const lines = flattenJson(value);
    const kind = Array.isArray(value) ? "array" : value === null ? "null" : typeof value;
    return { text: lines.join("\n"), metadata: { json_type: kind, values: lines.length }, format: "text" };
  },
};
