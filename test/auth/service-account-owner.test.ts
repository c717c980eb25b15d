import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authenticateServiceAccount } from "@/lib/auth/service-accounts.ts";
import { mintServiceAccountToken } from "@/lib/auth/service-account-tokens.ts";
import { createServiceAccount } from "@/lib/db/service-accounts/service-accounts.ts";
import { setUserDisabled } from "@/lib/db/users/user-writes.ts";
import { HttpError } from "@/lib/errors/http-error.ts";
import { sqliteDialect } from "../support/databases.ts";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { createUser } from "./dashboard-support.ts";
import { adminScope, userScope } from "../support/scopes.ts";

describe("a service account never outlives its owner's access", () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ dialect: sqliteDialect, agents: [] });
  });
  afterAll(async () => app.close());

  it("stops authenticating once its dashboard owner is disabled", async () => {
    const db = await app.db();
    const owner = await createUser(db);
    const minted = mintServiceAccountToken();
    await createServiceAccount(db, {
      scope: userScope(owner.id),
      account: {
        id: randomUUID(),
        name: `bot-${Date.now()}`,
        tokenHash: minted.hash,
        tokenPrefix: minted.prefix,
        scopes: [{ scope: "sessions:read", effect: "allow" }],
        expiresAt: null,
        createdBy: owner.id,
      },
    });
    await expect(authenticateServiceAccount(minted.token, app.settings, () => app.db())).resolves.toMatchObject({ kind: "service_account" });
    await setUserDisabled(db, { scope: adminScope(), userId: owner.id, disabled: true });
    const refused = await authenticateServiceAccount(minted.token, app.settings, () => app.db()).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(HttpError);
    expect((refused as HttpError).status).toBe(401);
    expect((refused as HttpError).detail).toBe("Service account token belongs to a disabled user");
  });
});
