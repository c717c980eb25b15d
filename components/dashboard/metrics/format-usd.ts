// Pure (no server imports): server and client components format cost the same way.

/** USD for a person: "$12.34", "$0.0042" for small amounts, "no price" for null (no run had a price). */
export function formatUsd(value: number | null): string {
  if (value === null || Number.isNaN(value)) return "no price";
  if (value === 0) return "$0.00";
  const abs = Math.abs(value);
  const digits = abs >= 1 ? 2 : abs >= 0.01 ? 4 : 6;
  return `$${value.toLocaleString("en", { minimumFractionDigits: 2, maximumFractionDigits: digits })}`;
}
