import { ConfigError } from "./define.ts";
import type { Env } from "./env.ts";

export interface OAuthClient {
  clientId: string;
  clientSecret: string;
}

/** Dashboard sign-in: Auth.js secret, the public URL, and the optional OAuth providers. */
export interface DashboardSettings {
  /** AUTH_SECRET; when absent one is generated once and kept in the database (lib/auth/dashboard/auth-secret.ts). */
  authSecret?: string;
  /** AUTH_URL's origin: the dashboard's public origin behind a proxy (same-origin checks accept it). */
  publicOrigin?: string;
  oauth: {
    github?: OAuthClient;
    google?: OAuthClient;
    oidc?: OAuthClient & { issuer: string; name: string };
  };
}

const MIN_SECRET_LENGTH = 32;

function pair(env: Env, id: keyof Env, secret: keyof Env): OAuthClient | undefined {
  const clientId = env[id] as string | undefined;
  const clientSecret = env[secret] as string | undefined;
  if (!clientId && !clientSecret) return undefined;
  if (!clientId || !clientSecret) throw new ConfigError(`${String(id)} and ${String(secret)} go together: set both or neither`);
  return { clientId, clientSecret };
}

/** Resolves the dashboard's settings from the environment (none of them live in agentry.config.ts). */
export function resolveDashboardSettings(env: Env): DashboardSettings {
  if (env.AUTH_SECRET !== undefined && env.AUTH_SECRET.length < MIN_SECRET_LENGTH) {
    throw new ConfigError(`AUTH_SECRET must be at least ${MIN_SECRET_LENGTH} characters (e.g. \`openssl rand -base64 32\`)`);
  }
  let publicOrigin: string | undefined;
  if (env.AUTH_URL !== undefined) {
    try {
      publicOrigin = new URL(env.AUTH_URL).origin;
    } catch {
      throw new ConfigError(`AUTH_URL '${env.AUTH_URL}' is not a URL (e.g. https://agentry.example.com)`);
    }
  }
  const oidcClient = pair(env, "AUTH_OIDC_ID", "AUTH_OIDC_SECRET");
  if (oidcClient && !env.AUTH_OIDC_ISSUER) throw new ConfigError("AUTH_OIDC_ID and AUTH_OIDC_SECRET need AUTH_OIDC_ISSUER (the issuer URL)");
  if (!oidcClient && env.AUTH_OIDC_ISSUER) throw new ConfigError("AUTH_OIDC_ISSUER needs AUTH_OIDC_ID and AUTH_OIDC_SECRET");
  return {
    authSecret: env.AUTH_SECRET,
    publicOrigin,
    oauth: {
      github: pair(env, "AUTH_GITHUB_ID", "AUTH_GITHUB_SECRET"),
      google: pair(env, "AUTH_GOOGLE_ID", "AUTH_GOOGLE_SECRET"),
      oidc: oidcClient ? { ...oidcClient, issuer: env.AUTH_OIDC_ISSUER!, name: env.AUTH_OIDC_NAME ?? "Single sign-on" } : undefined,
    },
  };
}
