import "server-only";
import NextAuth from "next-auth";
import { headers } from "next/headers";
import { authSecret } from "../../auth/dashboard/auth-secret.ts";
import { buildAuthConfig } from "../../auth/dashboard/auth-config.ts";
import { getDatabase, getSettings } from "../../server/app-context.ts";

/**
 * The dashboard's Auth.js instance. The configuration is built per request: the secret may come
 * from the database (first use generates it), and cookies are Secure when served over https.
 */
export const { handlers, signIn, signOut } = NextAuth(async (request) => {
  const settings = getSettings();
  const db = await getDatabase(settings);
  const proto = request ? request.nextUrl.protocol : `${(await headers()).get("x-forwarded-proto") ?? "http"}:`;
  return buildAuthConfig({ settings, db, secret: await authSecret(settings, db), secure: proto === "https:" });
});
