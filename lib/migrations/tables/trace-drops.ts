import { col, type TableSpec } from "../ddl.ts";

/**
 * Agentry's own: spans the tracing exporter dropped (its queue full, a write failed), counted per
 * process and UTC day ('YYYY-MM-DD') so the dashboard can say how much of a day's tracing is
 * missing. `updated_at` is epoch seconds. Agno has no such table and ignores it.
 */
export const TRACE_DROPS: TableSpec = {
  name: "agentry_trace_drops",
  columns: [col.text("process_id", true), col.text("day", true), { name: "dropped", type: "bigint", notNull: true, default: "0" }, col.bigint("updated_at", true)],
  primaryKey: ["process_id", "day"],
  indexes: [],
};
