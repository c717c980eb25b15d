import { HttpError } from "../../errors/http-error.ts";

export type MediaKind = "image" | "audio" | "video" | "document";

const DOCUMENT_TYPES = new Set([
  "application/pdf",
  "application/json",
  "application/xml",
  "application/msword",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  "application/vnd.ms-excel",
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  "application/vnd.openxmlformats-officedocument.presentationml.presentation",
]);

const BY_EXTENSION: Record<string, [MediaKind, string]> = {
  png: ["image", "image/png"],
  jpg: ["image", "image/jpeg"],
  jpeg: ["image", "image/jpeg"],
  gif: ["image", "image/gif"],
  webp: ["image", "image/webp"],
  mp3: ["audio", "audio/mpeg"],
  wav: ["audio", "audio/wav"],
  ogg: ["audio", "audio/ogg"],
  m4a: ["audio", "audio/mp4"],
  mp4: ["video", "video/mp4"],
  webm: ["video", "video/webm"],
  mov: ["video", "video/quicktime"],
  pdf: ["document", "application/pdf"],
  txt: ["document", "text/plain"],
  md: ["document", "text/markdown"],
  csv: ["document", "text/csv"],
  json: ["document", "application/json"],
  html: ["document", "text/html"],
  xml: ["document", "application/xml"],
  docx: ["document", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"],
  xlsx: ["document", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"],
};

/** Classifies an upload by MIME type, falling back to its extension, as Agno does; null when unsupported. */
export function classifyUpload(file: { name: string; type: string }): { kind: MediaKind; mediaType: string } | null {
  const type = (file.type || "").split(";")[0].trim().toLowerCase();
  if (type.startsWith("image/")) return { kind: "image", mediaType: type };
  if (type.startsWith("audio/")) return { kind: "audio", mediaType: type };
  if (type.startsWith("video/")) return { kind: "video", mediaType: type };
  if (type.startsWith("text/") || DOCUMENT_TYPES.has(type)) return { kind: "document", mediaType: type };
  const extension = file.name.toLowerCase().split(".").pop() ?? "";
  const known = BY_EXTENSION[extension];
  return known ? { kind: known[0], mediaType: known[1] } : null;
}

/**
 * Reads and classifies the run's uploaded files: the model gets them as image or file parts, the
 * run records their names, types and sizes. An unsupported type is a 400 naming the file.
 */
export async function classifyUploads(files: File[]) {
  const attachments: { kind: "image" | "file"; data: Uint8Array; mediaType: string; filename: string }[] = [];
  const media: { images: unknown[]; files: unknown[]; audios: unknown[]; videos: unknown[] } = { images: [], files: [], audios: [], videos: [] };
  for (const file of files) {
    const classified = classifyUpload(file);
    if (!classified) throw new HttpError(400, `Unsupported file type: '${file.name}' (${file.type || "no content type"})`);
    const data = new Uint8Array(await file.arrayBuffer());
    attachments.push({ kind: classified.kind === "image" ? "image" : "file", data, mediaType: classified.mediaType, filename: file.name });
    const record = { name: file.name, mime_type: classified.mediaType, size: data.byteLength };
    ({ image: media.images, audio: media.audios, video: media.videos, document: media.files })[classified.kind].push(record);
  }
  const recorded = Object.fromEntries(Object.entries(media).filter(([, list]) => list.length > 0));
  return { attachments, media: recorded };
}
