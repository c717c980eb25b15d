import { parseSessionJson } from "../json.ts";

/**
 * The rows of Agno v3's component tables (`agno_components`, `agno_component_configs`,
 * `agno_component_links`), as lib/db/components reads them. Times are epoch seconds; JSON columns
 * are decoded whichever way they were stored.
 */

export type StoredComponentType = "agent" | "team" | "workflow";

/** A config version's stage: drafts change in place, published ones never; `_deleted` is a tombstone. */
export type ConfigStage = "draft" | "published" | "_deleted";

/** The stage of a deleted draft: its number is never given out again. */
export const DELETED_STAGE = "_deleted";

/** Link kinds that pin a child's version for rebuilding the parent: team members and workflow step children. */
export const PIN_LINK_KINDS = ["member", "step_agent", "step_team", "step_workflow"] as const;

export interface ComponentRow {
  component_id: string;
  component_type: StoredComponentType;
  name: string | null;
  user_id: string | null;
  description: string | null;
  current_version: number | null;
  metadata: Record<string, unknown> | null;
  created_at: number;
  updated_at: number | null;
  deleted_at: number | null;
}

export interface ComponentConfigRow {
  component_id: string;
  version: number;
  label: string | null;
  stage: ConfigStage;
  /** Null when the read left the blob out (a list without configs). */
  config: Record<string, unknown> | null;
  notes: string | null;
  created_at: number;
  updated_at: number | null;
}

export interface ComponentLinkRow {
  parent_component_id: string;
  parent_version: number;
  link_kind: string;
  link_key: string;
  child_component_id: string;
  child_version: number | null;
  position: number;
  meta: Record<string, unknown> | null;
  created_at: number | null;
  updated_at: number | null;
}

/** A link to write under a parent version (the parent's id and version come from the write). */
export interface ComponentLinkInput {
  link_kind: string;
  link_key: string;
  child_component_id: string;
  child_version: number | null;
  position: number;
  meta?: Record<string, unknown> | null;
}

export const COMPONENT_COLUMNS = "component_id, component_type, name, user_id, description, current_version, metadata, created_at, updated_at, deleted_at";
export const CONFIG_COLUMNS = "component_id, version, label, stage, config, notes, created_at, updated_at";
export const CONFIG_COLUMNS_WITHOUT_BLOB = "component_id, version, label, stage, notes, created_at, updated_at";
export const LINK_COLUMNS = "parent_component_id, parent_version, link_kind, link_key, child_component_id, child_version, position, meta, created_at, updated_at";

const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

/** A JSON column holding an object, or null for anything else. */
export function objectOrNull(value: unknown): Record<string, unknown> | null {
  const parsed = parseSessionJson(value);
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) return null;
  return parsed as Record<string, unknown>;
}

export function toComponentRow(row: Record<string, unknown>): ComponentRow {
  return {
    component_id: String(row.component_id),
    component_type: String(row.component_type) as StoredComponentType,
    name: str(row.name),
    user_id: str(row.user_id),
    description: str(row.description),
    current_version: num(row.current_version),
    metadata: objectOrNull(row.metadata),
    created_at: Number(row.created_at ?? 0),
    updated_at: num(row.updated_at),
    deleted_at: num(row.deleted_at),
  };
}

export function toConfigRow(row: Record<string, unknown>): ComponentConfigRow {
  return {
    component_id: String(row.component_id),
    version: Number(row.version),
    label: str(row.label),
    stage: String(row.stage ?? "draft") as ConfigStage,
    config: "config" in row ? (objectOrNull(row.config) ?? {}) : null,
    notes: str(row.notes),
    created_at: Number(row.created_at ?? 0),
    updated_at: num(row.updated_at),
  };
}

export function toLinkRow(row: Record<string, unknown>): ComponentLinkRow {
  return {
    parent_component_id: String(row.parent_component_id),
    parent_version: Number(row.parent_version),
    link_kind: String(row.link_kind),
    link_key: String(row.link_key),
    child_component_id: String(row.child_component_id),
    child_version: num(row.child_version),
    position: Number(row.position ?? 0),
    meta: objectOrNull(row.meta),
    created_at: num(row.created_at),
    updated_at: num(row.updated_at),
  };
}
