// Pure (no imports): the request edge, the dashboard's pages and the SQL executor share it.

/**
 * Text that storage cannot hold the same way on both dialects: NUL (PostgreSQL's text and jsonb
 * refuse U+0000, SQLite keeps it) and UTF-16 surrogates without their pair (no UTF-8 encoding
 * exists for them). Without the `u` flag the pattern sees code units, so a lone half matches.
 */
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const UNSTORABLE_ALL = new RegExp(UNSTORABLE.source, "g");

/**
 * The same characters as JSON.stringify writes them: `\u0000`, and a lone surrogate as its
 * escape (a well-formed JSON.stringify writes paired surrogates as the characters themselves, so
 * any surrogate escape it writes is a lone one). An escaped backslash before `u` is not an escape:
 * only an odd run of backslashes starts one.
 */
const UNSTORABLE_JSON_ESCAPE = /(?<!\\)((?:\\\\)*)\\u(?:0000|d[89a-f][0-9a-f]{2})/g;

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

/** JSON text (as JSON.stringify writes it) with every unstorable character, keys included, as U+FFFD. */
export function storableJsonText(json: string): string {
  return json.includes("\\u") ? json.replace(UNSTORABLE_JSON_ESCAPE, "$1\\ufffd") : json;
}
