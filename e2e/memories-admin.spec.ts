import { expect, test, type Page } from "@playwright/test";
import { cspViolations, signInAsAdmin } from "./fixtures/dashboard.ts";

// Serial: the first test may perform the run's first-run setup on a fresh database, and the
// member test reads what the admin wrote before it.
test.describe.configure({ mode: "serial" });

const MEMBER = { email: "memory-member@agentry.test", name: "Mo Member", password: "member password 1" };
const PHONE = { width: 390, height: 844 };

/** A full-page screenshot at the current (desktop) size and at a phone's width. */
async function screenshots(page: Page, name: string): Promise<void> {
  const desktop = page.viewportSize()!;
  await page.screenshot({ path: `e2e/artifacts/screenshots/${name}.png`, fullPage: true });
  await page.setViewportSize(PHONE);
  await page.screenshot({ path: `e2e/artifacts/screenshots/${name}-phone.png`, fullPage: true });
  await page.setViewportSize(desktop);
}

const memoryRow = (page: Page, text: string) => page.getByTestId("memories-table").getByTestId("table-row").filter({ hasText: text });

test("memories: add with topics, filter by topic and text, edit in place, delete after confirming", async ({ page }) => {
  const violations = cspViolations(page);
  await signInAsAdmin(page);
  await page.getByRole("link", { name: "Memories" }).click();
  await expect(page).toHaveURL(/\/dashboard\/memories$/);
  await expect(page.getByRole("heading", { name: "Memories", level: 1 })).toBeVisible();
  await expect(page.getByTestId("memories-table")).toContainText("No memories yet");

  const add = page.getByRole("region", { name: "Add a memory" });
  await add.getByLabel("Memory").fill("Prefers answers in French");
  await add.getByLabel(/Topics/).fill("language, preferences");
  await add.getByRole("button", { name: "Add memory" }).click();
  await expect(add.getByRole("status")).toHaveText("Memory added.");
  await expect(add.getByLabel("Memory")).toHaveValue("");
  await add.getByLabel("Memory").fill("Drinks green tea, no sugar");
  await add.getByLabel(/Topics/).fill("food");
  await add.getByRole("button", { name: "Add memory" }).click();
  await expect(memoryRow(page, "Drinks green tea")).toHaveCount(1);
  await expect(memoryRow(page, "Prefers answers in French").getByRole("link", { name: "language" })).toBeVisible();
  await expect(page.getByText("2 in all")).toBeVisible();

  // A blank memory is refused by the browser before it reaches the server; whitespace by the server.
  await add.getByLabel("Memory").fill("   ");
  await add.getByRole("button", { name: "Add memory" }).click();
  await expect(add.getByRole("alert")).toHaveText("memory: write the memory's text");

  // A topic chip filters; the text filter is a plain GET form.
  await memoryRow(page, "Drinks green tea").getByRole("link", { name: "food" }).click();
  await expect(page).toHaveURL(/[?&]topic=food/);
  await expect(page.getByTestId("memories-table").getByTestId("table-row")).toHaveCount(1);
  await page.getByRole("link", { name: "Clear" }).click();
  await page.getByLabel("Text contains").fill("FRENCH");
  await page.getByRole("button", { name: "Apply" }).click();
  await expect(page).toHaveURL(/[?&]q=FRENCH/);
  await expect(page.getByTestId("memories-table").getByTestId("table-row")).toHaveCount(1);
  await expect(memoryRow(page, "Prefers answers in French")).toHaveCount(1);
  await page.getByRole("link", { name: "Clear" }).click();
  await expect(page.getByTestId("memories-table").getByTestId("table-row")).toHaveCount(2);

  // Sorting is in the URL too.
  await page.getByRole("button", { name: /Created \(UTC\)/ }).click();
  await expect(page).toHaveURL(/sort=created_at/);
  await expect(page.getByRole("columnheader", { name: /Created \(UTC\)/ })).toHaveAttribute("aria-sort", /ending$/);
  await expect(page.getByTestId("memories-table").getByTestId("table-row")).toHaveCount(2);
  await screenshots(page, "memories");

  // Edit in place: text and topics.
  await page.getByRole("button", { name: "Edit the memory “Prefers answers in French”" }).click();
  const editor = page.getByRole("form", { name: "Edit memory" });
  await editor.getByLabel("Memory text").fill("Prefers answers in Spanish");
  await editor.getByLabel(/Topics/).fill("language, spanish");
  await screenshots(page, "memories-edit");
  await editor.getByRole("button", { name: "Save" }).click();
  await expect(editor).toHaveCount(0);
  const edited = memoryRow(page, "Prefers answers in Spanish");
  await expect(edited.getByRole("link", { name: "spanish" })).toBeVisible();
  await expect(edited.getByRole("link", { name: "preferences" })).toHaveCount(0);

  // Delete asks first; "Keep" keeps it.
  await page.getByRole("button", { name: "Delete the memory “Drinks green tea, no sugar”" }).click();
  await page.getByRole("button", { name: "Keep" }).click();
  await expect(memoryRow(page, "Drinks green tea")).toHaveCount(1);
  await page.getByRole("button", { name: "Delete the memory “Drinks green tea, no sugar”" }).click();
  await page.getByRole("button", { name: "Confirm deleting the memory “Drinks green tea, no sugar”" }).click();
  await expect(memoryRow(page, "Drinks green tea")).toHaveCount(0);
  await expect(page.getByText("1 in all")).toBeVisible();

  // A cursor that was never issued is explained, and the first page shown instead.
  await page.goto("/dashboard/memories?after=bm9wZQ&page=2");
  await expect(page.getByRole("alert").filter({ hasText: "cursor is not one this server issued" })).toBeVisible();
  await expect(page.getByTestId("page-number")).toHaveText("Page 1");
  await expect(memoryRow(page, "Prefers answers in Spanish")).toHaveCount(1);
  expect(violations).toEqual([]);
});

