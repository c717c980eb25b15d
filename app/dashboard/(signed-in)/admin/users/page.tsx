import { inviteUser, resetLink, revokeInvite, setEnabled, setRole } from "@/app/dashboard/_actions/users.ts";
import { Section } from "@/components/dashboard/section.tsx";
import { InviteForm } from "@/components/dashboard/users/invite-form.tsx";
import { InvitesTable, UsersTable, UserTables } from "@/components/dashboard/users/users-table.tsx";
import { listUsersFor } from "@/lib/auth/dashboard/user-admin.ts";
import { requireDashboardAdmin } from "@/lib/http/dashboard/current-user.ts";

export const dynamic = "force-dynamic";

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

      <UserTables actions={{ setRole, setEnabled, resetLink, revokeInvite }}>
        <Section id="people" title={<>People ({users.length})</>}>
          <UsersTable rows={users.map((u) => ({ id: u.id, email: u.email, name: u.name, role: u.role, disabledAt: u.disabledAt, self: u.id === me.id }))} />
        </Section>
        <Section id="invites" title={<>Pending invites ({invites.length})</>}>
          <InvitesTable rows={invites.map((i) => ({ id: i.id, email: i.email, role: i.role, expiresAt: i.expiresAt }))} />
        </Section>
      </UserTables>
    </main>
  );
}
