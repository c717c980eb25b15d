import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { indexExists, tableExists } from "@/lib/migrations/introspect.ts";
import { MigrationManager } from "@/lib/migrations/migration-manager.ts";
import { LATEST_VERSION } from "@/lib/migrations/types.ts";
import { unsafeRevokeSession, unsafeSessionHolder } from "@/lib/db/users/revoked-sessions.ts";
import { DIALECTS, openMigrated, type TestDb } from "../support/databases.ts";
import { createUser } from "./dashboard-support.ts";

/**
 * A database an earlier Agentry migrated (every dashboard table stamped at the latest version)
 * lacks what sign-out revocation and per-address throttling added; migrating brings it up to date,
 * and migrating again changes nothing.
 */
describe.each(DIALECTS)("upgrading an earlier Agentry's dashboard tables on $name", (dialect) => {
  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    let db: TestDb;
    beforeAll(async () => {
      db = await openMigrated(dialect);
      // As the previous release left it: no revoked-sessions table, no per-(account, address) index.
      await db.sql.exec(`DROP TABLE agentry_revoked_sessions`);
      await db.sql.exec(`DELETE FROM agno_schema_versions WHERE table_name = ?`, ["agentry_revoked_sessions"]);
      await db.sql.exec(`DROP INDEX ${db.dialect === "postgres" ? `"${db.schema}".` : ""}"idx_agentry_login_attempts_account_client_address_at"`);
    });
    afterAll(async () => db?.destroy());

    it("creates the revoked-sessions table and the throttle's index, then is idempotent", async () => {
      expect(await tableExists(db, "agentry_revoked_sessions")).toBe(false);
      expect(await indexExists(db, "idx_agentry_login_attempts_account_client_address_at")).toBe(false);
      const first = await new MigrationManager(db).up();
      expect(first.find((o) => o.table === "agentry_revoked_sessions")).toMatchObject({ action: "created", to: LATEST_VERSION });
      expect(first.find((o) => o.table === "agentry_login_attempts")?.action).not.toBe("unchanged");
      expect(await tableExists(db, "agentry_revoked_sessions")).toBe(true);
      expect(await indexExists(db, "idx_agentry_revoked_sessions_expires_at")).toBe(true);
      expect(await indexExists(db, "idx_agentry_login_attempts_account_client_address_at")).toBe(true);

      const again = await new MigrationManager(db).up();
      expect(again.filter((o) => o.action !== "unchanged")).toEqual([]);
      // And the upgraded database revokes sessions.
      const user = await createUser(db);
      await unsafeRevokeSession(db, { sessionId: "s-1", userId: user.id, expiresAt: Math.floor(Date.now() / 1000) + 60 });
      expect(await unsafeSessionHolder(db, { userId: user.id, sessionId: "s-1" })).toMatchObject({ revoked: true });
      expect(await unsafeSessionHolder(db, { userId: user.id, sessionId: "s-2" })).toMatchObject({ revoked: false });
    });
  });
});
