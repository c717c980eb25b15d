import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { principalForUser } from "@/lib/auth/dashboard/user-principal.ts";
import type { Principal } from "@/lib/auth/principal.ts";
import { countSchedulesOf } from "@/lib/db/index.ts";
import { createScheduleAction } from "@/lib/http/dashboard/schedule-actions.ts";
import { ScheduleSchema } from "@/lib/http/schemas/schedules.ts";
import { createScheduleFor } from "@/lib/scheduler/manage.ts";
import { createUser } from "../auth/dashboard-support.ts";
import { ACTION_ORIGIN, formOf } from "../support/dashboard-actions.ts";
import { DIALECTS } from "../support/databases.ts";
import { adminScope, userScope } from "../support/scopes.ts";
import { startTestApp, type TestApp } from "../support/test-app.ts";

/**
 * `scheduler.maxSchedulesPerUser` caps the schedules a member owns, on the API's create and the
 * dashboard's alike (one check, in createScheduleFor); admins are not capped, whoever they create
 * for. A small cap here (3) instead of the default 100.
 */

const CAP = 3;
const AT_CAP = `You have ${CAP} schedules, the most one user may have (scheduler.maxSchedulesPerUser); delete one first`;
const SCHEDULE_SCOPES = ["schedules:read", "schedules:write", "schedules:delete", "agents:run"];
let tag = 0;

