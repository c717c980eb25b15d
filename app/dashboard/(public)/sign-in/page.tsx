import { redirect } from "next/navigation";
import { signInAction, oauthSignInAction } from "@/app/dashboard/_actions/auth.ts";
import { AuthCard } from "@/components/dashboard/auth-card.tsx";
import { SignInForm } from "@/components/dashboard/sign-in-form.tsx";
import { setupIsOpen } from "@/lib/auth/dashboard/account-setup.ts";
import { oauthProviderInfo } from "@/lib/auth/dashboard/oauth-provider-info.ts";
import { getDatabase, getSettings } from "@/lib/server/app-context.ts";
import { currentDashboardSession } from "@/lib/http/dashboard/current-user.ts";

export const dynamic = "force-dynamic";

/** Auth.js sends failed OAuth sign-ins back here with `?error=`; the message stays generic. */
const OAUTH_ERROR = "That account cannot sign in here. Ask an admin for an invite.";

export default async function SignInPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const settings = getSettings();
  if (await setupIsOpen(await getDatabase(settings))) redirect("/dashboard/setup");
  if (await currentDashboardSession()) redirect("/dashboard");
  const { error } = await searchParams;
  const providers = oauthProviderInfo(settings.dashboard);
  return (
    <AuthCard title={`Sign in to ${settings.name}`}>
      {error && error !== "CredentialsSignin" && (
        <p role="alert" className="mb-4 rounded border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-800 dark:border-red-800 dark:bg-red-950 dark:text-red-200">
          {OAUTH_ERROR}
        </p>
      )}
      <SignInForm action={signInAction} />
      {providers.length > 0 && (
        <div className="mt-5 border-t border-slate-200 pt-5 dark:border-slate-800">
          {providers.map((provider) => (
            <form key={provider.id} action={oauthSignInAction} className="mb-2">
              <input type="hidden" name="provider" value={provider.id} />
              <button type="submit" className="w-full rounded border border-slate-300 px-3 py-2 text-sm hover:bg-slate-50 dark:border-slate-700 dark:hover:bg-slate-800">
                Continue with {provider.name}
              </button>
            </form>
          ))}
        </div>
      )}
      <p className="mt-5 text-xs text-slate-500">No account? Ask an admin for an invite link.</p>
    </AuthCard>
  );
}
