import { z } from "zod";
import { SCOPE_PATTERN } from "../../auth/service-account-scopes.ts";
import { formBool } from "./form-fields.ts";
import { PageQuery, SortOrder, paginated } from "./list-query.ts";

/** Request and response shapes of Agno's Service Accounts API (`/service-accounts`). */

// ── requests ────────────────────────────────────────────────────────────────────────────────

export const ScopeEntrySchema = z.object({
  scope: z.string().regex(SCOPE_PATTERN, "must look like resource:action, resource:<id>:action, resource:*:action or resource:*"),
  effect: z.enum(["allow", "deny"]),
});

/** Longest lifetime a token may be given, in days (ten years). */
export const MAX_EXPIRES_IN_DAYS = 3650;

export const CreateServiceAccountBody = z
  .object({
    name: z.string().trim().min(1).max(128),
    scopes: z.array(ScopeEntrySchema).min(1),
    expires_in_days: z.number().int().min(1).max(MAX_EXPIRES_IN_DAYS).nullish(),
    never_expires: z.boolean().default(false),
    allow_privileged_scopes: z.boolean().default(false),
  })
  .refine((b) => !(b.never_expires && b.expires_in_days != null), {
    path: ["expires_in_days"],
    message: "cannot be combined with never_expires",
  });

export const ListServiceAccountsQuery = z.object({
  include_revoked: formBool(false),
  ...PageQuery,
  sort_by: z.enum(["created_at", "name", "last_used_at", "expires_at"]).default("created_at"),
  sort_order: SortOrder,
});

export const ServiceAccountParams = z.object({ service_account_id: z.string().min(1) });

// ── responses ───────────────────────────────────────────────────────────────────────────────

/** An account as listed: never its token, nor the token's hash. Times are ISO-8601 UTC. */
export const ServiceAccountSchema = z.object({
  id: z.string(),
  name: z.string(),
  user_id: z.string().nullable(),
  token_prefix: z.string().nullable(),
  scopes: z.array(z.object({ scope: z.string(), effect: z.enum(["allow", "deny"]) })),
  created_at: z.string(),
  expires_at: z.string().nullable(),
  last_used_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
  created_by: z.string().nullable(),
  /** Not revoked and not expired. */
  active: z.boolean(),
});

/** The 201 of POST /service-accounts: the one and only time the plaintext `token` is shown. */
export const CreatedServiceAccountSchema = ServiceAccountSchema.extend({ token: z.string() });

export const ServiceAccountListSchema = paginated(ServiceAccountSchema);
