import { randomBytes } from "node:crypto";
import type { Settings } from "../../config/settings.ts";
import type { Db } from "../../db/open-database.ts";
import { getOrCreateSecret } from "../../db/users/secrets.ts";

const SECRET_NAME = "auth_secret";
const cacheKey = Symbol.for("agentry.auth-secret");
type Holder = { [cacheKey]?: Map<string, Promise<string>> };

/**
 * The secret that encrypts dashboard session cookies: AUTH_SECRET when set; otherwise one generated
 * on first use and kept in the database (`agentry_secrets`), so `npm start` works with nothing set
 * and every replica over the same database agrees. Read once per process and database.
 */
export function authSecret(settings: Settings, db: Db): Promise<string> {
  if (settings.dashboard.authSecret) return Promise.resolve(settings.dashboard.authSecret);
  const holder = globalThis as Holder;
  const cache = (holder[cacheKey] ??= new Map());
  const key = `${db.dialect}:${db.location}:${db.schema ?? ""}`;
  let secret = cache.get(key);
  if (!secret) {
    secret = getOrCreateSecret(db, { name: SECRET_NAME, generate: () => randomBytes(32).toString("base64url") });
    cache.set(key, secret);
    secret.catch(() => cache.delete(key));
  }
  return secret;
}
