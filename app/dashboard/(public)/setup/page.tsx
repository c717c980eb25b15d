import { notFound } from "next/navigation";
import { setupAction } from "@/app/dashboard/_actions/auth.ts";
import { AuthCard } from "@/components/dashboard/auth-card.tsx";
import { NewPasswordForm } from "@/components/dashboard/new-password-form.tsx";
import { setupIsOpen } from "@/lib/auth/dashboard/account-setup.ts";
import { PASSWORD_MIN_LENGTH } from "@/lib/auth/dashboard/password-hash.ts";
import { getDatabase, getSettings } from "@/lib/server/app-context.ts";

export const dynamic = "force-dynamic";

/** First-run setup: exists only while no user does; afterwards it is a 404. */
export default async function SetupPage() {
  const settings = getSettings();
  if (!(await setupIsOpen(await getDatabase(settings)))) notFound();
  return (
    <AuthCard title={`Set up ${settings.name}`} subtitle="Create the first admin account. You can invite others from the dashboard afterwards.">
      <NewPasswordForm action={setupAction} submitLabel="Create admin account" askEmail askName minLength={PASSWORD_MIN_LENGTH} />
    </AuthCard>
  );
}
