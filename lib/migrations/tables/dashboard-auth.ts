import { col, ix, type TableSpec } from "../ddl.ts";

/**
 * Agentry's own dashboard sign-in tables (Agno has none of these). prisma/schema.prisma models the
 * same tables; the drift test keeps the two in step. Timestamps are epoch seconds unless noted.
 */
export const USERS: TableSpec = {
  name: "agentry_users",
  columns: [
    col.id("id"),
    // Lower-cased on write, so the unique key is case-insensitive.
    col.text("email", true),
    col.text("name"),
    // `scrypt$N$r$p$salt$hash`; NULL for a user who signs in only through an OAuth provider.
    col.text("password_hash"),
    { name: "role", type: "text", notNull: true, default: "'member'" },
    col.bigint("disabled_at"),
    // Bumped to end every session of the user at once (disable, password reset, sign out everywhere).
    { name: "session_version", type: "bigint", notNull: true, default: "1" },
    col.bigint("created_at", true),
    col.bigint("updated_at"),
  ],
  uniques: [{ name: "agentry_users_email_key", columns: ["email"] }],
  indexes: [],
};

/** One-time links (invites, password resets): only the SHA-256 of the token is stored. */
export const USER_TOKENS: TableSpec = {
  name: "agentry_user_tokens",
  columns: [
    col.id("id"),
    col.text("token_hash", true),
    // `invite` | `password_reset`
    col.text("purpose", true),
    // The user a reset is for; NULL for an invite (the user does not exist yet).
    col.text("user_id"),
    col.text("email", true),
    // The role an invite grants.
    col.text("role"),
    col.text("created_by"),
    col.bigint("created_at", true),
    col.bigint("expires_at", true),
    col.bigint("used_at"),
  ],
  uniques: [{ name: "agentry_user_tokens_token_hash_key", columns: ["token_hash"] }],
  indexes: [ix("agentry_user_tokens", "user_id"), ix("agentry_user_tokens", "email")],
};

/**
 * Sign-in attempts, counted per (account, client address) for the backoff and per client address
 * for its overall limit, in the database so every replica throttles alike.
 */
export const LOGIN_ATTEMPTS: TableSpec = {
  name: "agentry_login_attempts",
  columns: [
    col.id("id"),
    // The lower-cased email tried (whether or not such a user exists).
    col.text("account", true),
    col.text("client_address", true),
    // Epoch milliseconds (a success must order before the failures that follow it).
    col.bigint("at", true),
    col.bool("success", true),
  ],
  indexes: [
    ix("agentry_login_attempts", "account", "at"),
    ix("agentry_login_attempts", "account", "client_address", "at"),
    ix("agentry_login_attempts", "client_address", "at"),
    ix("agentry_login_attempts", "at"),
  ],
};

/**
 * Dashboard sessions ended by signing out, by the session id (`sid`) their cookie carries, so a copy
 * of the cookie stops working at once on every replica. A row outlives the longest a revoked
 * cookie could still be valid (`expires_at`, epoch seconds) and is pruned after it.
 */
export const REVOKED_SESSIONS: TableSpec = {
  name: "agentry_revoked_sessions",
  columns: [col.id("session_id"), col.text("user_id", true), col.bigint("revoked_at", true), col.bigint("expires_at", true)],
  indexes: [ix("agentry_revoked_sessions", "expires_at")],
};

/** Secrets the server generates for itself (the Auth.js secret when AUTH_SECRET is unset). */
export const SECRETS: TableSpec = {
  name: "agentry_secrets",
  columns: [col.id("name"), col.text("value", true), col.bigint("created_at", true)],
  indexes: [],
};

export const DASHBOARD_AUTH_TABLES = [USERS, USER_TOKENS, LOGIN_ATTEMPTS, SECRETS, REVOKED_SESSIONS] as const;
