import { acceptInviteAction } from "@/app/dashboard/_actions/auth.ts";
import { OneTimeLinkCard } from "@/components/dashboard/one-time-link-card.tsx";
import { openOneTimeLink, type TokenPageProps } from "@/lib/http/dashboard/one-time-link.ts";

export const dynamic = "force-dynamic";

/** An invite link: the invitee names themself and chooses a password. */
export default async function InvitePage({ params }: TokenPageProps) {
  const opened = await openOneTimeLink(params, "invite");
  return (
    <OneTimeLinkCard
      opened={opened}
      invalidTitle="Invite link not valid"
      title={`Join ${opened.settings.name}`}
      subtitle={(email) => (
        <>
          Create the account for <strong>{email}</strong>.
        </>
      )}
      action={acceptInviteAction}
      submitLabel="Create account"
      askName
    />
  );
}
