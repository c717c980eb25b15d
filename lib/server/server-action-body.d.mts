import type { IncomingMessage } from "node:http";

/** The largest server action request body, in bytes: Next.js's default `serverActions.bodySizeLimit` ("1 MB", 1024 × 1024). */
export const SERVER_ACTION_BODY_LIMIT_BYTES: number;

/** The `detail` of the 413 answered to a server action body over the limit. */
export const BODY_TOO_LARGE_DETAIL: string;

/** Whether Next.js may handle a request as a server action (a POST with `Next-Action`, or a multipart POST to a dashboard page). */
export function mayBeServerAction(request: { method: string | undefined; path: string; contentType: string; hasActionHeader: boolean }): boolean;

/** Whether a `content-length` announces a body over the limit. */
export function announcedTooLarge(contentLength: string | null | undefined): boolean;

/** Why Next.js could not decode a server action body (the `detail` of a 400), or null. */
export function serverActionBodyProblem(request: { contentType: string; hasActionHeader: boolean; body: Uint8Array }): Promise<string | null>;

/** Whether Next.js may handle this request as a server action ({@link mayBeServerAction}). */
export function isServerActionRequest(request: IncomingMessage): boolean;

/**
 * Screens a request Next.js may handle as a server action: a refusal (413 past the body limit, 400
 * for a body Next could not decode), `closed` when the client went away before sending its body, or
 * the request to hand to Next: one like it carrying the body read here.
 */
export function screenServerAction(request: IncomingMessage): Promise<{ refusal: { status: 400 | 413; detail: string } } | { closed: true } | { request: IncomingMessage }>;
