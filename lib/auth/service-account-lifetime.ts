import { HttpError, validationError } from "../errors/http-error.ts";
import type { Principal } from "./principal.ts";
import { isAdminCaller } from "./service-account-scopes.ts";

/** Lifetime of a token when the request names none and does not ask for `never_expires`. */
export const DEFAULT_EXPIRES_IN_DAYS = 90;

/**
 * How many days a new service-account token lives (null: it never expires), or the refusal.
 *
 * An admin chooses freely: `never_expires`, `expires_in_days`, or the 90-day default. Anyone else
 * gets a token that ends: `never_expires` is 403, `expires_in_days` above `maxDays` (the
 * configured `auth.serviceAccountMaxDays`) is 422 naming the field and the cap, and no
 * `expires_in_days` means the default, shortened to `maxDays` when that is lower. So a short-lived
 * credential cannot turn itself into a permanent one.
 */
export function serviceAccountLifetimeDays({
  caller,
  expiresInDays,
  neverExpires,
  maxDays,
}: {
  caller: Principal;
  expiresInDays: number | null | undefined;
  neverExpires: boolean;
  maxDays: number;
}): number | null {
  if (isAdminCaller(caller)) return neverExpires ? null : (expiresInDays ?? DEFAULT_EXPIRES_IN_DAYS);
  if (neverExpires) {
    throw new HttpError(403, `never_expires: only an admin can create a token that never expires; yours may last at most ${maxDays} days (expires_in_days)`);
  }
  if (expiresInDays === null || expiresInDays === undefined) return Math.min(DEFAULT_EXPIRES_IN_DAYS, maxDays);
  if (expiresInDays > maxDays) {
    throw validationError([
      {
        type: "less_than_equal",
        loc: ["body", "expires_in_days"],
        msg: `expires_in_days: at most ${maxDays} days for a token created by a non-admin (auth.serviceAccountMaxDays)`,
        input: expiresInDays,
      },
    ]);
  }
  return expiresInDays;
}
