import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { principalForUser } from "@/lib/auth/dashboard/user-principal.ts";
import type { Principal } from "@/lib/auth/principal.ts";
import { stampSchemaVersion } from "@/lib/db/schema-versions/schema-versions.ts";
import { createServiceAccount, getServiceAccount, listServiceAccounts } from "@/lib/db/service-accounts/service-accounts.ts";
import type { DashboardAction } from "@/lib/http/dashboard/action.ts";
import { migrateDatabaseAction, type MigrateState } from "@/lib/http/dashboard/database-actions.ts";
import { databaseSchemaStatus } from "@/lib/http/dashboard/database-status.ts";
import { createServiceAccountAction, revokeServiceAccountAction } from "@/lib/http/dashboard/service-account-actions.ts";
import type { CreatedServiceAccountState } from "@/lib/http/dashboard/service-account-form.ts";
import { TABLES } from "@/lib/migrations/registry.ts";
import { LATEST_VERSION } from "@/lib/migrations/types.ts";
import { uid } from "../support/agno-runs.ts";
import { createUser } from "../auth/dashboard-support.ts";
import { DIALECTS, openMigrated, type TestDb } from "../support/databases.ts";
import { testSettings } from "../support/settings.ts";
import { ACTION_ORIGIN, formOf } from "../support/dashboard-actions.ts";
import { adminScope, userScope } from "../support/scopes.ts";

const settings = testSettings();
const DAY = 86_400;

const run = (db: TestDb, action: DashboardAction, principal: Principal | null, fields: Record<string, string> = {}) =>
  action.run({ principal, formData: formOf(fields), db, settings, origin: ACTION_ORIGIN });

