import { acceptInviteAction } from "@/app/dashboard/_actions/auth.ts";
import { AuthCard } from "@/components/dashboard/auth-card.tsx";
import { NewPasswordForm } from "@/components/dashboard/new-password-form.tsx";
import { describeLink } from "@/lib/auth/dashboard/account-setup.ts";
import { PASSWORD_MIN_LENGTH } from "@/lib/auth/dashboard/password-hash.ts";
import { getDatabase, getSettings } from "@/lib/server/app-context.ts";

export const dynamic = "force-dynamic";

export default async function InvitePage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const settings = getSettings();
  const invite = await describeLink(await getDatabase(settings), { token, purpose: "invite" });
  if (!invite) {
    return <AuthCard title="Invite link not valid" subtitle="This link is invalid, expired or already used. Ask an admin for a new one." />;
  }
  return (
    <AuthCard
      title={`Join ${settings.name}`}
      subtitle={
        <>
          Create the account for <strong>{invite.email}</strong>.
        </>
      }
    >
      <NewPasswordForm action={acceptInviteAction} submitLabel="Create account" askName token={token} minLength={PASSWORD_MIN_LENGTH} />
    </AuthCard>
  );
}
