import { randomUUID } from "node:crypto";
import type { z } from "zod";
import { serviceAccountLifetimeDays } from "../../auth/service-account-lifetime.ts";
import { assertMayGrant } from "../../auth/service-account-scopes.ts";
import { mintServiceAccountToken } from "../../auth/service-account-tokens.ts";
import { createServiceAccount, listServiceAccounts, revokeServiceAccount, type StoredServiceAccount } from "../../db/index.ts";
import { HttpError } from "../../errors/http-error.ts";
import { defineRoute } from "../route.ts";
import { isoTime, pageOf } from "../schemas/list-query.ts";
import {
  CreateServiceAccountBody,
  CreatedServiceAccountSchema,
  ListServiceAccountsQuery,
  ServiceAccountListSchema,
  ServiceAccountParams,
  type ServiceAccountSchema,
} from "../schemas/service-accounts.ts";

/**
 * Agno's Service Accounts API: service_accounts:write / :read / :delete. Accounts
 * live in the default database. The plaintext token appears in the POST's 201 and nowhere else.
 */

const TAGS = ["Service Accounts"];
const DAY_SECONDS = 86_400;

/**
 * Whose accounts a caller manages: an admin everyone's; anyone else only its own (403 without a
 * user id). Accounts live in the default database. Credentials ignore the single-tenant isolation
 * switch on purpose: no user may list or revoke another's keys.
 */
const ACCOUNT_DATA = { db: "default", isolation: "always" } as const;

function toView(account: StoredServiceAccount, now = Math.floor(Date.now() / 1000)): z.infer<typeof ServiceAccountSchema> {
  return {
    id: account.id,
    name: account.name,
    user_id: account.user_id,
    token_prefix: account.token_prefix,
    scopes: account.scopes,
    created_at: isoTime(account.created_at)!,
    expires_at: isoTime(account.expires_at),
    last_used_at: isoTime(account.last_used_at),
    revoked_at: isoTime(account.revoked_at),
    created_by: account.created_by,
    active: account.revoked_at === null && (account.expires_at === null || account.expires_at > now),
  };
}

export const createServiceAccountRoute = defineRoute({
  method: "POST",
  path: "/service-accounts",
  summary: "Create a service account; its token is returned once, in this response only",
  tags: TAGS,
  access: { permission: "service_accounts:write" },
  body: CreateServiceAccountBody,
  response: CreatedServiceAccountSchema,
  status: 201,
  data: ACCOUNT_DATA,
  handler: async ({ input: { body }, principal, scope, db, settings }) => {
    assertMayGrant({ caller: principal, entries: body.scopes, allowPrivileged: body.allow_privileged_scopes });
    const now = Math.floor(Date.now() / 1000);
    const days = serviceAccountLifetimeDays({
      caller: principal,
      expiresInDays: body.expires_in_days,
      neverExpires: body.never_expires,
      maxDays: settings.auth.serviceAccountMaxDays,
    });
    const minted = mintServiceAccountToken();
    const account = await createServiceAccount(db, {
      scope,
      account: {
        id: randomUUID(),
        name: body.name,
        tokenHash: minted.hash,
        tokenPrefix: minted.prefix,
        scopes: body.scopes,
        expiresAt: days === null ? null : now + days * DAY_SECONDS,
        // An admin's account is its own (none for an identity-less admin, so only admins see it).
        userId: principal.userId,
        createdBy: principal.userId ?? `admin:${principal.authenticatedBy}`,
        now,
      },
    });
    return { ...toView(account, now), token: minted.token };
  },
});

export const listServiceAccountsRoute = defineRoute({
  method: "GET",
  path: "/service-accounts",
  summary: "List service accounts (your own; an admin sees all), paginated and sorted",
  tags: TAGS,
  access: { permission: "service_accounts:read" },
  query: ListServiceAccountsQuery,
  response: ServiceAccountListSchema,
  data: ACCOUNT_DATA,
  handler: async ({ input: { query }, scope, db }) => {
    const started = performance.now();
    const { accounts, totalCount } = await listServiceAccounts(db, {
      scope,
      includeRevoked: query.include_revoked,
      page: query.page,
      limit: query.limit,
      sortBy: query.sort_by,
      sortOrder: query.sort_order,
    });
    const now = Math.floor(Date.now() / 1000);
    return pageOf(
      accounts.map((a) => toView(a, now)),
      { page: query.page, limit: query.limit, totalCount, startedMs: started },
    );
  },
});

export const revokeServiceAccountRoute = defineRoute({
  method: "DELETE",
  path: "/service-accounts/{service_account_id}",
  summary: "Revoke a service account (its token stops working at once; the record is kept)",
  tags: TAGS,
  access: { permission: "service_accounts:delete" },
  params: ServiceAccountParams,
  status: 204,
  data: ACCOUNT_DATA,
  handler: async ({ input: { params }, scope, db }) => {
    const revoked = await revokeServiceAccount(db, { scope, id: params.service_account_id });
    if (!revoked) throw new HttpError(404, `Service account with ID ${params.service_account_id} not found`);
  },
});

export const SERVICE_ACCOUNT_ROUTES = [createServiceAccountRoute, listServiceAccountsRoute, revokeServiceAccountRoute];
