import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Principal } from "@/lib/auth/principal.ts";
import { acceptInvite, describeLink, resetPassword } from "@/lib/auth/dashboard/account-setup.ts";
import { checkCredentials } from "@/lib/auth/dashboard/credentials.ts";
import { principalForUser } from "@/lib/auth/dashboard/user-principal.ts";
import { changeRole, endSessions, inviteUser, listUsersFor, passwordResetLink, setEnabled, withdrawInvite } from "@/lib/auth/dashboard/user-admin.ts";
import { PermissionError } from "@/lib/errors/domain-errors.ts";
import { getUser, listUsers } from "@/lib/db/users/users.ts";
import { bumpSessionVersion, setUserDisabled, setUserRole, updateUserName } from "@/lib/db/users/user-writes.ts";
import type { DashboardAction } from "@/lib/http/dashboard/action.ts";
import { inviteUserAction, resetLinkAction, revokeInviteAction, setEnabledAction, setRoleAction } from "@/lib/http/dashboard/user-actions.ts";
import { errorResponse } from "@/lib/http/errors.ts";
import { DIALECTS, openMigrated, type TestDb } from "../support/databases.ts";
import { testSettings } from "../support/settings.ts";
import { PASSWORD, createUser, tokenOf, uniqueEmail } from "./dashboard-support.ts";
import { ACTION_ORIGIN, formOf } from "../support/dashboard-actions.ts";
import { adminScope, userScope } from "../support/scopes.ts";

const settings = testSettings();

