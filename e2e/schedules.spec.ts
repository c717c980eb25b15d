import { expect, test, type Browser, type Page } from "@playwright/test";
import { E2E_ADMIN, cspViolations, signInAsAdmin } from "./fixtures/dashboard.ts";

/**
 * The Schedules pages against `next start` on SQLite: a schedule for the sample agent is created
 * with its live cron preview (computed in the browser by lib/scheduler/cron.ts), triggered from
 * its page, and the schedule run appears in its history linked to the run, which Runs lists too.
 * The browser runs in Tokyo while the schedule keeps UTC, so the preview and the list show the
 * viewer's clock. A member sees only their own schedules; an admin everyone's, or one user's.
 */

const MEMBER = { email: "member-schedules@agentry.test", name: "Schedule Member", password: "schedule member password" } as const;
const VIEWER_ZONE = "Asia/Tokyo";
const SHOTS = process.env.AGENTRY_E2E_OUTPUT_DIR ? `${process.env.AGENTRY_E2E_OUTPUT_DIR}/screenshots` : "e2e/artifacts/screenshots";
const shot = (page: Page, name: string) => page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });

test.use({ timezoneId: VIEWER_ZONE });

/** Invites a member as the signed-in admin and creates their account in a browser of their own (also in Tokyo). */
async function inviteMember(admin: Page, browser: Browser): Promise<Page> {
  await admin.goto("/dashboard/admin/users");
  await admin.getByLabel("Email", { exact: true }).fill(MEMBER.email);
  await admin.getByRole("button", { name: "Create invite link" }).click();
  const link = await admin.getByTestId("one-time-link").inputValue();
  const member = await (await browser.newContext({ timezoneId: VIEWER_ZONE })).newPage();
  await member.goto(link);
  await member.getByLabel("Name", { exact: true }).fill(MEMBER.name);
  await member.getByLabel("Password", { exact: true }).fill(MEMBER.password);
  await member.getByLabel("Confirm password", { exact: true }).fill(MEMBER.password);
  await member.getByRole("button", { name: "Create account" }).click();
  await expect(member).toHaveURL(/\/dashboard$/);
  return member;
}

