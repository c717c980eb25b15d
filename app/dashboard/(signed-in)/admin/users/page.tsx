import { inviteUser, resetLink, revokeInvite, setEnabled, setRole } from "@/app/dashboard/_actions/users.ts";
import { InviteForm } from "@/components/dashboard/users/invite-form.tsx";
import { RevokeInviteButton } from "@/components/dashboard/users/revoke-invite-button.tsx";
import { UserRowActions } from "@/components/dashboard/users/user-row-actions.tsx";
import { listUsersFor } from "@/lib/auth/dashboard/user-admin.ts";
import { requireDashboardAdmin } from "@/lib/http/dashboard/current-user.ts";
import { Section } from "@/components/dashboard/section.tsx";

export const dynamic = "force-dynamic";

const date = (epochSeconds: number) => new Date(epochSeconds * 1000).toISOString().slice(0, 16).replace("T", " ");

/** Admins only (members get a 404): users, pending invites, and the actions on them. */
export default async function AdminUsersPage() {
  const { db, principal, user: me } = await requireDashboardAdmin();
  const { users, invites } = await listUsersFor(db, principal);
  return (
    <main className="mx-auto max-w-5xl p-6">
      <h1 className="mb-6 text-2xl font-semibold">Users</h1>

      <Section id="invite" title="Invite someone">
        <InviteForm action={inviteUser} />
      </Section>

      <Section id="people" title={<>People ({users.length})</>}>
        <table className="w-full text-left text-sm">
          <thead className="text-slate-500">
            <tr>
              <th className="py-2 pr-4 font-medium">Email</th>
              <th className="py-2 pr-4 font-medium">Name</th>
              <th className="py-2 pr-4 font-medium">Role</th>
              <th className="py-2 pr-4 font-medium">Status</th>
              <th className="py-2 font-medium">Actions</th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-200 dark:divide-slate-800">
            {users.map((user) => (
              <tr key={user.id} data-testid={`user-row-${user.email}`} className="align-top">
                <td className="py-2 pr-4">
                  {user.email}
                  {user.id === me.id && <span className="ml-1 text-xs text-slate-500">(you)</span>}
                </td>
                <td className="py-2 pr-4">{user.name ?? "—"}</td>
                <td className="py-2 pr-4">{user.role}</td>
                <td className="py-2 pr-4">{user.disabledAt === null ? "active" : `disabled ${date(user.disabledAt)}`}</td>
                <td className="py-2">
                  <UserRowActions
                    user={{ id: user.id, email: user.email, role: user.role, disabled: user.disabledAt !== null, self: user.id === me.id }}
                    actions={{ setRole, setEnabled, resetLink }}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </Section>

      <Section id="invites" title={<>Pending invites ({invites.length})</>}>
        {invites.length === 0 ? (
          <p className="text-sm text-slate-500">None.</p>
        ) : (
          <table className="w-full text-left text-sm">
            <thead className="text-slate-500">
              <tr>
                <th className="py-2 pr-4 font-medium">Email</th>
                <th className="py-2 pr-4 font-medium">Role</th>
                <th className="py-2 pr-4 font-medium">Expires (UTC)</th>
                <th className="py-2 font-medium" />
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-200 dark:divide-slate-800">
              {invites.map((invite) => (
                <tr key={invite.id} className="align-top">
                  <td className="py-2 pr-4">{invite.email}</td>
                  <td className="py-2 pr-4">{invite.role}</td>
                  <td className="py-2 pr-4">{date(invite.expiresAt)}</td>
                  <td className="py-2">
                    <RevokeInviteButton inviteId={invite.id} email={invite.email} action={revokeInvite} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Section>
    </main>
  );
}
