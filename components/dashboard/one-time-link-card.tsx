import type { ReactNode } from "react";
import type { AuthFormState } from "@/lib/http/dashboard/action.ts";
import type { OneTimeLink } from "@/lib/http/dashboard/one-time-link.ts";
import { AuthCard } from "./auth-card.tsx";
import { NewPasswordForm } from "./new-password-form.tsx";

/**
 * The page a one-time link opens (an invite, a password reset): the new-password form for the
 * link's user, or, for a link no longer live, why and what to do.
 */
export function OneTimeLinkCard({
  opened,
  invalidTitle,
  title,
  subtitle,
  action,
  submitLabel,
  askName = false,
}: {
  opened: OneTimeLink;
  invalidTitle: string;
  title: string;
  subtitle: (email: string) => ReactNode;
  action: (previous: AuthFormState, formData: FormData) => Promise<AuthFormState>;
  submitLabel: string;
  askName?: boolean;
}) {
  if (!opened.link) return <AuthCard title={invalidTitle} subtitle="This link is invalid, expired or already used. Ask an admin for a new one." />;
  return (
    <AuthCard title={title} subtitle={subtitle(opened.link.email)}>
      <NewPasswordForm action={action} submitLabel={submitLabel} askName={askName} token={opened.token} minLength={opened.minLength} />
    </AuthCard>
  );
}
