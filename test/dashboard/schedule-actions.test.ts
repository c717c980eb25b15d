import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { principalForUser } from "@/lib/auth/dashboard/user-principal.ts";
import { dataScopeFor, type Principal } from "@/lib/auth/principal.ts";
import { getRun } from "@/lib/db/runs/runs.ts";
import { listSchedulePage, listScheduleRunPage, type ScheduleListItem } from "@/lib/db/schedules/schedule-list.ts";
import { getSchedule, listSchedules } from "@/lib/db/schedules/schedules.ts";
import type { Db } from "@/lib/db/open-database.ts";
import type { DashboardAction } from "@/lib/http/dashboard/action.ts";
import { createScheduleAction, deleteScheduleAction, disableScheduleAction, enableScheduleAction, triggerScheduleAction, updateScheduleAction } from "@/lib/http/dashboard/schedule-actions.ts";
import { startModelServer, type ModelServer } from "../../e2e/fixtures/model-server.ts";
import { createUser } from "../auth/dashboard-support.ts";
import { ACTION_ORIGIN, formOf } from "../support/dashboard-actions.ts";
import { DIALECTS } from "../support/databases.ts";
import { adminScope } from "../support/scopes.ts";
import { startTestApp, type TestApp } from "../support/test-app.ts";

let tag = 0;

