import { randomUUID } from "node:crypto";
import { z } from "zod";
import { SCOPE_PATTERN, assertMayGrant, isPrivilegedScope } from "../../auth/service-account-scopes.ts";
import { mintServiceAccountToken } from "../../auth/service-account-tokens.ts";
import { NotFoundError } from "../../errors/domain-errors.ts";
import { createServiceAccount, revokeServiceAccount, type ScopeEntry } from "../../db/service-accounts/service-accounts.ts";
import { HttpError, type ValidationItem } from "../../errors/http-error.ts";
import { defineDashboardAction, type ActionState } from "./action.ts";
import { DEFAULT_EXPIRY, EXPIRY_CHOICES, type CreatedServiceAccountState } from "./service-account-form.ts";

/**
 * The admin console's service-account actions (admins only; the API's POST/DELETE
 * /service-accounts do the same for API callers). The plaintext token is in the create action's
 * answer and nowhere else: only its hash is stored, and no page can show it again.
 */
const ACCOUNTS_PAGE = "/dashboard/admin/service-accounts";
const DAY_SECONDS = 86_400;

/** A list of scopes, separated by commas, spaces or new lines; each must be a valid scope. */
const ScopeList = z
  .string()
  .optional()
  .transform((value, ctx) => {
    const scopes = [...new Set((value ?? "").split(/[\s,]+/).filter(Boolean))];
    const bad = scopes.filter((scope) => !SCOPE_PATTERN.test(scope));
    if (bad.length > 0) {
      ctx.addIssue({
        code: "custom",
        message: `${bad.map((s) => `'${s}'`).join(", ")} ${bad.length === 1 ? "is not a scope" : "are not scopes"}: write resource:action (agents:run), resource:<id>:action or resource:*`,
      });
      return z.NEVER;
    }
    return scopes;
  });

const CreateServiceAccountForm = z.object({
  name: z.string({ error: "give the account a name" }).trim().min(1, "give the account a name").max(128, "at most 128 characters"),
  allow: ScopeList.refine((scopes) => scopes.length > 0, "name at least one scope the account may use"),
  deny: ScopeList,
  expires: z.enum(EXPIRY_CHOICES, { error: `choose one of ${EXPIRY_CHOICES.join(", ")}` }).default(DEFAULT_EXPIRY),
  allowPrivileged: z.literal("on", { error: "must be ticked or left out" }).optional(),
});

/** The refusal assertMayGrant would answer the API with, as the form's message. */
function grantRefusal(error: HttpError): ActionState {
  const detail = Array.isArray(error.detail) ? (error.detail as ValidationItem[])[0]?.msg : String(error.detail);
  return { ok: false, status: error.status, error: detail ?? error.message };
}

export const createServiceAccountAction = defineDashboardAction({
  name: "createServiceAccount",
  access: "admin",
  input: CreateServiceAccountForm,
  revalidate: ACCOUNTS_PAGE,
  async handler({ input, principal, scope, db }) {
    const privileged = input.allow.filter(isPrivilegedScope);
    if (privileged.length > 0 && !input.allowPrivileged) {
      const list = privileged.map((s) => `'${s}'`).join(", ");
      return {
        ok: false,
        status: 422,
        error: `allow: ${list} ${privileged.length === 1 ? "is a privileged scope" : "are privileged scopes"} (control of the whole OS or of credentials): tick "Allow privileged scopes" to grant ${privileged.length === 1 ? "it" : "them"}`,
      };
    }
    const entries: ScopeEntry[] = [...input.allow.map((scope) => ({ scope, effect: "allow" as const })), ...input.deny.map((scope) => ({ scope, effect: "deny" as const }))];
    // The same grant rule the API enforces, checked again by its owner.
    try {
      assertMayGrant({ caller: principal, entries, allowPrivileged: input.allowPrivileged === "on" });
    } catch (error) {
      if (error instanceof HttpError) return grantRefusal(error);
      throw error;
    }
    const now = Math.floor(Date.now() / 1000);
    const minted = mintServiceAccountToken();
    const account = await createServiceAccount(db, {
      scope,
      account: {
        id: randomUUID(),
        name: input.name,
        tokenHash: minted.hash,
        tokenPrefix: minted.prefix,
        scopes: entries,
        expiresAt: input.expires === "never" ? null : now + Number(input.expires) * DAY_SECONDS,
        // The creating admin owns the account, as when an admin creates one through the API.
        userId: principal.userId,
        createdBy: principal.userId,
        now,
      },
    });
    const state: CreatedServiceAccountState = {
      ok: true,
      message: `Service account '${account.name}' created. Copy its token now: it is shown only this once and cannot be recovered.`,
      token: minted.token,
    };
    return state;
  },
});

export const revokeServiceAccountAction = defineDashboardAction({
  name: "revokeServiceAccount",
  access: "admin",
  input: z.object({ accountId: z.string({ error: "say which account" }).min(1, "say which account") }),
  revalidate: ACCOUNTS_PAGE,
  async handler({ input, scope, db }) {
    const account = await revokeServiceAccount(db, { scope, id: input.accountId });
    if (!account) throw new NotFoundError(`Service account ${input.accountId} was not found.`);
    return { ok: true, message: `'${account.name}' is revoked: its token no longer works.` };
  },
});
