"use client";

import { useActionState, useRef, useTransition, type FormEvent } from "react";

/**
 * A server action behind a form that keeps what was typed when the server refuses it and empties
 * itself once it succeeds. React resets a form after every action submitted through `action=`,
 * so the form is submitted by hand instead: pass `ref` and `onSubmit` to the <form>.
 */
export function useKeepingForm<S extends { ok: boolean | null }>(action: (previous: S, formData: FormData) => Promise<S>, initial: Awaited<S>) {
  const ref = useRef<HTMLFormElement>(null);
  const [, startTransition] = useTransition();
  const [state, dispatch, pending] = useActionState<S, FormData>(async (previous: Awaited<S>, formData: FormData): Promise<S> => {
    const result = await action(previous, formData);
    if (result.ok) ref.current?.reset();
    return result;
  }, initial);
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const formData = new FormData(event.currentTarget);
    startTransition(() => dispatch(formData));
  };
  return { ref, onSubmit, state, pending };
}