for (const dialect of DIALECTS) {
  describe.skipIf(dialect.skipReason !== null)(`the per-user schedule cap (${dialect.name})`, () => {
    let app: TestApp;
    beforeAll(async () => {
      app = await startTestApp({ dialect, agents: [{ id: "sched-agent", name: "Scheduled", model: null }], scheduler: { maxSchedulesPerUser: CAP } });
    });
    afterAll(async () => {
      await app?.close();
    });

    const unique = (label: string) => `${label}-${dialect.name}-${++tag}`;
    const member = (id: string): Principal => ({ kind: "user", userId: id, scopes: SCHEDULE_SCOPES, authenticatedBy: "jwt", isAdmin: false });
    const create = async (principal: Principal | undefined, name = unique("s")) => {
      const response = await app.call("POST", "/schedules", { json: { name, cron_expr: "0 3 * * *", endpoint: "/agents/sched-agent/runs", payload: { message: "hi" } }, principal });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    const owned = async (userId: string) => countSchedulesOf(await app.db(), { scope: adminScope(), owner: userId });

    it("the settings carry the cap", () => {
      expect(app.settings.scheduler.maxSchedulesPerUser).toBe(CAP);
    });

    it("a member at the cap is refused with 422 naming the limit; another member is not affected; deleting one makes room", async () => {
      const a = member(unique("cap-a"));
      const b = member(unique("cap-b"));
      const created = [];
      for (let i = 0; i < CAP; i++) {
        const ok = await create(a);
        expect(ok.status).toBe(201);
        created.push(ScheduleSchema.parse(ok.body));
      }
      expect(await create(a)).toEqual({ status: 422, body: { detail: AT_CAP } });
      expect(await owned(a.userId!)).toBe(CAP);
      // B has its own count.
      for (let i = 0; i < CAP; i++) expect((await create(b)).status).toBe(201);
      expect((await create(b)).status).toBe(422);
      // A disabled schedule still counts; a deleted one does not.
      expect((await app.call("POST", `/schedules/${created[0]!.id}/disable`, { principal: a })).status).toBe(200);
      expect((await create(a)).status).toBe(422);
      expect((await app.call("DELETE", `/schedules/${created[0]!.id}`, { principal: a })).status).toBe(204);
      expect((await create(a)).status).toBe(201);
      expect((await create(a)).status).toBe(422);
    });

    it("admins are not capped: for no user, for themselves, or (on the dashboard) for a member at the cap", async () => {
      const keyHolder: Principal = { kind: "admin", userId: null, scopes: ["agent_os:admin"], authenticatedBy: "security_key", isAdmin: true };
      const jwtAdmin: Principal = { kind: "admin", userId: unique("cap-root"), scopes: ["agent_os:admin"], authenticatedBy: "jwt", isAdmin: true };
      for (let i = 0; i < CAP + 2; i++) {
        expect((await create(keyHolder)).status).toBe(201);
        expect((await create(jwtAdmin)).status).toBe(201);
      }
      expect(await owned(jwtAdmin.userId!)).toBe(CAP + 2);

      const db = await app.db();
      const admin = principalForUser(await createUser(db, { role: "admin" }), app.settings);
      const m = principalForUser(await createUser(db), app.settings);
      const form = (name: string, extra: Record<string, string> = {}) => ({ name, target: "agent", agent_id: "sched-agent", message: "Good morning", cron_expr: "0 9 * * 1-5", ...extra });
      const act = (principal: Principal, fields: Record<string, string>) => createScheduleAction.run({ principal, formData: formOf(fields), db, settings: app.settings, origin: ACTION_ORIGIN });
      for (let i = 0; i < CAP; i++) expect(await act(m, form(unique("dash")))).toMatchObject({ ok: true });
      expect(await act(m, form(unique("dash")))).toEqual({ ok: false, status: 422, error: AT_CAP });
      const forMember = unique("for-member");
      expect(await act(admin, form(forMember, { userId: m.userId! }))).toEqual({ ok: true, message: `Schedule "${forMember}" created.` });
      expect(await owned(m.userId!)).toBe(CAP + 1);
      for (let i = 0; i < CAP + 1; i++) expect(await act(admin, form(unique("admin-own")))).toMatchObject({ ok: true });
      // The member is still at (past) the cap, on the API too: one count for both.
      const api = await app.call("POST", "/schedules", { json: { name: unique("api"), cron_expr: "0 3 * * *", endpoint: "/agents/sched-agent/runs" }, principal: { ...m, authenticatedBy: "jwt" } });
      expect(api.status).toBe(422);
      expect(await api.json()).toEqual({ detail: `You have ${CAP + 1} schedules and one user may have at most ${CAP} (scheduler.maxSchedulesPerUser); delete 2 first` });
    });

    it("the API and the dashboard share one count", async () => {
      const db = await app.db();
      const m = principalForUser(await createUser(db), app.settings);
      const act = (name: string) =>
        createScheduleAction.run({
          principal: m,
          formData: formOf({ name, target: "agent", agent_id: "sched-agent", message: "hi", cron_expr: "0 9 * * *" }),
          db,
          settings: app.settings,
          origin: ACTION_ORIGIN,
        });
      for (let i = 0; i < CAP - 1; i++) expect((await create(m)).status).toBe(201);
      expect(await act(unique("last"))).toMatchObject({ ok: true });
      expect(await act(unique("over"))).toEqual({ ok: false, status: 422, error: AT_CAP });
      expect(await create(m)).toEqual({ status: 422, body: { detail: AT_CAP } });
    });

    it("a burst of concurrent creates by one member stops exactly at the cap", async () => {
      const burst = member(unique("cap-burst"));
      const results = await Promise.all(Array.from({ length: 24 }, () => create(burst)));
      expect(results.filter((r) => r.status === 201)).toHaveLength(CAP);
      expect(results.filter((r) => r.status === 422).every((r) => r.body.detail === AT_CAP)).toBe(true);
      expect(results.filter((r) => r.status !== 201 && r.status !== 422)).toEqual([]);
      expect(await owned(burst.userId!)).toBe(CAP);
      // Many members at once: each gets exactly its own cap.
      const members = Array.from({ length: 4 }, () => member(unique("cap-many")));
      await Promise.all(members.flatMap((m) => Array.from({ length: CAP + 3 }, () => create(m))));
      for (const m of members) expect(await owned(m.userId!)).toBe(CAP);
    });

    it("createScheduleFor caps only when given a limit (the agents' toolkit and admins pass none)", async () => {
      const db = await app.db();
      const owner = unique("cap-direct");
      const definition = (name: string) => ({
        name,
        cron_expr: "0 3 * * *",
        endpoint: "/agents/sched-agent/runs",
        method: "POST",
        timezone: "UTC",
        timeout_seconds: 60,
        max_retries: 0,
        retry_delay_seconds: 1,
      });
      for (let i = 0; i < 2; i++) await createScheduleFor(db, { scope: userScope(owner), owner, definition: definition(unique("d")), maxSchedulesPerOwner: 2 });
      await expect(createScheduleFor(db, { scope: userScope(owner), owner, definition: definition(unique("d")), maxSchedulesPerOwner: 2 })).rejects.toMatchObject({
        status: 422,
        detail: "You have 2 schedules, the most one user may have (scheduler.maxSchedulesPerUser); delete one first",
      });
      await createScheduleFor(db, { scope: userScope(owner), owner, definition: definition(unique("d")) });
      expect(await owned(owner)).toBe(3);
    });
  });
}
