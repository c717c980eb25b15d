"use client";

import { useActionState } from "react";
import type { AuthFormState } from "@/lib/http/dashboard/action.ts";
import { FormError, FormField, primaryButton } from "./form-field.tsx";

type AuthAction = (previous: AuthFormState, formData: FormData) => Promise<AuthFormState>;

/** Email + password. Every failure shows the same generic message (no user enumeration). */
export function SignInForm({ action }: { action: AuthAction }) {
  const [state, formAction, pending] = useActionState(action, {});
  return (
    <form action={formAction} noValidate={false}>
      <FormError message={state.error} />
      <FormField label="Email" id="email" name="email" type="email" autoComplete="username" required defaultValue={state.email} />
      <FormField label="Password" id="password" name="password" type="password" autoComplete="current-password" required />
      <button type="submit" className={primaryButton} disabled={pending}>
        {pending ? "Signing in…" : "Sign in"}
      </button>
    </form>
  );
}
