import { randomUUID } from "node:crypto";
import Credentials from "next-auth/providers/credentials";
import { CredentialsSignin, type NextAuthConfig } from "next-auth";
import type { Settings } from "../../config/settings.ts";
import type { Db } from "../../db/open-database.ts";
import { unsafeSessionUser, unsafeSignInRecord, type DashboardUser } from "../../db/users/users.ts";
import { log } from "../../log.ts";
import { clientAddressOf } from "./client-address.ts";
import { checkCredentials } from "./credentials.ts";
import { oauthEmailVerified, oauthProviders } from "./oauth-providers.ts";
import { activeSessionUser, endSession } from "./session.ts";
import { SESSION_COOKIE, SESSION_MAX_AGE, sessionClaimsOf } from "./session-token.ts";

/** Auth.js's routes (OAuth callbacks, CSRF, sign-out) live under the dashboard. */
export const AUTH_BASE_PATH = "/dashboard/auth";
export const SIGN_IN_PATH = "/dashboard/sign-in";

/**
 * Too many failures from this client address (on this account, or on any): the form says when to
 * try again (no enumeration: unknown emails throttle too).
 */
export class ThrottledSignIn extends CredentialsSignin {
  override code = "throttled";
  constructor(readonly retryAfterSeconds: number) {
    super();
  }
}

const MAX_EMAIL = 320;
const MAX_PASSWORD = 1024;

function field(credentials: Partial<Record<string, unknown>>, name: string, max: number): string {
  const value = credentials[name];
  return typeof value === "string" && value.length <= max ? value : "";
}

/**
 * The Auth.js configuration of the dashboard: email + password (scrypt, throttled), OAuth/OIDC
 * providers only when configured, JWT sessions in one HttpOnly cookie. The JWT carries the user id
 * and session version; every session read re-checks them against the database.
 */
export function buildAuthConfig({ settings, db, secret, secure }: { settings: Settings; db: Db; secret: string; secure: boolean }): NextAuthConfig {
  async function userFor(user: { id?: string; email?: string | null }, provider: string | undefined): Promise<DashboardUser | null> {
    if (provider === "credentials") return user.id ? unsafeSessionUser(db, user.id) : null;
    return user.email ? ((await unsafeSignInRecord(db, user.email))?.user ?? null) : null;
  }
  return {
    secret,
    trustHost: true,
    basePath: AUTH_BASE_PATH,
    useSecureCookies: secure,
    session: { strategy: "jwt", maxAge: SESSION_MAX_AGE },
    cookies: {
      sessionToken: { name: SESSION_COOKIE, options: { httpOnly: true, sameSite: "lax", path: "/", secure } },
    },
    pages: { signIn: SIGN_IN_PATH, error: SIGN_IN_PATH },
    providers: [
      Credentials({
        id: "credentials",
        name: "Email and password",
        credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
        async authorize(credentials, request) {
          const result = await checkCredentials(db, {
            email: field(credentials, "email", MAX_EMAIL),
            password: field(credentials, "password", MAX_PASSWORD),
            clientAddress: clientAddressOf(request.headers, settings.auth.trustedProxies),
          });
          if (result.ok) return { id: result.user.id, email: result.user.email, name: result.user.name };
          if (result.reason === "throttled") throw new ThrottledSignIn(result.retryAfterSeconds);
          return null;
        },
      }),
      ...oauthProviders(settings.dashboard),
    ],
    callbacks: {
      async signIn({ user, account, profile }) {
        if (!account || account.type === "credentials") return true;
        // OAuth signs in existing, enabled users only, matched by a verified email: no self-registration.
        if (!oauthEmailVerified(account.provider, profile as Record<string, unknown> | undefined)) return false;
        const existing = await userFor(user, account.provider);
        return !!existing && existing.disabledAt === null;
      },
      async jwt({ token, user, account }) {
        if (user) {
          const signedIn = await userFor(user, account?.provider);
          if (!signedIn || signedIn.disabledAt !== null) return null;
          // A fresh session id per sign-in: signing out revokes this session and no other.
          return { sub: signedIn.id, sv: signedIn.sessionVersion, sid: randomUUID(), name: signedIn.name, email: signedIn.email };
        }
        const claims = sessionClaimsOf(token);
        return claims && (await activeSessionUser(db, claims)) ? token : null;
      },
    },
    events: {
      // Auth.js's own sign-out route clears the cookie; this ends the session server-side too.
      async signOut(message) {
        const claims = "token" in message ? sessionClaimsOf(message.token) : null;
        if (claims) await endSession(db, claims);
      },
    },
    logger: {
      // Auth.js errors name what failed, never credentials; a failed sign-in is routine, not an error.
      error(error) {
        if (error instanceof CredentialsSignin) return;
        log.warn(`[auth] ${error.name}: ${error.message}`);
      },
      warn(code) {
        log.warn(`[auth] warning: ${code}`);
      },
      debug() {},
    },
  };
}