describe.each(DIALECTS)("the schedules pages' actions and list on $name", (dialect) => {
  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    let server: ModelServer;
    let app: TestApp;
    let off: TestApp;
    let db: Db;
    let admin: Principal;
    let a: Principal;
    let b: Principal;

    const call = (action: DashboardAction, principal: Principal | null, fields: Record<string, string>, target: TestApp = app) =>
      target.db().then((database) => action.run({ principal, formData: formOf(fields), db: database, settings: target.settings, origin: ACTION_ORIGIN }));
    /** An agent schedule's form, as the page posts it. */
    const form = (name: string, extra: Record<string, string> = {}) => ({ name, target: "agent", agent_id: "sched-agent", message: "Good morning", cron_expr: "0 9 * * 1-5", ...extra });
    const named = async (principal: Principal, name: string): Promise<ScheduleListItem> => {
      const page = await listSchedulePage(db, { scope: dataScopeFor(principal), search: name, limit: 10 });
      const found = page.rows.find((s) => s.name === name);
      if (!found) throw new Error(`no schedule ${name}`);
      return found;
    };
    const unique = (label: string) => `${label}-${dialect.name}-${++tag}`;

    beforeAll(async () => {
      server = await startModelServer({ respond: () => ({ text: "scheduled hello" }) });
      const agents = [{ id: "sched-agent", name: "Scheduled", model: { provider: "openai-compatible" as const, id: "scripted", baseUrl: server.url, apiKey: "t" } }];
      app = await startTestApp({ dialect, agents });
      off = await startTestApp({ dialect, agents, scheduler: false });
      db = await app.db();
      admin = principalForUser(await createUser(db, { role: "admin" }), app.settings);
      a = principalForUser(await createUser(db), app.settings);
      b = principalForUser(await createUser(db), app.settings);
    });
    afterAll(async () => {
      await app?.close();
      await off?.close();
      await server?.close();
    });

    it("a member creates an agent schedule for itself, whoever the form names, with the API's defaults", async () => {
      const name = unique("weekday-report");
      const before = Math.floor(Date.now() / 1000);
      expect(await call(createScheduleAction, a, { ...form(name), cron_expr: "  0   9 * * 1-5 ", userId: b.userId! })).toEqual({ ok: true, message: `Schedule "${name}" created.` });
      const stored = await named(a, name);
      expect(stored).toMatchObject({
        user_id: a.userId,
        method: "POST",
        endpoint: "/agents/sched-agent/runs",
        payload: { message: "Good morning" },
        cron_expr: "0 9 * * 1-5",
        timezone: "UTC",
        timeout_seconds: 3600,
        max_retries: 0,
        retry_delay_seconds: 60,
        misfire_policy: "fire_once",
        catch_up_limit: 10,
        allow_overlap: false,
        jitter_seconds: 0,
        enabled: true,
        last_run: null,
      });
      expect(stored.next_run_at).toBeGreaterThan(before);
      expect(new Date(stored.next_run_at! * 1000).toISOString()).toMatch(/T09:00:00\.000Z$/);
      // B sees none of it, and the API's list agrees with the dashboard's.
      expect((await listSchedulePage(db, { scope: dataScopeFor(b), search: name, limit: 10 })).rows).toEqual([]);
      expect((await listSchedules(db, { scope: dataScopeFor(a), page: 1, limit: 100 })).schedules.map((s) => s.id)).toContain(stored.id);
    });

    it("every bad field is a 422 form error naming it, never a throw; nothing is stored", async () => {
      const name = unique("bad");
      const refused = async (extra: Record<string, string>) => {
        const result = await call(createScheduleAction, a, form(name, extra));
        expect(result.ok, JSON.stringify(extra)).toBe(false);
        return result;
      };
      expect(await refused({ cron_expr: "61 * * * *" })).toMatchObject({ status: 422, error: expect.stringMatching(/^cron_expr: Invalid cron expression: 61 \* \* \* \* \(/) });
      expect(await refused({ cron_expr: "0 3 * *" })).toEqual({
        ok: false,
        status: 422,
        error: "cron_expr: Invalid cron expression: 0 3 * * (expected 5 fields (minute hour day-of-month month day-of-week), got 4)",
      });
      expect(await refused({ cron_expr: "0 0 3 * * *" })).toMatchObject({ status: 422, error: expect.stringMatching(/^cron_expr: .*got 6\)$/) });
      expect(await refused({ cron_expr: "" })).toMatchObject({ status: 422, error: expect.stringMatching(/^cron_expr: write a cron expression/) });
      expect(await refused({ timezone: "Mars/Olympus" })).toMatchObject({ status: 422, error: expect.stringMatching(/^timezone: Invalid timezone: Mars\/Olympus/) });
      expect(await refused({ name: "-leading-dash" })).toMatchObject({ status: 422, error: "name: Name must start with alphanumeric and contain only alphanumeric, '.', '_', '-'" });
      expect(await refused({ name: "x".repeat(256) })).toMatchObject({ status: 422, error: expect.stringMatching(/^name: /) });
      expect(await refused({ name: " " })).toMatchObject({ status: 422, error: expect.stringMatching(/^name: give the schedule a name/) });
      expect(await refused({ message: "  " })).toMatchObject({ status: 422, error: expect.stringMatching(/^message: /) });
      expect(await refused({ agent_id: "nobody" })).toEqual({ ok: false, status: 422, error: "agent_id: there is no agent 'nobody' on this server" });
      expect(await refused({ timeout_seconds: "0" })).toMatchObject({ status: 422, error: 'timeout_seconds: the timeout (seconds) must be a whole number from 1 to 86400, got "0"' });
      expect(await refused({ timeout_seconds: "1.5" })).toMatchObject({ status: 422, error: expect.stringMatching(/^timeout_seconds: /) });
      expect(await refused({ max_retries: "11" })).toMatchObject({ status: 422, error: expect.stringMatching(/^max_retries: /) });
      expect(await refused({ retry_delay_seconds: "abc" })).toMatchObject({ status: 422, error: expect.stringMatching(/^retry_delay_seconds: /) });
      expect(await refused({ catch_up_limit: "1001" })).toMatchObject({ status: 422, error: expect.stringMatching(/^catch_up_limit: /) });
      expect(await refused({ jitter_seconds: "301" })).toMatchObject({ status: 422, error: expect.stringMatching(/^jitter_seconds: /) });
      expect(await refused({ misfire_policy: "sometimes" })).toMatchObject({ status: 422, error: expect.stringMatching(/^misfire_policy: /) });
      expect(await refused({ target: "somewhere" })).toMatchObject({ status: 422, error: expect.stringMatching(/^target: /) });
      const raw = (extra: Record<string, string>) => refused({ target: "endpoint", method: "POST", endpoint: "/agents/sched-agent/runs", ...extra });
      expect(await raw({ payload: "{not json" })).toMatchObject({ status: 422, error: expect.stringMatching(/^payload: the payload is not valid JSON/) });
      expect(await raw({ payload: "[1, 2]" })).toMatchObject({ status: 422, error: expect.stringMatching(/^payload: the payload must be a JSON object/) });
      expect(await raw({ endpoint: "agents/x/runs" })).toMatchObject({ status: 422, error: "endpoint: Endpoint must start with '/'" });
      expect(await raw({ endpoint: "/http://evil.example/x" })).toMatchObject({ status: 422, error: "endpoint: Endpoint must be a path, not a full URL" });
      expect(await raw({ method: "FETCH" })).toMatchObject({ status: 422, error: "method: Method must be GET, POST, PUT, PATCH, or DELETE" });
      // A member may schedule a run endpoint (with any payload), not another endpoint.
      expect(await raw({ endpoint: "/metrics/refresh", payload: "" })).toEqual({ ok: false, status: 403, error: "Only admins can schedule an endpoint that is not a run endpoint" });
      // Without the scope to run agents, not even an agent.
      expect(await call(createScheduleAction, { ...a, scopes: ["schedules:read", "schedules:write"] }, form(name))).toEqual({
        ok: false,
        status: 403,
        error: "Insufficient permissions. Required scope(s): agents:run",
      });
      expect(await call(createScheduleAction, null, form(name))).toMatchObject({ ok: false, status: 401 });
      expect((await listSchedulePage(db, { scope: adminScope(), search: name, limit: 10 })).rows).toEqual([]);

      // A name the owner already uses is a 409; another user may use it.
      expect((await call(createScheduleAction, a, form(name))).ok).toBe(true);
      expect(await call(createScheduleAction, a, form(name))).toEqual({ ok: false, status: 409, error: `Schedule with name '${name}' already exists` });
      expect((await call(createScheduleAction, b, form(name))).ok).toBe(true);
    });

    it("user B can neither see, edit, enable, disable, trigger nor delete user A's schedule: it is not found, and nothing changes", async () => {
      const name = unique("a-private");
      await call(createScheduleAction, a, form(name));
      const mine = await named(a, name);
      expect((await listSchedulePage(db, { scope: dataScopeFor(b, a.userId), limit: 200 })).rows.map((s) => s.id)).not.toContain(mine.id);
      const notFound = { ok: false, status: 404, error: "Schedule not found" };
      expect(await call(updateScheduleAction, b, { ...form("hijacked"), scheduleId: mine.id })).toEqual(notFound);
      expect(await call(disableScheduleAction, b, { scheduleId: mine.id })).toEqual(notFound);
      expect(await call(enableScheduleAction, b, { scheduleId: mine.id })).toEqual(notFound);
      expect(await call(triggerScheduleAction, b, { scheduleId: mine.id })).toEqual(notFound);
      expect(await call(deleteScheduleAction, b, { scheduleId: mine.id })).toEqual(notFound);
      // A schedule id that does not exist reads the same, so B learns nothing about A's.
      expect(await call(triggerScheduleAction, b, { scheduleId: "no-such-schedule" })).toEqual(notFound);
      const after = await getSchedule(db, { scope: adminScope(), id: mine.id });
      expect(after).toMatchObject({ name, enabled: true, user_id: a.userId, payload: { message: "Good morning" } });
      expect((await listScheduleRunPage(db, { scope: adminScope(), scheduleId: mine.id, limit: 10 })).rows).toEqual([]);
      expect((await listScheduleRunPage(db, { scope: dataScopeFor(b), scheduleId: mine.id, limit: 10 })).rows).toEqual([]);
    });

    it("the owner edits its schedule: only what changed is written, a new expression re-arms it; a rename onto a used name is a 409", async () => {
      const name = unique("editable");
      const other = unique("taken");
      await call(createScheduleAction, a, form(name));
      await call(createScheduleAction, a, form(other));
      const created = await named(a, name);
      const edit = (extra: Record<string, string>) => call(updateScheduleAction, a, { ...form(name), scheduleId: created.id, ...extra });
      expect(await edit({})).toEqual({ ok: true, message: "Nothing changed." });
      expect(await edit({ cron_expr: "30 6 * * *", timezone: "Europe/Paris", message: "Bonjour", max_retries: "2", allow_overlap: "on" })).toEqual({ ok: true, message: `Schedule "${name}" saved.` });
      const edited = await getSchedule(db, { scope: dataScopeFor(a), id: created.id });
      expect(edited).toMatchObject({ cron_expr: "30 6 * * *", timezone: "Europe/Paris", payload: { message: "Bonjour" }, max_retries: 2, allow_overlap: true, user_id: a.userId });
      const paris = new Intl.DateTimeFormat("en-GB", { timeZone: "Europe/Paris", hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).format(new Date(edited!.next_run_at! * 1000));
      expect(paris).toBe("06:30");
      expect(await edit({ name: other })).toEqual({ ok: false, status: 409, error: `Schedule with name '${other}' already exists` });
      expect(await edit({ cron_expr: "every day" })).toMatchObject({ ok: false, status: 422, error: expect.stringMatching(/^cron_expr: Invalid cron expression/) });
      expect((await getSchedule(db, { scope: dataScopeFor(a), id: created.id }))?.name).toBe(name);
    });

    it("trigger fires at once: the schedule run is in the history and the list's last result, linked to a run of the owner's; disabled is a 409, enable re-arms", async () => {
      const name = unique("trigger-me");
      await call(createScheduleAction, a, form(name));
      const created = await named(a, name);
      expect(await call(triggerScheduleAction, a, { scheduleId: created.id })).toEqual({ ok: true, message: "Triggered: the fire succeeded." });
      const history = await listScheduleRunPage(db, { scope: dataScopeFor(a), scheduleId: created.id, limit: 10 });
      expect(history.rows).toHaveLength(1);
      const [fired] = history.rows;
      expect(fired).toMatchObject({ schedule_id: created.id, status: "success", user_id: a.userId, scheduled_for: null, attempt: 1 });
      expect(fired!.run_id).toBeTruthy();
      expect(await getRun(db, { scope: dataScopeFor(a), runId: fired!.run_id!, sessionId: fired!.session_id! })).toMatchObject({ status: "COMPLETED", user_id: a.userId });
      expect((await named(a, name)).last_run).toMatchObject({ id: fired!.id, status: "success", run_id: fired!.run_id, session_id: fired!.session_id });
      expect((await named(a, name)).last_run?.completed_at).toBeGreaterThan(0);

      expect(await call(disableScheduleAction, a, { scheduleId: created.id })).toEqual({ ok: true, message: `Schedule "${name}" disabled.` });
      expect(await call(triggerScheduleAction, a, { scheduleId: created.id })).toEqual({ ok: false, status: 409, error: "Schedule is disabled: enable it to trigger it" });
      expect((await listSchedulePage(db, { scope: dataScopeFor(a), search: name, enabled: false, limit: 10 })).rows.map((s) => s.id)).toEqual([created.id]);
      expect((await listSchedulePage(db, { scope: dataScopeFor(a), search: name, enabled: true, limit: 10 })).rows).toEqual([]);
      expect(await call(enableScheduleAction, a, { scheduleId: created.id })).toEqual({ ok: true, message: `Schedule "${name}" enabled.` });
      expect((await getSchedule(db, { scope: dataScopeFor(a), id: created.id }))?.next_run_at).toBeGreaterThan(Math.floor(Date.now() / 1000));

      // With the scheduler turned off, Trigger now says so (503), not a 500.
      await call(createScheduleAction, a, form(name), off);
      const elsewhere = (await listSchedulePage(await off.db(), { scope: dataScopeFor(a), search: name, limit: 10 })).rows[0]!;
      expect(await call(triggerScheduleAction, a, { scheduleId: elsewhere.id }, off)).toEqual({ ok: false, status: 503, error: "Scheduler is not running" });

      // Deleting takes the history with it; the run it started stays.
      expect(await call(deleteScheduleAction, a, { scheduleId: created.id })).toEqual({ ok: true, message: `Schedule "${name}" deleted.` });
      expect(await getSchedule(db, { scope: adminScope(), id: created.id })).toBeNull();
      expect((await listScheduleRunPage(db, { scope: adminScope(), scheduleId: created.id, limit: 10 })).rows).toEqual([]);
      expect(await getRun(db, { scope: dataScopeFor(a), runId: fired!.run_id!, sessionId: fired!.session_id! })).not.toBeNull();
    });

    it("an admin sees everyone's or one user's, creates for a named user (not a reserved subject) and edits anyone's; an endpoint is the admin's alone", async () => {
      const forA = unique("admin-for-a");
      expect(await call(createScheduleAction, admin, { ...form(forA), userId: a.userId! })).toMatchObject({ ok: true });
      const made = await named(a, forA);
      expect(made.user_id).toBe(a.userId);
      const bOwn = unique("b-own");
      await call(createScheduleAction, b, form(bOwn));
      const everyone = (await listSchedulePage(db, { scope: dataScopeFor(admin), limit: 200 })).rows.map((s) => s.name);
      expect(everyone).toEqual(expect.arrayContaining([forA, bOwn]));
      const onlyA = (await listSchedulePage(db, { scope: dataScopeFor(admin, a.userId), limit: 200 })).rows;
      expect(onlyA.every((s) => s.user_id === a.userId)).toBe(true);
      expect(onlyA.map((s) => s.name)).toContain(forA);
      expect(onlyA.map((s) => s.name)).not.toContain(bOwn);

      const theirs = await named(b, bOwn);
      expect(await call(updateScheduleAction, admin, { ...form(bOwn), scheduleId: theirs.id, message: "Checked by an admin" })).toMatchObject({ ok: true });
      expect(await getSchedule(db, { scope: adminScope(), id: theirs.id })).toMatchObject({ user_id: b.userId, payload: { message: "Checked by an admin" } });
      expect(await call(createScheduleAction, admin, { ...form(unique("reserved")), userId: "__scheduler__" })).toEqual({
        ok: false,
        status: 422,
        error: "userId: '__scheduler__' is reserved and cannot own a schedule",
      });
      const refresh = unique("refresh");
      expect(await call(createScheduleAction, admin, { ...form(refresh), target: "endpoint", method: "get", endpoint: "/config", payload: "" })).toMatchObject({ ok: true });
      expect(await named(admin, refresh)).toMatchObject({ method: "GET", endpoint: "/config", payload: null, user_id: admin.userId });
    });

    it("lists a keyset page at a time, newest first or by name, with each schedule's latest run", async () => {
      const owner = principalForUser(await createUser(db), app.settings);
      const names = ["charlie", "alpha", "bravo"].map((n) => `${n}-${dialect.name}`);
      for (const n of names) expect((await call(createScheduleAction, owner, form(n))).ok).toBe(true);
      const scope = dataScopeFor(owner);
      const byName = await listSchedulePage(db, { scope, sortBy: "name", order: "asc", limit: 2 });
      expect(byName.rows.map((s) => s.name)).toEqual([names[1], names[2]]);
      expect(byName.total).toEqual({ count: 3, capped: false });
      expect(byName.prev).toBeNull();
      const rest = await listSchedulePage(db, { scope, sortBy: "name", order: "asc", limit: 2, after: byName.next! });
      expect(rest.rows.map((s) => s.name)).toEqual([names[0]]);
      expect(rest.next).toBeNull();
      const back = await listSchedulePage(db, { scope, sortBy: "name", order: "asc", limit: 2, before: rest.prev! });
      expect(back.rows.map((s) => s.name)).toEqual([names[1], names[2]]);
      // A cursor is bound to its sort.
      await expect(listSchedulePage(db, { scope, sortBy: "created_at", limit: 2, after: byName.next! })).rejects.toThrow(/start from the first page/);
      const newest = await listSchedulePage(db, { scope, limit: 10 });
      expect(newest.rows.map((s) => s.id).sort()).toEqual(
        byName.rows
          .concat(rest.rows)
          .map((s) => s.id)
          .sort(),
      );
      const created = newest.rows.map((s) => s.created_at ?? 0);
      expect([...created].sort((x, y) => y - x)).toEqual(created);

      // The latest of several runs is the last result.
      const bravo = byName.rows[1]!;
      await call(triggerScheduleAction, owner, { scheduleId: bravo.id });
      await call(triggerScheduleAction, owner, { scheduleId: bravo.id });
      const runs = await listScheduleRunPage(db, { scope, scheduleId: bravo.id, limit: 1 });
      expect(runs.rows).toHaveLength(1);
      expect(runs.total).toEqual({ count: 2, capped: false });
      const older = await listScheduleRunPage(db, { scope, scheduleId: bravo.id, limit: 1, after: runs.next! });
      expect(older.rows).toHaveLength(1);
      expect(older.rows[0]!.id).not.toBe(runs.rows[0]!.id);
      const listed = (await listSchedulePage(db, { scope, search: names[2], limit: 10 })).rows[0]!;
      expect(listed.last_run?.id).toBe(runs.rows[0]!.id);
    });
  });
});
