"use client";

import { useActionState } from "react";
import { ActionResult } from "./action-result.tsx";
import { IDLE_STATE, type UserAction } from "./user-action-types.ts";

const small = "rounded border border-slate-300 px-2 py-1 text-xs hover:bg-slate-50 disabled:opacity-60 dark:border-slate-700 dark:hover:bg-slate-800";

/** Per-user actions: change role, disable/enable, password-reset link. Each shows its own outcome. */
export function UserRowActions({
  user,
  actions,
}: {
  /** `self`: the signed-in admin's own row, which offers no way to demote or disable oneself. */
  user: { id: string; email: string; role: "admin" | "member"; disabled: boolean; self: boolean };
  actions: { setRole: UserAction; setEnabled: UserAction; resetLink: UserAction };
}) {
  const [roleState, roleAction, rolePending] = useActionState(actions.setRole, IDLE_STATE);
  const [enabledState, enabledAction, enabledPending] = useActionState(actions.setEnabled, IDLE_STATE);
  const [resetState, resetAction, resetPending] = useActionState(actions.resetLink, IDLE_STATE);
  const other = user.role === "admin" ? "member" : "admin";
  return (
    <div>
      <div className="flex flex-wrap gap-2">
        {!user.self && (
          <>
            <form action={roleAction}>
              <input type="hidden" name="userId" value={user.id} />
              <input type="hidden" name="role" value={other} />
              <button type="submit" className={small} disabled={rolePending} aria-label={`Make ${user.email} ${other === "admin" ? "an admin" : "a member"}`}>
                {other === "admin" ? "Make admin" : "Make member"}
              </button>
            </form>
            <form action={enabledAction}>
              <input type="hidden" name="userId" value={user.id} />
              <input type="hidden" name="enabled" value={user.disabled ? "true" : "false"} />
              <button type="submit" className={small} disabled={enabledPending} aria-label={`${user.disabled ? "Enable" : "Disable"} ${user.email}`}>
                {user.disabled ? "Enable" : "Disable"}
              </button>
            </form>
          </>
        )}
        <form action={resetAction}>
          <input type="hidden" name="userId" value={user.id} />
          <button type="submit" className={small} disabled={resetPending} aria-label={`Password-reset link for ${user.email}`}>
            Reset link
          </button>
        </form>
      </div>
      <ActionResult state={roleState} />
      <ActionResult state={enabledState} />
      <ActionResult state={resetState} />
    </div>
  );
}
