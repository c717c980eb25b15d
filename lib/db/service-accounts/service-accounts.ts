import { ConflictError } from "../../errors/domain-errors.ts";
import { parseJson } from "../json.ts";
import type { Db } from "../open-database.ts";
import { pageWindow, type PageRequest } from "../pagination.ts";
import { ownerSql, ownerWhere, unsafeSystemScope, type DataScope } from "../scope.ts";

/**
 * agno_service_accounts: API credentials owned by the user who created them. Only the SHA-256
 * hash of a token is stored (never the token); revoking stamps `revoked_at` and keeps the row.
 */

export type ScopeEffect = "allow" | "deny";
export interface ScopeEntry {
  scope: string;
  effect: ScopeEffect;
}

/** A stored account, without its token hash (nothing outside the authenticator needs it). */
export interface StoredServiceAccount {
  id: string;
  name: string;
  user_id: string | null;
  token_prefix: string | null;
  scopes: ScopeEntry[];
  created_at: number;
  expires_at: number | null;
  last_used_at: number | null;
  revoked_at: number | null;
  created_by: string | null;
}

type AccountRow = Omit<StoredServiceAccount, "scopes" | "created_at" | "expires_at" | "last_used_at" | "revoked_at"> & {
  scopes: unknown;
  created_at: bigint | number;
  expires_at: bigint | number | null;
  last_used_at: bigint | number | null;
  revoked_at: bigint | number | null;
};

const COLUMNS = "id, name, user_id, token_prefix, scopes, created_at, expires_at, last_used_at, revoked_at, created_by";
const num = (v: bigint | number | null) => (v === null ? null : Number(v));

/** Stored scopes as entries; a bare string (older rows) counts as an allow. */
function toEntries(value: unknown): ScopeEntry[] {
  const parsed = parseJson(value);
  if (!Array.isArray(parsed)) return [];
  return parsed.flatMap((e): ScopeEntry[] => {
    if (typeof e === "string") return [{ scope: e, effect: "allow" }];
    if (e && typeof e === "object" && typeof (e as ScopeEntry).scope === "string") {
      return [{ scope: (e as ScopeEntry).scope, effect: (e as ScopeEntry).effect === "deny" ? "deny" : "allow" }];
    }
    return [];
  });
}

function toStored(row: AccountRow): StoredServiceAccount {
  return {
    id: row.id,
    name: row.name,
    user_id: row.user_id,
    token_prefix: row.token_prefix,
    scopes: toEntries(row.scopes),
    created_at: Number(row.created_at),
    expires_at: num(row.expires_at),
    last_used_at: num(row.last_used_at),
    revoked_at: num(row.revoked_at),
    created_by: row.created_by,
  };
}

export interface NewServiceAccount {
  id: string;
  name: string;
  /** SHA-256 hex of the token; the token itself never reaches this layer. */
  tokenHash: string;
  tokenPrefix: string;
  scopes: ScopeEntry[];
  /** Epoch seconds, or null for a token that never expires. */
  expiresAt: number | null;
  /** The creator's principal id (user id, or a label for an identity-less admin). */
  createdBy: string | null;
  /** Admins only: whose account this is (default: the scope's user, or none). */
  userId?: string | null;
  /** Epoch seconds; default now. */
  now?: number;
}

/**
 * Creates an account owned by the scope's user (a non-admin always owns what it creates). One
 * INSERT … ON CONFLICT DO NOTHING: an active account of the same name (the partial unique index)
 * makes it a ConflictError, so two creators racing for a name cannot both win.
 */
export async function createServiceAccount(db: Db, { scope, account }: { scope: DataScope; account: NewServiceAccount }): Promise<StoredServiceAccount> {
  const owner = scope.kind === "user" ? scope.userId : account.userId !== undefined ? account.userId : (scope.userId ?? null);
  const now = account.now ?? Math.floor(Date.now() / 1000);
  const rows = await db.sql.query(
    `INSERT INTO agno_service_accounts (id, name, user_id, token_hash, token_prefix, scopes, created_at, expires_at, last_used_at, revoked_at, created_by)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL, ?)
     ON CONFLICT DO NOTHING
     RETURNING id`,
    [account.id, account.name, owner, account.tokenHash, account.tokenPrefix, account.scopes, now, account.expiresAt, account.createdBy],
  );
  if (rows.length === 0) throw new ConflictError(`A service account named '${account.name}' already exists`);
  return (await getServiceAccount(db, { scope: unsafeSystemScope("the row this insert just wrote"), id: account.id }))!;
}

