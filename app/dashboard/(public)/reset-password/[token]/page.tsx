import { resetPasswordAction } from "@/app/dashboard/_actions/auth.ts";
import { AuthCard } from "@/components/dashboard/auth-card.tsx";
import { NewPasswordForm } from "@/components/dashboard/new-password-form.tsx";
import { describeLink } from "@/lib/auth/dashboard/account-setup.ts";
import { PASSWORD_MIN_LENGTH } from "@/lib/auth/dashboard/password-hash.ts";
import { getDatabase, getSettings } from "@/lib/server/app-context.ts";

export const dynamic = "force-dynamic";

export default async function ResetPasswordPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const link = await describeLink(await getDatabase(getSettings()), { token, purpose: "password_reset" });
  if (!link) {
    return <AuthCard title="Reset link not valid" subtitle="This link is invalid, expired or already used. Ask an admin for a new one." />;
  }
  return (
    <AuthCard
      title="Choose a new password"
      subtitle={
        <>
          For <strong>{link.email}</strong>. Every other session of this account ends.
        </>
      }
    >
      <NewPasswordForm action={resetPasswordAction} submitLabel="Set password" token={token} minLength={PASSWORD_MIN_LENGTH} />
    </AuthCard>
  );
}
