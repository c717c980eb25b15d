/**
 * Python's `repr()` of a string and of a tuple of strings, for the error texts Agno formats with
 * `{value!r}` (its clients and tests match them word for word): single quotes unless the text holds
 * a single quote and no double quote, backslashes and the quote escaped, and what Python does not
 * print (controls, format characters, separators other than the space, unassigned code points)
 * written as `\xhh`, `\uhhhh` or `\Uhhhhhhhh`.
 */
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;
const NAMED: Record<string, string> = { "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t" };

function escapeCodePoint(char: string): string {
  const code = char.codePointAt(0) ?? 0;
  if (code < 0x100) return `\\x${code.toString(16).padStart(2, "0")}`;
  if (code < 0x10000) return `\\u${code.toString(16).padStart(4, "0")}`;
  return `\\U${code.toString(16).padStart(8, "0")}`;
}

export function pythonStringRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = "";
  for (const char of text) {
    if (NAMED[char]) out += NAMED[char];
    else if (char === quote) out += `\\${quote}`;
    else if (char !== " " && UNPRINTABLE.test(char)) out += escapeCodePoint(char);
    else out += char;
  }
  return `${quote}${out}${quote}`;
}

/** Python's `repr()` of a tuple of strings: `('a', 'b')`, `('a',)` for one. */
export function pythonTupleRepr(items: readonly string[]): string {
  const inner = items.map(pythonStringRepr).join(", ");
  return `(${inner}${items.length === 1 ? "," : ""})`;
}
