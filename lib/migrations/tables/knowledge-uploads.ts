import { col, ix, type TableSpec } from "../ddl.ts";

/**
 * Agentry's own: a file or page waiting to be read into a knowledge base. `POST /knowledge/content`
 * stores the upload here with the content's row and its processing job, so any worker can read it;
 * the row is deleted once the content is processed (completed or failed). Timestamps are epoch seconds.
 */
export const KNOWLEDGE_UPLOADS: TableSpec = {
  name: "agentry_knowledge_uploads",
  columns: [col.id("content_id"), col.text("user_id"), col.bytes("data", true), col.text("filename"), col.text("mime_type"), col.bigint("created_at", true)],
  indexes: [ix("agentry_knowledge_uploads", "created_at")],
};