test("create a schedule with the live cron preview, trigger it, and see its run in the history and in Runs; a member sees only their own", async ({ page, browser }) => {
  test.setTimeout(120_000);
  const violations = cspViolations(page);
  const name = `morning-report-${Date.now().toString(36)}`;
  const message = `hello from schedule ${name}`;
  await signInAsAdmin(page);

  await page.goto("/dashboard/schedules");
  await page.getByRole("link", { name: "New schedule" }).click();
  await expect(page).toHaveURL(/\/dashboard\/schedules\/new$/);
  const form = page.getByRole("form", { name: "New schedule" });
  await form.getByLabel("Name", { exact: true }).fill(name);
  await expect(form.getByLabel("Agent", { exact: true })).toHaveValue("assistant");
  await form.getByLabel("Message", { exact: true }).fill(message);

  // The preview follows the expression as it is typed: a partial one says what is wrong with it.
  const preview = page.getByTestId("cron-preview");
  const cron = form.getByLabel("Cron expression", { exact: true });
  await cron.pressSequentially("0 9 *");
  await expect(preview.getByTestId("cron-problem")).toContainText("expected 5 fields (minute hour day-of-month month day-of-week), got 3");
  await cron.pressSequentially(" * 1-5");
  await expect(preview.getByTestId("cron-words")).toHaveText("At 09:00, Monday through Friday");
  const times = preview.getByTestId("cron-next-runs").getByRole("listitem");
  await expect(times).toHaveCount(5);
  // 09:00 UTC is 18:00 in Tokyo, on a weekday.
  await expect(preview).toContainText(`in your time zone (${VIEWER_ZONE})`);
  for (const item of await times.all()) await expect(item).toContainText(/^(Mon|Tue|Wed|Thu|Fri) \d{4}-\d{2}-\d{2} 18:00 GMT\+9 · \d{4}-\d{2}-\d{2} 09:00 UTC$/);
  await shot(page, "schedule-new-preview");

  // A bad field is refused with a message naming it, and what was typed stays.
  await form.getByLabel("Time zone", { exact: true }).fill("Mars/Olympus");
  await expect(preview.getByTestId("cron-problem")).toContainText("Invalid timezone: Mars/Olympus");
  await form.getByRole("button", { name: "Create schedule" }).click();
  await expect(form.getByRole("alert")).toHaveText("timezone: Invalid timezone: Mars/Olympus (use an IANA name such as Europe/Paris or UTC)");
  await expect(form.getByLabel("Message", { exact: true })).toHaveValue(message);
  await shot(page, "schedule-new-error");
  await form.getByLabel("Time zone", { exact: true }).fill("UTC");
  await form.getByRole("button", { name: "Create schedule" }).click();

  // The list: the new schedule with its target, its expression in words, the next fire on the viewer's clock.
  await expect(page).toHaveURL(/\/dashboard\/schedules\?created=/);
  await expect(page.getByRole("status").filter({ hasText: `Schedule “${name}” created.` })).toBeVisible();
  const row = page.getByTestId("schedules-table").getByTestId("table-row").filter({ hasText: name });
  await expect(row).toHaveCount(1);
  await expect(row).toContainText("agent assistant");
  await expect(row.getByTestId("cron-words")).toContainText("At 09:00, Monday through Friday");
  await expect(row).toContainText(/\d{4}-\d{2}-\d{2} 18:00 GMT\+9/);
  await expect(row).toContainText("never fired");
  await expect(row.getByTestId("enabled")).toHaveText("enabled");
  await expect(row).toContainText(E2E_ADMIN.email);
  await shot(page, "schedules-list");

  // Trigger now: the fire runs the agent and the history shows the schedule run, linked to the run.
  await row.getByRole("link", { name }).click();
  await expect(page.getByTestId("schedule-name")).toHaveText(name);
  await expect(page.getByTestId("schedule-runs-table")).toContainText("No runs yet.");
  await page.getByRole("button", { name: "Trigger now" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Triggered: the fire succeeded." })).toBeVisible({ timeout: 30_000 });
  const history = page.getByTestId("schedule-runs-table").getByTestId("table-row");
  await expect(history).toHaveCount(1);
  await expect(history.getByTestId("status")).toHaveText("success");
  await expect(history).toContainText("trigger (manual)");
  const runLink = history.getByTestId("run-link");
  await expect(runLink).toHaveAttribute("href", /^\/dashboard\/runs\/[^?]+\?session_id=/);
  const runId = (await runLink.textContent())!.trim();
  await shot(page, "schedule-detail-triggered");

  await runLink.click();
  await expect(page).toHaveURL(new RegExp(`/dashboard/runs/${runId}\\?session_id=`));
  await expect(page.getByTestId("run-input")).toHaveText(message);
  await expect(page.getByTestId("run-output")).toHaveText(`Echo: ${message}`);
  await expect(page.getByTestId("status").first()).toHaveText("COMPLETED");
  await shot(page, "schedule-run-detail");

  // Runs lists the run the schedule started.
  await page.goto("/dashboard/runs");
  await expect(page.getByTestId("runs-table").getByRole("link", { name: message })).toBeVisible();
  await shot(page, "schedule-run-in-runs");

  // The list's last result is the fire's, linked to the run.
  await page.goto("/dashboard/schedules");
  await expect(row.getByTestId("status")).toHaveText("success");
  await expect(row.locator(`a[href^="/dashboard/runs/${runId}"]`)).toHaveCount(1);

  // Edit: a bad expression is a clear error; a good one re-arms it; disable hides Trigger now.
  await row.getByRole("link", { name }).click();
  const edit = page.getByRole("form", { name: "Edit schedule" });
  await edit.getByLabel("Cron expression", { exact: true }).fill("0 25 * * *");
  await expect(edit.getByTestId("cron-problem")).toBeVisible();
  await edit.getByRole("button", { name: "Save changes" }).click();
  await expect(edit.getByRole("alert")).toContainText("cron_expr: Invalid cron expression: 0 25 * * *");
  await shot(page, "schedule-edit-error");
  await edit.getByLabel("Cron expression", { exact: true }).fill("30 7 * * *");
  await expect(edit.getByTestId("cron-words")).toHaveText("At 07:30");
  await edit.getByRole("button", { name: "Save changes" }).click();
  await expect(edit.getByRole("status")).toHaveText(`Schedule "${name}" saved.`);
  await expect(page.getByTestId("schedule-cron-words")).toHaveText("At 07:30");
  await expect(page.getByTestId("schedule-next-fire")).toContainText("16:30 GMT+9");
  await page.getByRole("button", { name: "Disable" }).click();
  await expect(page.getByRole("button", { name: "Enable" })).toBeVisible();
  await expect(page.getByTestId("enabled").first()).toHaveText("disabled");
  await expect(page.getByRole("button", { name: "Trigger now" })).toHaveCount(0);
  await shot(page, "schedule-detail-disabled");
  const scheduleUrl = page.url();

  // A member: none of the admin's schedules, whose page is a 404; their own form has no raw endpoint.
  const member = await inviteMember(page, browser);
  await member.goto("/dashboard/schedules");
  await expect(member.getByText("No schedules yet.")).toBeVisible();
  expect((await member.goto(scheduleUrl))?.status()).toBe(404);
  await member.goto("/dashboard/schedules/new");
  const memberForm = member.getByRole("form", { name: "New schedule" });
  await expect(memberForm.getByText("An endpoint (advanced)")).toHaveCount(0);
  await expect(memberForm.getByLabel("For user", { exact: true })).toHaveCount(0);
  await memberForm.getByLabel("Name", { exact: true }).fill(`member-${name}`);
  await memberForm.getByLabel("Message", { exact: true }).fill("a member's schedule");
  await memberForm.getByLabel("Cron expression", { exact: true }).fill("0 * * * *");
  await memberForm.getByRole("button", { name: "Create schedule" }).click();
  await expect(member).toHaveURL(/\/dashboard\/schedules\?created=/);
  const memberRows = member.getByTestId("schedules-table").getByTestId("table-row");
  await expect(memberRows).toHaveCount(1);
  await expect(memberRows).toContainText(`member-${name}`);
  await shot(member, "schedules-member");

  // The admin sees both, and only the member's with the user filter.
  await page.goto("/dashboard/schedules");
  const adminRows = page.getByTestId("schedules-table").getByTestId("table-row");
  await expect(adminRows.filter({ hasText: `member-${name}` })).toContainText(MEMBER.email);
  await expect(adminRows.filter({ hasText: name })).toHaveCount(2);
  await page.getByRole("search").getByRole("combobox", { name: "User", exact: true }).selectOption({ label: MEMBER.email });
  await page.getByRole("search").getByRole("button", { name: "Apply" }).click();
  await expect(page).toHaveURL(/user=/);
  await expect(adminRows).toHaveCount(1);
  await expect(adminRows).toContainText(`member-${name}`);
  await shot(page, "schedules-admin-user-filter");

  expect(violations).toEqual([]);
});