describe.each(DIALECTS)("user management on $name", (dialect) => {
  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    let db: TestDb;
    let admin: Principal;
    let member: Principal;
    let memberId: string;
    beforeAll(async () => {
      db = await openMigrated(dialect);
      const adminUser = await createUser(db, { role: "admin" });
      const memberUser = await createUser(db);
      admin = principalForUser(adminUser, settings);
      member = principalForUser(memberUser, settings);
      memberId = memberUser.id;
    });
    afterAll(async () => db?.destroy());

    it("every admin-only lib function refuses a member (PermissionError, a 403 at the edge)", async () => {
      const other = await createUser(db);
      const attempts: [string, () => Promise<unknown>][] = [
        ["listUsersFor", () => listUsersFor(db, member)],
        ["inviteUser", () => inviteUser(db, { principal: member, email: uniqueEmail("x"), role: "admin", origin: ACTION_ORIGIN })],
        ["changeRole", () => changeRole(db, { principal: member, userId: memberId, role: "admin" })],
        ["setEnabled", () => setEnabled(db, { principal: member, userId: other.id, enabled: false })],
        ["passwordResetLink", () => passwordResetLink(db, { principal: member, userId: other.id, origin: ACTION_ORIGIN })],
        ["withdrawInvite", () => withdrawInvite(db, { principal: member, inviteId: "any" })],
        ["endSessions of another", () => endSessions(db, { principal: member, userId: other.id })],
        ["listUsers (lib/db)", () => listUsers(db, { scope: userScope(memberId) })],
        ["setUserRole (lib/db)", () => setUserRole(db, { scope: userScope(memberId), userId: memberId, role: "admin" })],
        ["setUserDisabled (lib/db)", () => setUserDisabled(db, { scope: userScope(memberId), userId: other.id, disabled: true })],
      ];
      for (const [name, attempt] of attempts) {
        const error = await attempt().then(
          () => null,
          (e: unknown) => e,
        );
        expect(error, name).toBeInstanceOf(PermissionError);
        expect(errorResponse(error).status, name).toBe(403);
      }
      // Nothing changed.
      expect(await getUser(db, { scope: adminScope(), userId: memberId })).toMatchObject({ role: "member" });
      expect(await getUser(db, { scope: adminScope(), userId: other.id })).toMatchObject({ disabledAt: null });
      // A member reads only itself.
      expect(await getUser(db, { scope: userScope(memberId), userId: other.id })).toBeNull();
      expect(await getUser(db, { scope: userScope(memberId), userId: memberId })).toMatchObject({ id: memberId });
    });

    it("every admin server action refuses a member (403) and an anonymous caller (401), changing nothing", async () => {
      const other = await createUser(db);
      const calls: [DashboardAction, Record<string, string>][] = [
        [inviteUserAction, { email: uniqueEmail("y"), role: "admin" }],
        [setRoleAction, { userId: memberId, role: "admin" }],
        [setEnabledAction, { userId: other.id, enabled: "false" }],
        [resetLinkAction, { userId: other.id }],
        [revokeInviteAction, { inviteId: "any" }],
      ];
      for (const [action, fields] of calls) {
        expect(await action.run({ principal: member, formData: formOf(fields), db, settings, origin: ACTION_ORIGIN }), action.name).toMatchObject({ ok: false, status: 403 });
        expect(await action.run({ principal: null, formData: formOf(fields), db, settings, origin: ACTION_ORIGIN }), action.name).toMatchObject({ ok: false, status: 401 });
      }
      expect(await getUser(db, { scope: adminScope(), userId: memberId })).toMatchObject({ role: "member" });
      expect(await getUser(db, { scope: adminScope(), userId: other.id })).toMatchObject({ disabledAt: null });
      expect((await listUsersFor(db, admin)).invites.map((i) => i.email)).not.toContain(calls[0][1].email);
    });

    it("an admin invites by one-time link; the link creates the user with the role once, and only its hash is stored", async () => {
      const email = uniqueEmail("Invitee").toUpperCase();
      const result = await inviteUserAction.run({ principal: admin, formData: formOf({ email, role: "member" }), db, settings, origin: ACTION_ORIGIN });
      expect(result).toMatchObject({ ok: true, link: expect.stringMatching(/^http:\/\/127\.0\.0\.1:7777\/dashboard\/invite\/[A-Za-z0-9_-]{43}$/) });
      const token = tokenOf(result.link!);
      const stored = await db.sql.query(`SELECT * FROM agentry_user_tokens WHERE email = ?`, [email.toLowerCase()]);
      expect(JSON.stringify(stored)).not.toContain(token);
      expect(await describeLink(db, { token, purpose: "invite" })).toEqual({ email: email.toLowerCase() });
      expect(await describeLink(db, { token, purpose: "password_reset" })).toBeNull();

      expect(await acceptInvite(db, { token, name: "Ivy", password: "short" })).toMatchObject({ ok: false }); // the link survives a bad password
      const accepted = await acceptInvite(db, { token, name: "Ivy", password: PASSWORD });
      expect(accepted).toMatchObject({ ok: true, user: { email: email.toLowerCase(), role: "member", name: "Ivy" } });
      expect(await acceptInvite(db, { token, name: "Again", password: PASSWORD })).toMatchObject({ ok: false, error: expect.stringMatching(/invalid, expired or already used/) });
      expect(await describeLink(db, { token, purpose: "invite" })).toBeNull();
      // Inviting an existing email is a conflict.
      expect(await inviteUserAction.run({ principal: admin, formData: formOf({ email, role: "member" }), db, settings, origin: ACTION_ORIGIN })).toMatchObject({ ok: false, status: 409 });
    });

    it("an invite can be withdrawn, and a withdrawn link no longer works", async () => {
      const { invite, link } = await inviteUser(db, { principal: admin, email: uniqueEmail("late"), role: "admin", origin: ACTION_ORIGIN });
      expect((await revokeInviteAction.run({ principal: admin, formData: formOf({ inviteId: invite.id }), db, settings, origin: ACTION_ORIGIN })).ok).toBe(true);
      expect(await acceptInvite(db, { token: tokenOf(link), name: "", password: PASSWORD })).toMatchObject({ ok: false });
    });

    it("a reset link sets a new password, ends the user's sessions, works once, and replaces earlier links", async () => {
      const user = await createUser(db);
      const first = await resetLinkAction.run({ principal: admin, formData: formOf({ userId: user.id }), db, settings, origin: ACTION_ORIGIN });
      const second = await resetLinkAction.run({ principal: admin, formData: formOf({ userId: user.id }), db, settings, origin: ACTION_ORIGIN });
      expect(second.link).toMatch(/\/dashboard\/reset-password\//);
      expect(await resetPassword(db, { token: tokenOf(first.link!), password: "a brand new password" })).toMatchObject({ ok: false });
      const reset = await resetPassword(db, { token: tokenOf(second.link!), password: "a brand new password" });
      expect(reset).toMatchObject({ ok: true, user: { id: user.id, sessionVersion: user.sessionVersion + 1 } });
      expect(await resetPassword(db, { token: tokenOf(second.link!), password: "yet another password" })).toMatchObject({ ok: false });
      expect(await checkCredentials(db, { email: user.email, password: PASSWORD, clientAddress: "10.1.1.1" })).toMatchObject({ ok: false });
      expect(await checkCredentials(db, { email: user.email, password: "a brand new password", clientAddress: "10.1.1.1" })).toMatchObject({ ok: true });
    });

    it("roles and disabling through the actions; the last enabled admin cannot be demoted or disabled", async () => {
      const fresh = await openMigrated(dialect);
      try {
        const only = principalForUser(await createUser(fresh, { role: "admin" }), settings);
        const call = (action: DashboardAction, fields: Record<string, string>) => action.run({ principal: only, formData: formOf(fields), db: fresh, settings, origin: ACTION_ORIGIN });
        expect(await call(setRoleAction, { userId: only.userId!, role: "member" })).toMatchObject({ ok: false, status: 409 });
        expect(await call(setEnabledAction, { userId: only.userId!, enabled: "false" })).toMatchObject({ ok: false, status: 409 });
        const m = await createUser(fresh);
        expect(await call(setRoleAction, { userId: m.id, role: "admin" })).toMatchObject({ ok: true });
        // Now there are two admins: the first may step down.
        expect(await call(setRoleAction, { userId: only.userId!, role: "member" })).toMatchObject({ ok: true });
        expect(await call(setEnabledAction, { userId: m.id, enabled: "false" })).toMatchObject({ ok: false, status: 409 });
        expect(await call(setRoleAction, { userId: m.id, role: "bogus" })).toMatchObject({ ok: false, status: 422 });
        expect(await call(setEnabledAction, { userId: "no-such-user", enabled: "false" })).toMatchObject({ ok: false, status: 404 });
      } finally {
        await fresh.destroy();
      }
    });

    it("a member may update only itself", async () => {
      const other = await createUser(db);
      const self = userScope(memberId);
      expect(await updateUserName(db, { scope: self, userId: memberId, name: "Renamed" })).toMatchObject({ name: "Renamed" });
      await expect(updateUserName(db, { scope: self, userId: other.id, name: "Hijacked" })).rejects.toBeInstanceOf(PermissionError);
      await expect(bumpSessionVersion(db, { scope: self, userId: other.id })).rejects.toBeInstanceOf(PermissionError);
      expect(await getUser(db, { scope: adminScope(), userId: other.id })).toMatchObject({ name: "Test", sessionVersion: other.sessionVersion });
      await bumpSessionVersion(db, { scope: self, userId: memberId });
    });

    it("a disabled user's session version moves on, and so does an enabled one's", async () => {
      const user = await createUser(db);
      const disabled = await setEnabled(db, { principal: admin, userId: user.id, enabled: false });
      expect(disabled).toMatchObject({ sessionVersion: user.sessionVersion + 1, disabledAt: expect.any(Number) });
      const enabled = await setEnabled(db, { principal: admin, userId: user.id, enabled: true });
      expect(enabled).toMatchObject({ sessionVersion: user.sessionVersion + 2, disabledAt: null });
    });
  });
});