/** One account within the scope (revoked ones included), or null. */
export async function getServiceAccount(db: Db, { scope, id }: { scope: DataScope; id: string }): Promise<StoredServiceAccount | null> {
  const row = await db.prisma.serviceAccount.findFirst({ where: { id, ...ownerWhere(scope) } });
  return row ? toStored(row as AccountRow) : null;
}

export interface ListServiceAccountsOptions extends PageRequest {
  scope: DataScope;
  /** Default false: revoked accounts are history, shown only on request. */
  includeRevoked?: boolean;
  sortBy?: "created_at" | "name" | "last_used_at" | "expires_at";
  sortOrder?: "asc" | "desc";
}

export async function listServiceAccounts(db: Db, options: ListServiceAccountsOptions): Promise<{ accounts: StoredServiceAccount[]; totalCount: number }> {
  const { take, skip } = pageWindow(options);
  const owner = ownerSql(options.scope);
  const where = [owner.clause, ...(options.includeRevoked ? [] : ["revoked_at IS NULL"])].join(" AND ");
  const sortBy = options.sortBy ?? "created_at";
  const order = options.sortOrder === "asc" ? "ASC" : "DESC";
  // NULLs (never used, never expires) sort last either way, the same on both dialects.
  const [rows, counts] = await Promise.all([
    db.sql.query<AccountRow & Record<string, unknown>>(
      `SELECT ${COLUMNS} FROM agno_service_accounts WHERE ${where}
        ORDER BY (CASE WHEN ${sortBy} IS NULL THEN 1 ELSE 0 END), ${sortBy} ${order}, id ${order}
        ${take !== undefined ? `LIMIT ${take} OFFSET ${skip}` : ""}`,
      owner.params,
    ),
    db.sql.query<{ n: number }>(`SELECT COUNT(*) AS n FROM agno_service_accounts WHERE ${where}`, owner.params),
  ]);
  return { accounts: rows.map(toStored), totalCount: Number(counts[0]?.n ?? 0) };
}

/**
 * Revokes an account within the scope: stamps revoked_at once (a second revoke keeps the first
 * time) and never deletes the row. Returns the account, or null when the scope cannot see it.
 */
export async function revokeServiceAccount(db: Db, { scope, id, now }: { scope: DataScope; id: string; now?: number }): Promise<StoredServiceAccount | null> {
  const owner = ownerSql(scope);
  await db.sql.exec(`UPDATE agno_service_accounts SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL AND ${owner.clause}`, [now ?? Math.floor(Date.now() / 1000), id, ...owner.params]);
  return getServiceAccount(db, { scope, id });
}

/** Accounts' last use is recorded at most this often, so a busy token does not write per request. */
export const LAST_USED_RESOLUTION_SECONDS = 60;

/**
 * Records a use of the account, unless one was recorded within the last minute. Conditional in
 * SQL, so concurrent requests write at most once; reports whether it wrote.
 */
export async function touchLastUsed(db: Db, { scope, id, now }: { scope: DataScope; id: string; now?: number }): Promise<boolean> {
  const at = now ?? Math.floor(Date.now() / 1000);
  const owner = ownerSql(scope);
  const changed = await db.sql.exec(
    `UPDATE agno_service_accounts SET last_used_at = ?
      WHERE id = ? AND (last_used_at IS NULL OR last_used_at <= ?) AND ${owner.clause}`,
    [at, id, at - LAST_USED_RESOLUTION_SECONDS, ...owner.params],
  );
  return changed > 0;
}

/**
 * UNSAFE (unscoped): the authenticator looks a token up before any principal exists. The hash is
 * the lookup key (a unique index), so no secret is compared character by character.
 */
export async function unsafeFindServiceAccountByTokenHash(db: Db, tokenHash: string): Promise<StoredServiceAccount | null> {
  const rows = await db.sql.query<AccountRow & Record<string, unknown>>(`SELECT ${COLUMNS} FROM agno_service_accounts WHERE token_hash = ?`, [tokenHash]);
  return rows[0] ? toStored(rows[0]) : null;
}
