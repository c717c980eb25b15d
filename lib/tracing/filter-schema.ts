/**
 * What `GET /traces/filter-schema` answers (Agno's `TRACE_FILTER_SCHEMA`): the fields the filter bar of `POST /traces/search` offers, with
 * their labels, types, the operators each takes and an enum's values, in Agno's order; a field
 * without values carries `values: null` (the route does not leave nulls out, as Agno's does not).
 */

export interface FilterField {
  key: string;
  label: string;
  type: "string" | "number" | "datetime" | "enum";
  operators: string[];
  values: string[] | null;
}

export interface FilterSchema {
  fields: FilterField[];
  logical_operators: string[];
}

const ID_OPERATORS = ["EQ", "NEQ", "CONTAINS", "STARTSWITH", "IN"];
const RANGE_OPERATORS = ["GT", "GTE", "LT", "LTE"];

const idField = (key: string, label: string): FilterField => ({ key, label, type: "string", operators: [...ID_OPERATORS], values: null });
const timeField = (key: string, label: string): FilterField => ({ key, label, type: "datetime", operators: [...RANGE_OPERATORS], values: null });

/** A fresh copy each call, so no caller can change another's. */
export function traceFilterSchema(): FilterSchema {
  return {
    fields: [
      { key: "status", label: "Status", type: "enum", operators: ["EQ", "NEQ", "IN"], values: ["OK", "ERROR"] },
      idField("user_id", "User ID"),
      idField("agent_id", "Agent ID"),
      idField("team_id", "Team ID"),
      idField("workflow_id", "Workflow ID"),
      idField("session_id", "Session ID"),
      idField("run_id", "Run ID"),
      { key: "name", label: "Trace Name", type: "string", operators: ["EQ", "NEQ", "CONTAINS", "STARTSWITH"], values: null },
      idField("trace_id", "Trace ID"),
      { key: "duration_ms", label: "Duration (ms)", type: "number", operators: ["EQ", "NEQ", ...RANGE_OPERATORS], values: null },
      timeField("start_time", "Start Time"),
      timeField("end_time", "End Time"),
      timeField("created_at", "Created At"),
    ],
    logical_operators: ["AND", "OR"],
  };
}
