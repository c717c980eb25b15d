import GitHub from "next-auth/providers/github";
import Google from "next-auth/providers/google";
import type { Provider } from "next-auth/providers";
import type { DashboardSettings } from "../../config/dashboard-settings.ts";

/** Auth.js providers for the OAuth settings that are present. */
export function oauthProviders(dashboard: DashboardSettings): Provider[] {
  const { github, google, oidc } = dashboard.oauth;
  const providers: Provider[] = [];
  if (github) providers.push(GitHub({ clientId: github.clientId, clientSecret: github.clientSecret }));
  if (google) providers.push(Google({ clientId: google.clientId, clientSecret: google.clientSecret }));
  if (oidc) {
    providers.push({
      id: "oidc",
      name: oidc.name,
      type: "oidc",
      issuer: oidc.issuer,
      clientId: oidc.clientId,
      clientSecret: oidc.clientSecret,
    });
  }
  return providers;
}

/**
 * Whether an OAuth profile's email may sign in as the dashboard user with that email: Google and
 * OIDC must say the email is verified; GitHub only exposes verified emails.
 */
export function oauthEmailVerified(providerId: string, profile: Record<string, unknown> | undefined): boolean {
  if (providerId === "github") return true;
  return profile?.email_verified === true || profile?.email_verified === "true";
}
