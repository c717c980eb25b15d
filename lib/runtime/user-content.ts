import type { ModelSpec } from "../config/define.ts";
import { ModelProviderError } from "../models/model-provider-error.ts";

/** An uploaded file as a run receives it. */
export interface Attachment {
  kind: "image" | "file";
  data: Uint8Array;
  mediaType: string;
  filename: string;
}

/** A part of the user message as stored with the run: JSON all the way down (binary data is base64). */
export type UserContentPart = { type: "text"; text: string } | { type: "image"; image: string; mediaType: string } | { type: "file"; data: string; mediaType: string; filename: string };

/** An upload the agent's model cannot be sent; the caller's to fix (415). */
export class UnsendableAttachmentError extends ModelProviderError {
  constructor(
    readonly filename: string,
    readonly mediaType: string,
    reason: string,
  ) {
    super(`File '${filename}' (${mediaType}) cannot be sent to this model: ${reason}`, "unsupported_input");
  }
}

/** Text files (and JSON/XML documents) reach every model as text: their UTF-8 content, labelled with the file's name. */
export function isTextLike(mediaType: string): boolean {
  return mediaType.startsWith("text/") || /^application\/([a-z0-9.-]+\+)?(json|xml)$/.test(mediaType);
}

/**
 * Binary media each provider's AI SDK model sends as a file part (anything else it refuses before
 * any request): images everywhere; PDFs everywhere but Groq; WAV and MP3 audio through OpenAI's
 * chat API and the servers that speak it (OpenAI-compatible ones, Cerebras); any audio and video
 * to Google Gemini.
 */
const PROVIDER_MEDIA: Record<ModelSpec["provider"], { takes: (mediaType: string) => boolean; says: string }> = {
  openai: { takes: (t) => pdf(t) || wavOrMp3(t), says: "images, PDFs, WAV or MP3 audio and text files" },
  "openai-compatible": { takes: (t) => pdf(t) || wavOrMp3(t), says: "images, PDFs, WAV or MP3 audio and text files" },
  cerebras: { takes: (t) => pdf(t) || wavOrMp3(t), says: "images, PDFs, WAV or MP3 audio and text files" },
  anthropic: { takes: pdf, says: "images, PDFs and text files" },
  mistral: { takes: pdf, says: "images, PDFs and text files" },
  groq: { takes: () => false, says: "images and text files" },
  google: { takes: (t) => pdf(t) || t.startsWith("audio/") || t.startsWith("video/"), says: "images, PDFs, audio, video and text files" },
};

function pdf(mediaType: string): boolean {
  return mediaType === "application/pdf";
}

function wavOrMp3(mediaType: string): boolean {
  return mediaType === "audio/wav" || mediaType === "audio/mpeg" || mediaType === "audio/mp3";
}

function providerTakes(provider: ModelSpec["provider"], mediaType: string): boolean {
  return mediaType.startsWith("image/") || PROVIDER_MEDIA[provider].takes(mediaType);
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

function textOfFile(attachment: Attachment): string {
  try {
    return utf8.decode(attachment.data);
  } catch {
    throw new UnsendableAttachmentError(attachment.filename, attachment.mediaType, "its content is not UTF-8 text");
  }
}

function unsupportedReason(provider: ModelSpec["provider"], mediaType: string): string {
  return `the ${provider} model takes ${PROVIDER_MEDIA[provider].says}, not ${mediaType}`;
}

/**
 * The user message of a run with uploads: the text, then each file as the model takes it — text
 * files as text, images and the media the provider accepts as parts. Throws
 * UnsendableAttachmentError naming the first file the model cannot take.
 */
export function userMessageContent(spec: Pick<ModelSpec, "provider">, text: string, attachments: readonly Attachment[]): UserContentPart[] {
  const parts: UserContentPart[] = [{ type: "text", text }];
  for (const attachment of attachments) {
    const { mediaType, filename } = attachment;
    if (isTextLike(mediaType)) {
      parts.push({ type: "text", text: `File '${filename}' (${mediaType}):\n${textOfFile(attachment)}` });
      continue;
    }
    if (!providerTakes(spec.provider, mediaType)) throw new UnsendableAttachmentError(filename, mediaType, unsupportedReason(spec.provider, mediaType));
    const base64 = Buffer.from(attachment.data).toString("base64");
    parts.push(mediaType.startsWith("image/") ? { type: "image", image: base64, mediaType } : { type: "file", data: base64, mediaType, filename });
  }
  return parts;
}

/**
 * Refuses, before anything is stored, uploads the agent's model cannot be sent
 * (UnsendableAttachmentError). An agent with no model is left to fail as such.
 */
export function refuseUnsendableAttachments(spec: Pick<ModelSpec, "provider"> | null, attachments: readonly Attachment[] | undefined): void {
  if (spec && attachments?.length) userMessageContent(spec, "", attachments);
}