test("service accounts: create one, see its token once, use it, revoke it", async ({ page, context, request }) => {
  const violations = cspViolations(page);
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await signInAsAdmin(page);
  await page.getByRole("link", { name: "Service accounts" }).click();
  await expect(page).toHaveURL(/\/dashboard\/admin\/service-accounts$/);
  await expect(page.getByText("None yet.")).toBeVisible();
  const create = page.getByRole("region", { name: "Create a service account" });

  // A bad scope is named, and what was typed is kept to fix.
  await create.getByLabel("Name", { exact: true }).fill("ci-deploy");
  await create.getByLabel("Allowed scopes").fill("agents:read agents-run");
  await create.getByRole("button", { name: "Create service account" }).click();
  await expect(create.getByRole("alert")).toContainText("allow: 'agents-run' is not a scope");
  await expect(create.getByLabel("Name", { exact: true })).toHaveValue("ci-deploy");
  await screenshots(page, "service-accounts-error");

  await create.getByLabel("Allowed scopes").fill("agents:read agents:run");
  await create.getByLabel("Denied scopes").fill("agents:secret:run");
  await create.getByRole("button", { name: "Create service account" }).click();
  const token = create.getByTestId("service-account-token");
  await expect(token).toHaveValue(/^agno_pat_[A-Za-z0-9_-]{43}$/);
  const secret = await token.inputValue();
  await expect(create.getByRole("status")).toContainText("shown only this once");
  await create.getByRole("button", { name: "Copy", exact: true }).click();
  await expect(create.getByRole("button", { name: "Copied", exact: true })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
  const row = page.getByTestId("service-account-row-ci-deploy");
  await expect(row).toContainText("active");
  await expect(row).toContainText("deny agents:secret:run");
  await expect(row).toContainText(secret.slice(0, 13));
  await screenshots(page, "service-accounts-created");

  // The token works against the API, within its scopes.
  const bearer = { authorization: `Bearer ${secret}` };
  expect((await request.get("/agents", { headers: bearer })).status()).toBe(200);

  // Never shown again: not after a reload, not anywhere in the page.
  await page.reload();
  await expect(page.getByTestId("service-account-token")).toHaveCount(0);
  expect(await page.content()).not.toContain(secret);
  // Its use was recorded (and it expires in 90 days): no "never" left in the row.
  await expect(row).not.toContainText("never");
  await row.getByRole("button", { name: "Revoke ci-deploy" }).click();
  await row.getByRole("button", { name: "Confirm revoking ci-deploy" }).click();
  await expect(row).toContainText("revoked");
  await expect(row.getByRole("button", { name: "Revoke ci-deploy" })).toHaveCount(0);
  expect((await request.get("/agents", { headers: bearer })).status()).toBe(401);
  await screenshots(page, "service-accounts");
  // A page past the last says so.
  await page.goto("/dashboard/admin/service-accounts?page=99");
  await expect(page.getByRole("alert").filter({ hasText: "There is no page 99" })).toBeVisible();
  expect(violations).toEqual([]);
});

test("database: every table's version, nothing pending, and Migrate reports each table", async ({ page }) => {
  const violations = cspViolations(page);
  await signInAsAdmin(page);
  await page.getByRole("link", { name: "Database" }).click();
  await expect(page).toHaveURL(/\/dashboard\/admin\/database$/);
  await expect(page.getByTestId("pending-count")).toHaveText("none: every table is at the latest version");
  const sessions = page.getByTestId("table-row-agno_sessions");
  await expect(sessions).toContainText("3.0.0");
  await expect(sessions).toContainText("up to date");
  await expect(page.getByTestId("table-row-agno_service_accounts")).toContainText("3.0.0");
  await screenshots(page, "database");

  await page.getByRole("button", { name: "Migrate", exact: true }).click();
  const result = page.getByTestId("migrate-result");
  await expect(result).toContainText("The database is up to date:");
  await expect(page.getByTestId("migrate-outcome-agno_sessions")).toContainText("unchanged");
  await expect(page.getByTestId("migrate-outcome-agno_memories")).toContainText("unchanged");
  await expect(page.getByRole("button", { name: "Migrate", exact: true })).toBeEnabled();
  await screenshots(page, "database-migrated");
  expect(violations).toEqual([]);
});

test("a member sees only their own memories and cannot open any admin page (404)", async ({ page, browser }) => {
  await signInAsAdmin(page);
  await page.getByRole("link", { name: "Users" }).click();
  await page.getByLabel("Email").fill(MEMBER.email);
  await page.getByRole("button", { name: "Create invite link" }).click();
  const link = await page.getByTestId("one-time-link").inputValue();

  const memberContext = await browser.newContext();
  const member = await memberContext.newPage();
  const violations = cspViolations(member);
  await member.goto(link);
  await member.getByLabel("Name").fill(MEMBER.name);
  await member.getByLabel("Password", { exact: true }).fill(MEMBER.password);
  await member.getByLabel("Confirm password").fill(MEMBER.password);
  await member.getByRole("button", { name: "Create account" }).click();
  await expect(member).toHaveURL(/\/dashboard$/);

  for (const path of ["/dashboard/admin", "/dashboard/admin/users", "/dashboard/admin/service-accounts", "/dashboard/admin/database"]) {
    expect((await member.goto(path))?.status(), path).toBe(404);
  }
  await expect(member.getByRole("link", { name: "Service accounts" })).toHaveCount(0);

  // The admin's memory is not the member's, even when the URL names the admin.
  await member.goto("/dashboard/memories?user=anyone");
  await expect(member.getByTestId("memories-table")).toContainText("No memories");
  await expect(member.getByText("Prefers answers in Spanish")).toHaveCount(0);
  await expect(member.getByRole("combobox", { name: /^User/ })).toHaveCount(0);
  const add = member.getByRole("region", { name: "Add a memory" });
  await add.getByLabel("Memory").fill("Works night shifts");
  await add.getByLabel(/Topics/).fill("schedule");
  await add.getByRole("button", { name: "Add memory" }).click();
  await expect(memoryRow(member, "Works night shifts")).toHaveCount(1);
  await screenshots(member, "memories-member");
  expect(violations).toEqual([]);

  // The admin sees it, filtered to that member.
  await page.goto("/dashboard/memories");
  await page.getByRole("combobox", { name: /^User/ }).selectOption({ label: MEMBER.email });
  await page.getByRole("button", { name: "Apply" }).click();
  await expect(page.getByTestId("memories-table").getByTestId("table-row")).toHaveCount(1);
  await expect(memoryRow(page, "Works night shifts")).toContainText(MEMBER.email);
  await screenshots(page, "memories-admin-filtered");
  await memberContext.close();
});
