"use client";

import { useRef, useState } from "react";
import { textInput } from "@/components/dashboard/form-field.tsx";
import { useKeepingForm } from "@/components/dashboard/use-keeping-form.ts";
import { ActionResult } from "@/components/dashboard/users/action-result.tsx";
import { DEFAULT_EXPIRY, EXPIRY_CHOICES, type CreatedServiceAccountState, type ExpiryChoice } from "@/lib/http/dashboard/service-account-form.ts";

type CreateAction = (previous: CreatedServiceAccountState, formData: FormData) => Promise<CreatedServiceAccountState>;

const EXPIRY_LABELS: Record<ExpiryChoice, string> = { "30": "30 days", "90": "90 days", "365": "1 year", never: "Never" };

/**
 * Creates a service account. The form keeps what was typed when the server refuses it (it is
 * submitted by hand, not reset by React), and empties itself once the account exists.
 */
export function ServiceAccountCreateForm({ action }: { action: CreateAction }) {
  const { ref, onSubmit, state, pending } = useKeepingForm(action, { ok: null });
  return (
    <div>
      <form ref={ref} onSubmit={onSubmit} className="grid gap-3 md:grid-cols-2">
        <div>
          <label htmlFor="sa-name" className="mb-1 block text-sm font-medium">
            Name
          </label>
          <input id="sa-name" name="name" required maxLength={128} placeholder="ci-deploy" className={textInput} />
        </div>
        <div>
          <label htmlFor="sa-expires" className="mb-1 block text-sm font-medium">
            Expires after
          </label>
          <select id="sa-expires" name="expires" defaultValue={DEFAULT_EXPIRY} className={textInput}>
            {EXPIRY_CHOICES.map((choice) => (
              <option key={choice} value={choice}>
                {EXPIRY_LABELS[choice]}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor="sa-allow" className="mb-1 block text-sm font-medium">
            Allowed scopes
          </label>
          <textarea id="sa-allow" name="allow" required rows={3} placeholder="agents:read agents:run sessions:read" aria-describedby="sa-scopes-hint" className={`${textInput} font-mono`} />
        </div>
        <div>
          <label htmlFor="sa-deny" className="mb-1 block text-sm font-medium">
            Denied scopes <span className="font-normal text-slate-500">(optional; a deny wins over any allow)</span>
          </label>
          <textarea id="sa-deny" name="deny" rows={3} placeholder="agents:secret:run" aria-describedby="sa-scopes-hint" className={`${textInput} font-mono`} />
        </div>
        <p id="sa-scopes-hint" className="text-xs text-slate-500 md:col-span-2">
          Separate scopes with spaces, commas or new lines: <code>resource:action</code>, <code>resource:&lt;id&gt;:action</code> or <code>resource:*</code>.
        </p>
        <label className="flex items-start gap-2 text-sm md:col-span-2">
          <input type="checkbox" name="allowPrivileged" className="mt-0.5" />
          <span>
            Allow privileged scopes <span className="text-slate-500">(agent_os:admin, config:write, service_accounts:*: control of the whole OS or of credentials)</span>
          </span>
        </label>
        <div className="md:col-span-2">
          <button
            type="submit"
            disabled={pending}
            className="h-9 rounded bg-slate-900 px-3 text-sm font-medium text-white hover:bg-slate-700 disabled:opacity-60 dark:bg-slate-100 dark:text-slate-900"
          >
            {pending ? "Creating…" : "Create service account"}
          </button>
        </div>
      </form>
      {state.ok === false && <ActionResult state={state} />}
      {state.ok && state.token && <TokenOnce key={state.token} message={state.message} token={state.token} />}
    </div>
  );
}

/** The new token, shown this once: copy it, then put it away for good. */
function TokenOnce({ message, token }: { message?: string; token: string }) {
  const [copied, setCopied] = useState(false);
  const [hidden, setHidden] = useState(false);
  const field = useRef<HTMLInputElement>(null);
  if (hidden) return <p className="mt-3 text-sm text-slate-500">The token is hidden and cannot be shown again.</p>;
  return (
    <div role="status" className="mt-4 rounded border border-amber-400 bg-amber-50 p-3 text-sm text-amber-900 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-100">
      <p className="font-medium">{message}</p>
      <div className="mt-2 flex gap-2">
        <input
          ref={field}
          aria-label="New service-account token"
          data-testid="service-account-token"
          readOnly
          value={token}
          onFocus={(event) => event.currentTarget.select()}
          className="w-full min-w-0 rounded border border-amber-300 bg-white px-2 py-1 font-mono text-xs text-slate-900 dark:border-amber-800 dark:bg-slate-950 dark:text-slate-100"
        />
        <button
          type="button"
          // Without clipboard access (an insecure origin, a refused permission) the token is selected to copy by hand.
          onClick={() =>
            void (navigator.clipboard?.writeText(token) ?? Promise.reject(new Error("no clipboard"))).then(
              () => setCopied(true),
              () => field.current?.select(),
            )
          }
          className="shrink-0 rounded border border-amber-400 px-2 py-1 text-xs hover:bg-amber-100 dark:border-amber-700 dark:hover:bg-amber-900"
        >
          {copied ? "Copied" : "Copy"}
        </button>
      </div>
      <p className="mt-2">
        Send it in the <code>Authorization: Bearer &lt;token&gt;</code> header. Only its hash is stored: if it is lost, revoke the account and create another.{" "}
        <button type="button" onClick={() => setHidden(true)} className="underline">
          I have copied it
        </button>
      </p>
    </div>
  );
}
