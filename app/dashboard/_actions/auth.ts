"use server";

import { AuthError, CredentialsSignin } from "next-auth";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { acceptInvite, resetPassword, setupFirstAdmin } from "@/lib/auth/dashboard/account-setup.ts";
import { ThrottledSignIn } from "@/lib/auth/dashboard/auth-config.ts";
import { oauthProviderInfo } from "@/lib/auth/dashboard/oauth-provider-info.ts";
import { endSessionFromCookies } from "@/lib/auth/dashboard/session.ts";
import { endSessions } from "@/lib/auth/dashboard/user-admin.ts";
import { getDatabase, getSettings } from "@/lib/server/app-context.ts";
import type { AuthFormState } from "@/lib/http/dashboard/action.ts";
import { currentDashboardSession } from "@/lib/http/dashboard/current-user.ts";
import { signIn, signOut } from "@/lib/http/dashboard/next-auth.ts";

/** One message for an unknown email, a wrong password and a disabled account: no user enumeration. */
const INVALID = "Incorrect email or password.";
/** How long a throttled sign-in must wait, in words. */
function throttledMessage(seconds: number): string {
  const wait = seconds < 60 ? `${seconds} second${seconds === 1 ? "" : "s"}` : `${Math.ceil(seconds / 60)} minute${Math.ceil(seconds / 60) === 1 ? "" : "s"}`;
  return `Too many failed sign-in attempts from here. Try again in ${wait}.`;
}

const text = (formData: FormData, name: string) => {
  const value = formData.get(name);
  return typeof value === "string" ? value : "";
};

/** Signs in through Auth.js's Credentials provider; null on success, else the form's error. */
async function credentialsSignIn(email: string, password: string): Promise<string | null> {
  try {
    await signIn("credentials", { email, password, redirect: false });
    return null;
  } catch (error) {
    if (error instanceof ThrottledSignIn) return throttledMessage(error.retryAfterSeconds);
    if (error instanceof CredentialsSignin) return INVALID;
    if (error instanceof AuthError) return INVALID;
    throw error;
  }
}

export async function signInAction(_previous: AuthFormState, formData: FormData): Promise<AuthFormState> {
  const email = text(formData, "email");
  const error = await credentialsSignIn(email, text(formData, "password"));
  if (error) return { error, email };
  redirect("/dashboard");
}

/** Starts an OAuth/OIDC sign-in with a configured provider. */
export async function oauthSignInAction(formData: FormData): Promise<void> {
  const provider = text(formData, "provider");
  if (!oauthProviderInfo(getSettings().dashboard).some((p) => p.id === provider)) redirect("/dashboard/sign-in");
  await signIn(provider, { redirectTo: "/dashboard" });
}

/**
 * Ends this browser's session on the server (so a copy of its cookie stops working on every
 * replica), then clears the cookie. A failure to record the end is an error, not a silent
 * half-sign-out.
 */
export async function signOutAction(): Promise<void> {
  const settings = getSettings();
  await endSessionFromCookies({ cookieHeader: (await headers()).get("cookie"), settings, db: await getDatabase(settings) });
  await signOut({ redirectTo: "/dashboard/sign-in" });
}

/** Ends every session of the signed-in user (all browsers), then this one's cookie. */
export async function signOutEverywhereAction(): Promise<void> {
  const session = await currentDashboardSession();
  if (session) await endSessions(session.db, { principal: session.principal });
  await signOutAction();
}

/** First-run setup: creates the first admin (only while no user exists) and signs them in. */
export async function setupAction(_previous: AuthFormState, formData: FormData): Promise<AuthFormState> {
  const email = text(formData, "email");
  const password = text(formData, "password");
  if (password !== text(formData, "confirm")) return { error: "The passwords do not match.", email };
  const result = await setupFirstAdmin(await getDatabase(getSettings()), { email, name: text(formData, "name"), password });
  if (!result.ok) return { error: result.error, email };
  const error = await credentialsSignIn(result.user.email, password);
  redirect(error ? "/dashboard/sign-in" : "/dashboard");
}

/** Accepts an invite link: creates the account and signs it in. */
export async function acceptInviteAction(_previous: AuthFormState, formData: FormData): Promise<AuthFormState> {
  const password = text(formData, "password");
  if (password !== text(formData, "confirm")) return { error: "The passwords do not match." };
  const result = await acceptInvite(await getDatabase(getSettings()), { token: text(formData, "token"), name: text(formData, "name"), password });
  if (!result.ok) return { error: result.error };
  const error = await credentialsSignIn(result.user.email, password);
  redirect(error ? "/dashboard/sign-in" : "/dashboard");
}

/** Sets a new password through a reset link (every other session ends) and signs in. */
export async function resetPasswordAction(_previous: AuthFormState, formData: FormData): Promise<AuthFormState> {
  const password = text(formData, "password");
  if (password !== text(formData, "confirm")) return { error: "The passwords do not match." };
  const result = await resetPassword(await getDatabase(getSettings()), { token: text(formData, "token"), password });
  if (!result.ok) return { error: result.error };
  const error = await credentialsSignIn(result.user.email, password);
  redirect(error ? "/dashboard/sign-in" : "/dashboard");
}
