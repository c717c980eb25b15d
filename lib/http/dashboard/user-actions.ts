import { z } from "zod";
import { changeRole, inviteUser, passwordResetLink, setEnabled, withdrawInvite } from "../../auth/dashboard/user-admin.ts";
import { USER_ROLES } from "../../db/users/users.ts";
import { defineDashboardAction } from "./action.ts";

/**
 * The admin console's user-management actions. Each is admin-only twice over: the action checks
 * the caller's principal, and the lib/auth and lib/db functions it calls check it again.
 */
const USERS_PAGE = "/dashboard/admin/users";
const UserId = z.object({ userId: z.string().min(1) });

export const inviteUserAction = defineDashboardAction({
  name: "inviteUser",
  access: "admin",
  input: z.object({ email: z.email(), role: z.enum(USER_ROLES) }),
  revalidate: USERS_PAGE,
  async handler({ input, principal, db, origin }) {
    const { invite, link } = await inviteUser(db, { principal, email: input.email, role: input.role, origin });
    return { ok: true, message: `Invite for ${invite.email} (${invite.role}). Copy the link now: it is shown once.`, link };
  },
});

export const setRoleAction = defineDashboardAction({
  name: "setRole",
  access: "admin",
  input: UserId.extend({ role: z.enum(USER_ROLES) }),
  revalidate: USERS_PAGE,
  async handler({ input, principal, db }) {
    const user = await changeRole(db, { principal, userId: input.userId, role: input.role });
    return { ok: true, message: `${user.email} is now ${user.role === "admin" ? "an admin" : "a member"}.` };
  },
});

export const setEnabledAction = defineDashboardAction({
  name: "setEnabled",
  access: "admin",
  input: UserId.extend({ enabled: z.enum(["true", "false"]).transform((v) => v === "true") }),
  revalidate: USERS_PAGE,
  async handler({ input, principal, db }) {
    const user = await setEnabled(db, { principal, userId: input.userId, enabled: input.enabled });
    return { ok: true, message: user.disabledAt === null ? `${user.email} is enabled.` : `${user.email} is disabled; their sessions have ended.` };
  },
});

export const resetLinkAction = defineDashboardAction({
  name: "resetLink",
  access: "admin",
  input: UserId,
  revalidate: USERS_PAGE,
  async handler({ input, principal, db, origin }) {
    const { link } = await passwordResetLink(db, { principal, userId: input.userId, origin });
    return { ok: true, message: "Password-reset link (valid 24 hours, shown once):", link };
  },
});

export const revokeInviteAction = defineDashboardAction({
  name: "revokeInvite",
  access: "admin",
  input: z.object({ inviteId: z.string().min(1) }),
  revalidate: USERS_PAGE,
  async handler({ input, principal, db }) {
    await withdrawInvite(db, { principal, inviteId: input.inviteId });
    return { ok: true, message: "Invite withdrawn." };
  },
});