describe.each(DIALECTS)("the admin console's actions on $name", (dialect) => {
  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    let db: TestDb;
    let admin: Principal;
    let member: Principal;
    beforeAll(async () => {
      db = await openMigrated(dialect);
      admin = principalForUser(await createUser(db, { role: "admin" }), settings);
      member = principalForUser(await createUser(db), settings);
    });
    afterAll(async () => db?.destroy());

    describe("service accounts", () => {
      const create = async (principal: Principal | null, fields: Record<string, string>) => (await run(db, createServiceAccountAction, principal, fields)) as CreatedServiceAccountState;

      it("a member cannot create or revoke an account (403), nor can anyone signed out (401); nothing changes", async () => {
        const existing = await create(admin, { name: uid("kept"), allow: "agents:read" });
        const account = (await listServiceAccounts(db, { scope: adminScope() })).accounts.find((a) => a.token_prefix === existing.token!.slice(0, 13))!;
        const name = uid("member-made");
        for (const principal of [member, null]) {
          const status = principal ? 403 : 401;
          expect(await create(principal, { name, allow: "agents:read" })).toMatchObject({ ok: false, status });
          expect(await run(db, revokeServiceAccountAction, principal, { accountId: account.id })).toMatchObject({ ok: false, status });
        }
        const accounts = (await listServiceAccounts(db, { scope: adminScope(), includeRevoked: true })).accounts;
        expect(accounts.map((a) => a.name)).not.toContain(name);
        expect(accounts.find((a) => a.id === account.id)?.revoked_at).toBeNull();
      });

      it("an admin creates an account: its token is in this answer only, and only the token's hash is stored", async () => {
        const name = uid("ci");
        const before = Math.floor(Date.now() / 1000);
        const created = await create(admin, { name, allow: "agents:read, agents:run\nsessions:read", deny: "agents:secret:run", expires: "30" });
        expect(created).toMatchObject({ ok: true, message: expect.stringContaining("shown only this once"), token: expect.stringMatching(/^agno_pat_[A-Za-z0-9_-]{43}$/) });
        const { accounts } = await listServiceAccounts(db, { scope: adminScope(), includeRevoked: true });
        const account = accounts.find((a) => a.name === name)!;
        expect(account).toMatchObject({
          user_id: admin.userId,
          created_by: admin.userId,
          token_prefix: created.token!.slice(0, 13),
          revoked_at: null,
          scopes: [
            { scope: "agents:read", effect: "allow" },
            { scope: "agents:run", effect: "allow" },
            { scope: "sessions:read", effect: "allow" },
            { scope: "agents:secret:run", effect: "deny" },
          ],
        });
        expect(account.expires_at! - before).toBeGreaterThanOrEqual(30 * DAY);
        expect(account.expires_at! - before).toBeLessThan(30 * DAY + 60);
        const [row] = await db.sql.query("SELECT * FROM agno_service_accounts WHERE id = ?", [account.id]);
        expect(row.token_hash).toBe(createHash("sha256").update(created.token!).digest("hex"));
        expect(JSON.stringify(row)).not.toContain(created.token!);
        // The listing (what the page renders) never carries the token or its hash.
        expect(JSON.stringify(accounts)).not.toContain(created.token!);
        expect(JSON.stringify(accounts)).not.toContain(String(row.token_hash));

        expect(await create(admin, { name, allow: "agents:read" })).toMatchObject({ ok: false, status: 409, error: `A service account named '${name}' already exists` });
        const forever = await create(admin, { name: uid("forever"), allow: "agents:read", expires: "never" });
        expect(forever.ok).toBe(true);
        expect((await listServiceAccounts(db, { scope: adminScope() })).accounts.find((a) => a.token_prefix === forever.token!.slice(0, 13))?.expires_at).toBeNull();
      });

      it("refuses bad input with a message naming the field and the problem", async () => {
        const name = uid("bad");
        const cases: [Record<string, string>, string][] = [
          [{ allow: "agents:read" }, "name: give the account a name"],
          [{ name: "   ", allow: "agents:read" }, "name: give the account a name"],
          [{ name: "x".repeat(129), allow: "agents:read" }, "name: at most 128 characters"],
          [{ name }, "allow: name at least one scope the account may use"],
          [{ name, allow: " , \n" }, "allow: name at least one scope the account may use"],
          [{ name, allow: "agents:read agents Sessions:read" }, "allow: 'agents', 'Sessions:read' are not scopes: write resource:action (agents:run), resource:<id>:action or resource:*"],
          [{ name, allow: "agents:read", deny: "nope" }, "deny: 'nope' is not a scope: write resource:action (agents:run), resource:<id>:action or resource:*"],
          [{ name, allow: "agents:read", expires: "7" }, "expires: choose one of 30, 90, 365, never"],
          [{ name, allow: "agents:read", allowPrivileged: "yes" }, "allowPrivileged: must be ticked or left out"],
          [
            { name, allow: "agents:read agent_os:admin service_accounts:write" },
            `allow: 'agent_os:admin', 'service_accounts:write' are privileged scopes (control of the whole OS or of credentials): tick "Allow privileged scopes" to grant them`,
          ],
        ];
        for (const [fields, error] of cases) expect(await create(admin, fields), JSON.stringify(fields)).toEqual({ ok: false, status: 422, error });
        expect((await listServiceAccounts(db, { scope: adminScope(), includeRevoked: true })).accounts.map((a) => a.name)).not.toContain(name);
        // Ticked, a privileged scope is granted.
        expect(await create(admin, { name, allow: "config:write", allowPrivileged: "on" })).toMatchObject({ ok: true });
      });

      it("revokes an account, keeping its record; an unknown id is not found", async () => {
        const created = await create(admin, { name: uid("revoke-me"), allow: "agents:read" });
        const account = (await listServiceAccounts(db, { scope: adminScope() })).accounts.find((a) => a.token_prefix === created.token!.slice(0, 13))!;
        expect(await run(db, revokeServiceAccountAction, admin, { accountId: account.id })).toEqual({
          ok: true,
          message: `'${account.name}' is revoked: its token no longer works.`,
        });
        const revoked = await getServiceAccount(db, { scope: adminScope(), id: account.id });
        expect(revoked?.revoked_at).toEqual(expect.any(Number));
        expect(await run(db, revokeServiceAccountAction, admin, { accountId: "no-such-account" })).toMatchObject({ ok: false, status: 404 });
        expect(await run(db, revokeServiceAccountAction, admin, {})).toEqual({ ok: false, status: 422, error: "accountId: say which account" });
        // The name is free again for a new account.
        expect(await create(admin, { name: account.name, allow: "agents:read" })).toMatchObject({ ok: true });
      });

      it("an account a member created through the API is listed and revoked by the admin's console like any other", async () => {
        const theirs = await createServiceAccount(db, {
          scope: userScope(member.userId!),
          account: {
            id: uid("sa"),
            name: uid("members"),
            tokenHash: uid("hash"),
            tokenPrefix: "agno_pat_test",
            scopes: [{ scope: "agents:read", effect: "allow" }],
            expiresAt: null,
            createdBy: member.userId,
          },
        });
        expect(await run(db, revokeServiceAccountAction, admin, { accountId: theirs.id })).toMatchObject({ ok: true });
      });
    });

    describe("migrate", () => {
      it("a member cannot migrate (403), nor can anyone signed out (401)", async () => {
        expect(await run(db, migrateDatabaseAction, member)).toMatchObject({ ok: false, status: 403 });
        expect(await run(db, migrateDatabaseAction, null)).toMatchObject({ ok: false, status: 401 });
      });

      it("reports each table's outcome: created, migrated or unchanged; the page's status shows what was pending", async () => {
        const fresh = await openMigrated(dialect);
        try {
          await fresh.sql.exec("DROP TABLE agno_learnings");
          await stampSchemaVersion(fresh, "agno_sessions", "2.5.6");
          const before = await databaseSchemaStatus(fresh);
          expect(before.latest).toBe(LATEST_VERSION);
          expect(before.tables.filter((t) => t.pending).map((t) => [t.table, t.version, t.exists])).toEqual([
            ["agno_sessions", "2.5.6", true],
            ["agno_learnings", LATEST_VERSION, false],
          ]);

          const result = (await run(fresh, migrateDatabaseAction, admin)) as MigrateState;
          expect(result).toMatchObject({ ok: true, message: `Migrated: 2 of ${TABLES.length} tables changed.` });
          const byTable = new Map(result.outcomes!.map((o) => [o.table, o]));
          expect(result.outcomes!.map((o) => o.table)).toEqual(TABLES.map((t) => t.spec.name));
          expect(byTable.get("agno_sessions")).toMatchObject({ action: "migrated", from: "2.5.6", to: LATEST_VERSION });
          expect(byTable.get("agno_learnings")).toMatchObject({ action: "created", to: LATEST_VERSION });
          expect(byTable.get("agno_memories")).toMatchObject({ action: "unchanged" });
          expect((await databaseSchemaStatus(fresh)).tables.filter((t) => t.pending)).toEqual([]);

          const again = (await run(fresh, migrateDatabaseAction, admin)) as MigrateState;
          expect(again).toMatchObject({ ok: true, message: `The database is up to date: ${TABLES.length} tables unchanged.` });
          expect(new Set(again.outcomes!.map((o) => o.action))).toEqual(new Set(["unchanged"]));
        } finally {
          await fresh.destroy();
        }
      });

      it("a failing step is reported with the table, the version and what to do, not as a crash", async () => {
        const broken = await openMigrated(dialect);
        try {
          // An agno_memories of some other program's shape, unstamped: its 2.3.0 step cannot run.
          await broken.sql.exec("DROP TABLE agno_memories");
          await broken.sql.exec("CREATE TABLE agno_memories (memory_id VARCHAR(128) PRIMARY KEY)");
          await broken.sql.exec("DELETE FROM agno_schema_versions WHERE table_name = 'agno_memories'");
          const status = await databaseSchemaStatus(broken);
          expect(status.tables.find((t) => t.table === "agno_memories")).toMatchObject({ version: null, exists: true, pending: true });
          const result = await run(broken, migrateDatabaseAction, admin);
          expect(result).toMatchObject({ ok: false, status: 500 });
          expect(result.error).toMatch(/^Migrating agno_memories to 2\.3\.0 \(.+\) failed: .+Tables before it are migrated and stamped; fix the cause and run the migration again\.$/);
        } finally {
          await broken.destroy();
        }
      });
    });
  });
});
