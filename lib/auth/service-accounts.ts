import type { Settings } from "../config/settings.ts";
import { unsafeSystemScope, type DataScope } from "../db/scope.ts";
import { LAST_USED_RESOLUTION_SECONDS, touchLastUsed, unsafeFindServiceAccountByTokenHash, type StoredServiceAccount } from "../db/service-accounts/service-accounts.ts";
import { unsafeSessionUser } from "../db/users/users.ts";
import type { Db } from "../db/open-database.ts";
import { HttpError } from "../errors/http-error.ts";
import { log } from "../log.ts";
import type { Principal } from "./principal.ts";
import { effectiveScopes } from "./service-account-scopes.ts";
import { hashServiceAccountToken, isWellFormedServiceAccountToken } from "./service-account-tokens.ts";

export { SERVICE_ACCOUNT_TOKEN_PREFIX } from "./service-account-tokens.ts";

/** The user id a service account acts as: `sa:<id>` (ids are stable; names are reused after revocation). */
export const serviceAccountUserId = (accountId: string) => `sa:${accountId}`;

/**
 * The principal of a service account. Never an admin: even with `agent_os:admin` granted (which
 * passes every scope check but a denied one) its data is always self-scoped to `sa:<id>`, as in
 * Agno, so it sees only rows it wrote itself — not its owner's, not anyone else's.
 */
export function serviceAccountPrincipal(account: StoredServiceAccount): Principal {
  const { scopes, deniedScopes } = effectiveScopes(account.scopes);
  const principal: Principal = {
    kind: "service_account",
    userId: serviceAccountUserId(account.id),
    scopes,
    deniedScopes,
    authenticatedBy: "service_account",
    isAdmin: false,
    isolated: true,
  };
  return Object.freeze(principal);
}

/** The scope of the account's owner (an admin-created account may have none). */
function ownerScope(account: StoredServiceAccount): DataScope {
  return unsafeSystemScope("recording a token's use while authenticating it: there is no principal yet", { actingAs: account.user_id });
}

/**
 * The principal of an `agno_pat_…` bearer token, in every auth mode (its scopes are enforced even
 * when the mode trusts everyone else as admin). 401s: unknown or malformed → "Invalid
 * authentication token"; revoked; expired. Records the use at most once a minute per account.
 */
export async function authenticateServiceAccount(token: string, _settings: Settings, database: () => Promise<Db>): Promise<Principal> {
  if (!isWellFormedServiceAccountToken(token)) throw new HttpError(401, "Invalid authentication token");
  const db = await database();
  const account = await unsafeFindServiceAccountByTokenHash(db, hashServiceAccountToken(token));
  if (!account) throw new HttpError(401, "Invalid authentication token");
  const now = Math.floor(Date.now() / 1000);
  if (account.revoked_at !== null) throw new HttpError(401, "Service account token has been revoked");
  if (account.expires_at !== null && account.expires_at <= now) throw new HttpError(401, "Service account token has expired");
  // A token never outlives its owner's access: a disabled dashboard user's tokens stop working.
  if (account.user_id) {
    const owner = await unsafeSessionUser(db, account.user_id);
    if (owner && owner.disabledAt !== null) throw new HttpError(401, "Service account token belongs to a disabled user");
  }
  // Skip the write entirely while the stored time is fresh; the UPDATE is conditional as well.
  if (account.last_used_at === null || account.last_used_at <= now - LAST_USED_RESOLUTION_SECONDS) {
    await touchLastUsed(db, { scope: ownerScope(account), id: account.id, now }).catch((error: unknown) => {
      log.warn(`[auth] could not record the use of service account ${account.id}: ${(error as Error).message}`);
    });
  }
  return serviceAccountPrincipal(account);
}
