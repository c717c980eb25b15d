import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Principal } from "@/lib/auth/principal.ts";
import { ConfigError } from "@/lib/config/define.ts";
import { CreatedServiceAccountSchema } from "@/lib/http/schemas/service-accounts.ts";
import { uid } from "../support/agno-runs.ts";
import { DIALECTS } from "../support/databases.ts";
import { mintPrincipals } from "../support/principals.ts";
import { testSettings } from "../support/settings.ts";
import { startTestApp, type TestApp } from "../support/test-app.ts";

const DAY = 86_400;
const SCOPES = [{ scope: "sessions:read", effect: "allow" }];

/** Lifetime of a created token in whole days (null: never expires). */
const lifetimeDays = (body: unknown) => {
  const created = CreatedServiceAccountSchema.parse(body);
  return created.expires_at === null ? null : (Date.parse(created.expires_at) - Date.parse(created.created_at)) / 1000 / DAY;
};

describe.each(DIALECTS)("service-account token lifetime on $name", (dialect) => {
  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    let app: TestApp;
    let capped: TestApp;
    beforeAll(async () => {
      app = await startTestApp({ dialect, agents: [] });
      capped = await startTestApp({ dialect, agents: [], env: { AGENTRY_SERVICE_ACCOUNT_MAX_DAYS: "30" } });
    });
    afterAll(async () => {
      await app?.close();
      await capped?.close();
    });

    /** A non-admin (a JWT user, say with a token that expires in a minute) allowed to create accounts. */
    const member = (): Principal => ({ ...mintPrincipals().a, scopes: ["service_accounts:write", "service_accounts:read", "sessions:read"] });
    const create = async (on: TestApp, principal: Principal, extra: Record<string, unknown>) => {
      const response = await on.call("POST", "/service-accounts", { json: { name: uid("sa"), scopes: SCOPES, ...extra }, principal });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> & { detail?: unknown } };
    };
    const countOf = async (on: TestApp, principal: Principal) => ((await (await on.call("GET", "/service-accounts?include_revoked=true", { principal })).json()) as { data: unknown[] }).data.length;

    it("a non-admin asking for never_expires is refused (403 naming the rule) and nothing is created", async () => {
      const caller = member();
      const refused = await create(app, caller, { never_expires: true });
      expect(refused.status).toBe(403);
      expect(refused.body.detail).toBe("never_expires: only an admin can create a token that never expires; yours may last at most 90 days (expires_in_days)");
      expect(await countOf(app, caller)).toBe(0);
    });

    it("a non-admin's expires_in_days above the maximum is a 422 naming the field and the cap; nothing is created", async () => {
      const caller = member();
      const refused = await create(app, caller, { expires_in_days: 91 });
      expect(refused.status).toBe(422);
      expect(refused.body.detail).toEqual([
        {
          type: "less_than_equal",
          loc: ["body", "expires_in_days"],
          msg: "expires_in_days: at most 90 days for a token created by a non-admin (auth.serviceAccountMaxDays)",
          input: 91,
        },
      ]);
      expect(JSON.stringify(refused.body)).not.toMatch(/HttpError|Error\b/);
      expect(await countOf(app, caller)).toBe(0);
      // Up to the cap is fine.
      const atCap = await create(app, caller, { expires_in_days: 90 });
      expect(atCap.status).toBe(201);
      expect(lifetimeDays(atCap.body)).toBe(90);
    });

    it("a non-admin naming no lifetime gets the 90-day default, shortened to a lower configured maximum", async () => {
      const byDefault = await create(app, member(), {});
      expect(byDefault.status).toBe(201);
      expect(lifetimeDays(byDefault.body)).toBe(90);
      const underCap = await create(capped, member(), {});
      expect(underCap.status).toBe(201);
      expect(lifetimeDays(underCap.body)).toBe(30);
      const refused = await create(capped, member(), { expires_in_days: 31 });
      expect(refused.status).toBe(422);
      expect(JSON.stringify(refused.body.detail)).toContain("at most 30 days");
    });

    it("admins are unchanged: never_expires, any expires_in_days up to ten years, 90 days by default", async () => {
      const { admin } = mintPrincipals();
      for (const on of [app, capped]) {
        expect(lifetimeDays((await create(on, admin, { never_expires: true })).body)).toBeNull();
        expect(lifetimeDays((await create(on, admin, { expires_in_days: 3650 })).body)).toBe(3650);
        expect(lifetimeDays((await create(on, admin, {})).body)).toBe(90);
      }
    });

    it("a service-account token that may create accounts is capped like any non-admin", async () => {
      const { admin } = mintPrincipals();
      const parent = await create(app, admin, { scopes: [{ scope: "service_accounts:write", effect: "allow" }, ...SCOPES], allow_privileged_scopes: true });
      expect(parent.status).toBe(201);
      const bearer = { authorization: `Bearer ${String(parent.body.token)}` };
      const forever = await app.call("POST", "/service-accounts", { json: { name: uid("child"), scopes: SCOPES, never_expires: true }, headers: bearer });
      expect(forever.status).toBe(403);
      const child = await app.call("POST", "/service-accounts", { json: { name: uid("child"), scopes: SCOPES }, headers: bearer });
      expect(child.status).toBe(201);
      expect(lifetimeDays(await child.json())).toBe(90);
    });
  });
});

describe("the service-account lifetime setting", () => {
  it("defaults to 90 days; AGENTRY_SERVICE_ACCOUNT_MAX_DAYS wins over auth.serviceAccountMaxDays", () => {
    expect(testSettings().auth.serviceAccountMaxDays).toBe(90);
    expect(testSettings({ file: { auth: { serviceAccountMaxDays: 14 } } }).auth.serviceAccountMaxDays).toBe(14);
    expect(testSettings({ env: { AGENTRY_SERVICE_ACCOUNT_MAX_DAYS: "7" }, file: { auth: { serviceAccountMaxDays: 14 } } }).auth.serviceAccountMaxDays).toBe(7);
  });

  it("refuses a value that is not a whole number of days from 1 to 3650", () => {
    expect(() => testSettings({ env: { AGENTRY_SERVICE_ACCOUNT_MAX_DAYS: "0" } })).toThrow(/AGENTRY_SERVICE_ACCOUNT_MAX_DAYS must be an integer from 1 to 3650/);
    expect(() => testSettings({ file: { auth: { serviceAccountMaxDays: 1.5 } } })).toThrow(ConfigError);
  });
});
