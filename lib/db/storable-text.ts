// Pure (no imports): the request edge, the dashboard's pages and the SQL executor share it.

/**
 * Text that storage cannot hold the same way on both dialects: NUL (PostgreSQL's text and jsonb
 * refuse U+0000, SQLite keeps it) and UTF-16 surrogates without their pair (no UTF-8 encoding
 * exists for them). Without the `u` flag the pattern sees code units, so a lone half matches.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: U+0000 is one of the characters this pattern exists to find.
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const UNSTORABLE_ALL = new RegExp(UNSTORABLE.source, "g");

/** What is wrong with a string as stored text ("a NUL character (\\u0000)"), or null when nothing is. */
export function unstorableCharacterIn(text: string): string | null {
  const match = UNSTORABLE.exec(text);
  if (!match) return null;
  return match[0] === "\u0000" ? "a NUL character (\\u0000)" : "a lone UTF-16 surrogate";
}

/** The text with every unstorable character replaced by U+FFFD (the text itself when there is none). */
export function storableText(text: string): string {
  return UNSTORABLE.test(text) ? text.replace(UNSTORABLE_ALL, "\ufffd") : text;
}

const isHigh = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLow = (code: number) => code >= 0xdc00 && code <= 0xdfff;
const REPLACEMENT_ESCAPE = "\\ufffd";

/**
 * JSON text with every unstorable character inside its strings (keys included) written as
 * U+FFFD, and nothing else changed — numbers, spacing and key order stay byte for byte. Reads
 * escapes as JSON does: `\u0000`, a `\uD800`-`\uDBFF` escape not followed by a low-surrogate
 * escape (or character), and a low one with no high one before it are the unstorable ones; an
 * escaped pair (`\ud83d\ude00`, as Python's json.dumps writes astral characters) is kept. Raw
 * NUL and raw lone surrogates are replaced too. Text without a backslash-u, a NUL or a surrogate
 * is returned as it is without a scan.
 */
export function storableJsonText(json: string): string {
  if (!json.includes("\\u") && !UNSTORABLE.test(json)) return json;
  let out = "";
  let last = 0;
  let previousHigh = false; // the previous unit (escape or character) inside this string was a high surrogate
  const replace = (from: number, to: number) => {
    out += json.slice(last, from) + REPLACEMENT_ESCAPE;
    last = to;
  };
  for (let i = 0; i < json.length; i++) {
    const code = json.charCodeAt(i);
    if (code === 0x5c /* backslash */) {
      const next = json[i + 1];
      if (next !== "u") {
        i++;
        previousHigh = false;
        continue;
      }
      const unit = Number.parseInt(json.slice(i + 2, i + 6), 16);
      const end = i + 6;
      if (unit === 0) replace(i, end);
      else if (isHigh(unit)) {
        const following = json.startsWith("\\u", end) ? Number.parseInt(json.slice(end + 2, end + 6), 16) : json.charCodeAt(end);
        if (!isLow(following)) replace(i, end);
        else {
          i = end - 1;
          previousHigh = true;
          continue;
        }
      } else if (isLow(unit) && !previousHigh) replace(i, end);
      i = end - 1;
      previousHigh = false;
      continue;
    }
    if (code === 0) replace(i, i + 1);
    else if (isHigh(code) && !isLow(json.charCodeAt(i + 1)) && !(json.startsWith("\\u", i + 1) && isLow(Number.parseInt(json.slice(i + 3, i + 7), 16)))) replace(i, i + 1);
    else if (isLow(code) && !previousHigh) replace(i, i + 1);
    previousHigh = isHigh(code);
  }
  return last === 0 ? json : out + json.slice(last);
}
