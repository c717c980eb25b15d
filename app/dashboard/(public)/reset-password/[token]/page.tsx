import { resetPasswordAction } from "@/app/dashboard/_actions/auth.ts";
import { OneTimeLinkCard } from "@/components/dashboard/one-time-link-card.tsx";
import { openOneTimeLink, type TokenPageProps } from "@/lib/http/dashboard/one-time-link.ts";

export const dynamic = "force-dynamic";

/** A password-reset link: the user chooses a new password, which ends their other sessions. */
export default async function ResetPasswordPage({ params }: TokenPageProps) {
  return (
    <OneTimeLinkCard
      opened={await openOneTimeLink(params, "password_reset")}
      invalidTitle="Reset link not valid"
      title="Choose a new password"
      subtitle={(email) => (
        <>
          For <strong>{email}</strong>. Every other session of this account ends.
        </>
      )}
      action={resetPasswordAction}
      submitLabel="Set password"
    />
  );
}
