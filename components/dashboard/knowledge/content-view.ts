import type { ContentStatus, StoredContent } from "@/lib/db/knowledge/contents.ts";
import type { ActionState } from "@/lib/http/dashboard/action.ts";

/** A content as the Knowledge table shows it (plain data: it crosses to the client table). */
export interface ContentRow {
  id: string;
  name: string;
  description: string;
  /** What kind of content, said the way a person reads it ("Markdown", "URL", "Text"). */
  type: string;
  size: number | null;
  status: ContentStatus;
  /** Why it failed, for failed rows. */
  message: string | null;
  created_at: number | null;
  /** The owner's email when they are a dashboard user, else their user id; null for a shared content. */
  owner: string | null;
  shared: boolean;
  /** Whether the viewer may delete it: its owner, or an admin (shared contents: admins only). */
  canDelete: boolean;
}

/** A server action as the Knowledge forms receive it from the page. */
export type KnowledgeAction<S extends ActionState = ActionState> = (previous: S, formData: FormData) => Promise<S>;

const TYPE_LABELS: Record<string, string> = {
  manual: "Text",
  url: "URL",
  "application/pdf": "PDF",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "DOCX",
  "text/markdown": "Markdown",
  "text/x-markdown": "Markdown",
  "text/csv": "CSV",
  "application/json": "JSON",
  "text/html": "HTML",
  "text/plain": "Text file",
};

/** A content's `type` (the media type, "url" or "manual") as a short label; unknown types as they are. */
export function contentTypeLabel(type: string | null): string {
  if (!type) return "—";
  const essence = type.split(";")[0]!.trim().toLowerCase();
  return TYPE_LABELS[essence] ?? essence;
}

/** A byte count as a person reads it: "512 B", "1.5 KiB", "2.3 MiB". */
export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined || !Number.isFinite(bytes)) return "—";
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KiB", "MiB", "GiB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}

/** The table's row of a stored content. */
export function contentRowOf(content: StoredContent, { ownerLabel, canDelete }: { ownerLabel: (userId: string | null) => string | null; canDelete: boolean }): ContentRow {
  return {
    id: content.id,
    name: content.name,
    description: content.description,
    type: contentTypeLabel(content.type),
    size: content.size,
    status: content.status,
    message: content.status === "failed" ? content.status_message || "Processing failed." : null,
    created_at: content.created_at,
    owner: ownerLabel(content.user_id),
    shared: content.user_id === null,
    canDelete,
  };
}

/** The anchor of a content's row in the table (search hits link to it). */
export const contentAnchor = (id: string) => `content-${id}`;
