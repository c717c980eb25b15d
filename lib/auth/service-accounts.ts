import type { Settings } from "../config/settings.ts";
import { HttpError } from "../http/errors.ts";
import type { Principal } from "./principal.ts";

/** Service-account tokens (the hosted API's keys) start with this. */
export const SERVICE_ACCOUNT_TOKEN_PREFIX = "agno_pat_";

/**
 * The principal of a service-account token. Until service accounts are stored here, every such
 * token is unknown: 401, never a fallback to another mode.
 */
export async function authenticateServiceAccount(_token: string, _settings: Settings): Promise<Principal> {
  throw new HttpError(401, "Invalid authentication token");
}
