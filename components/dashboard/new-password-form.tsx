"use client";

import { useActionState } from "react";
import { FormError, FormField, primaryButton } from "./form-field.tsx";
import type { AuthFormState } from "@/lib/http/dashboard/action.ts";

type AuthAction = (previous: AuthFormState, formData: FormData) => Promise<AuthFormState>;

/**
 * A form that ends in a new password: first-run setup (email and name asked), an invite (name
 * asked; the email is the invite's) or a password reset (the link carries everything else).
 */
export function NewPasswordForm({
  action,
  submitLabel,
  askEmail = false,
  askName = false,
  token,
  minLength,
}: {
  action: AuthAction;
  submitLabel: string;
  askEmail?: boolean;
  askName?: boolean;
  token?: string;
  minLength: number;
}) {
  const [state, formAction, pending] = useActionState(action, {});
  return (
    <form action={formAction}>
      <FormError message={state.error} />
      {token && <input type="hidden" name="token" value={token} />}
      {askEmail && <FormField label="Email" id="email" name="email" type="email" autoComplete="username" required defaultValue={state.email} />}
      {askName && <FormField label="Name" id="name" name="name" type="text" autoComplete="name" />}
      <FormField label="Password" id="password" name="password" type="password" autoComplete="new-password" required minLength={minLength} />
      <FormField label="Confirm password" id="confirm" name="confirm" type="password" autoComplete="new-password" required minLength={minLength} />
      <p className="-mt-2 mb-4 text-xs text-slate-500">At least {minLength} characters.</p>
      <button type="submit" className={primaryButton} disabled={pending}>
        {pending ? "Working…" : submitLabel}
      </button>
    </form>
  );
}
