/**
 * CSV and TSV: the first row names the columns; every other row becomes one line of
 * "column: value" pairs, so each line found by a search says what its values are. Empty cells are
 * left out; a value's own line breaks become spaces (one row stays one line).
 */
import Papa from "papaparse";
import { charsetOf, decodeText, extensionOf, mimeEssence } from "./decode.ts";
import { csvTooLong, DEFAULT_READER_LIMITS } from "./reader-limits.ts";
import { type ReadInput, type ReadOptions, type ReadOutput, type Reader, ReaderError } from "./reader.ts";

/** Cells past the header's columns, which papaparse collects under this key. */
const EXTRA = "__parsed_extra";

function oneLine(value: unknown): string {
  return String(value ?? "")
    .replace(/\s+/g, " ")
    .trim();
}

/** One row as "column: value, column: value" (empty cells left out, extra cells as "extra"). */
export function rowLine(row: Record<string, unknown>, columns: string[]): string {
  const pairs: string[] = [];
  for (const column of columns) {
    const value = oneLine(row[column]);
    if (value !== "") pairs.push(`${column}: ${value}`);
  }
  const extra = row[EXTRA];
  if (Array.isArray(extra)) {
    for (const value of extra.map(oneLine)) if (value !== "") pairs.push(`extra: ${value}`);
  }
  return pairs.join(", ");
}

/** Reads a CSV (or TSV) table, one line per row. */
export const csvReader: Reader = {
  id: "csv",
  name: "CSV",
  description: 'CSV and TSV tables with a header row: each row becomes one line of "column: value" pairs.',
  mimeTypes: ["text/csv", "application/csv", "text/tab-separated-values"],
  extensions: ["csv", "tsv"],
  async read({ bytes, name, mimeType }: ReadInput, options?: ReadOptions): Promise<ReadOutput> {
    const limits = options?.limits ?? DEFAULT_READER_LIMITS;
    const { text } = decodeText(bytes, charsetOf(mimeType));
    const tabs = mimeEssence(mimeType) === "text/tab-separated-values" || extensionOf(name) === "tsv";
    const parsed = Papa.parse<Record<string, unknown>>(text, {
      header: true,
      skipEmptyLines: "greedy",
      delimiter: tabs ? "\t" : "",
      transformHeader: (header, index) => header.trim() || `column ${index + 1}`,
      // One row past the limit is enough to know the table is too long.
      preview: limits.maxCsvRows + 1,
    });
    if (parsed.data.length > limits.maxCsvRows) throw csvTooLong(limits);
    const columns = parsed.meta.fields ?? [];
    if (columns.length === 0) throw new ReaderError("The CSV is empty; upload a table whose first row names its columns.");
    const lines = parsed.data.map((row) => rowLine(row, columns)).filter((line) => line !== "");
    if (lines.length === 0) throw new ReaderError("The CSV has a header row but no data rows; upload a table with at least one row under its header.");
    const metadata: Record<string, unknown> = { rows: lines.length, columns, delimiter: parsed.meta.delimiter };
    // Ragged rows still read (short rows lack cells, long rows keep theirs as "extra"); other problems are counted.
    const problems = parsed.errors.filter((e) => e.type !== "FieldMismatch").length;
    if (problems > 0) metadata.parse_errors = problems;
    return { text: lines.join("\n"), metadata, format: "text" };
  },
};
