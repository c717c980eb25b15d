import type { DashboardSettings } from "../../config/dashboard-settings.ts";

/** An OAuth/OIDC provider the sign-in page offers (only those whose variables are set). */
export interface OAuthProviderInfo {
  id: string;
  name: string;
  /** Where the browser is sent to sign in: the CSP's form-action must allow it. */
  origin: string;
}

export function oauthProviderInfo(dashboard: DashboardSettings): OAuthProviderInfo[] {
  const { github, google, oidc } = dashboard.oauth;
  const out: OAuthProviderInfo[] = [];
  if (github) out.push({ id: "github", name: "GitHub", origin: "https://github.com" });
  if (google) out.push({ id: "google", name: "Google", origin: "https://accounts.google.com" });
  if (oidc) out.push({ id: "oidc", name: oidc.name, origin: new URL(oidc.issuer).origin });
  return out;
}
