import { expect, test } from "@playwright/test";
import { cspViolations, inviteMember, screenshot, sendMessage, signInAsAdmin } from "./fixtures/dashboard.ts";

/**
 * Approvals against `next start` on SQLite (named to run after auth.spec and dashboard.spec, which
 * expect a fresh database and only their own runs): a member's run calls the sample Host toolkit's
 * environment_variable_names (approval "required"; the scripted model calls it for "… environment
 * variables starting with P"), so it pauses with a pending approval; the member cannot continue it
 * past the approval; an admin sees it on the Approvals page (and its count in the navigation),
 * approves it with a note, and the run completes in the background without the member.
 */

const MEMBER = { email: "member-approvals@agentry.test", name: "Approval Member", password: "approval member password" } as const;
const shot = screenshot;

const send = sendMessage;

test("a required approval pauses a member's run, blocks the member's continue, and an admin's approval from the Approvals page completes the run", async ({ page, browser }) => {
  test.setTimeout(120_000);
  const violations = cspViolations(page);
  await signInAsAdmin(page);
  const member = await inviteMember(page, browser, MEMBER);

  // The member's run pauses for the approval; confirming it themselves is refused.
  await member.goto("/dashboard/agents/assistant");
  const turn = await send(member, "List the environment variables starting with NODE");
  await expect(turn.getByTestId("run-status")).toContainText("paused");
  const form = turn.getByRole("form", { name: "Decisions for the paused run" });
  await expect(form).toContainText("environment_variable_names");
  await form.getByRole("button", { name: "Confirm" }).click();
  await expect(turn.getByRole("alert").filter({ hasText: "requires admin approval" })).toHaveText("This run requires admin approval before it can be continued");
  await shot(member, "approvals-member-blocked");

  // The member sees its approval waiting, without a way to decide it.
  await member.goto("/dashboard/approvals");
  const mine = member.getByTestId("approvals-table").getByRole("row").filter({ hasText: "environment_variable_names" });
  await expect(mine).toHaveCount(1);
  await expect(mine).toContainText("pending");
  await expect(mine).toContainText("waiting for an admin");
  await expect(mine.getByRole("button", { name: "Approve" })).toHaveCount(0);

  // The admin's navigation counts it; the page lists it pending with the call and who asked.
  await page.goto("/dashboard/approvals");
  const nav = page.getByRole("navigation", { name: "Dashboard" }).filter({ visible: true });
  await expect(nav.getByRole("link", { name: /Approvals/ }).getByTestId("nav-count")).toHaveText(/^1/);
  const row = page.getByTestId("approvals-table").getByRole("row").filter({ hasText: "environment_variable_names" });
  await expect(row).toContainText('{"prefix":"NODE"}');
  await expect(row).toContainText(MEMBER.email);
  await expect(row).toContainText("pending");
  await shot(page, "approvals-pending");
  await row.getByLabel("Note").fill("Fine for debugging");
  await row.getByRole("button", { name: "Approve" }).click();
  await expect(row).toContainText("approved");
  await expect(row).toContainText("Fine for debugging");
  await expect(nav.getByRole("link", { name: /Approvals/ }).getByTestId("nav-count")).toHaveCount(0, { timeout: 15_000 });
  await shot(page, "approvals-approved");

  // The run completed in the background with the tool's result.
  await row.getByRole("link").first().click();
  await expect(page).toHaveURL(/\/dashboard\/runs\//);
  await expect(async () => {
    await page.reload();
    await expect(page.getByTestId("status").first()).toHaveText("COMPLETED", { timeout: 1000 });
  }).toPass({ timeout: 20_000 });
  await expect(page.getByText('"names"').first()).toBeVisible();
  await shot(page, "approvals-run-completed");

  // The member sees how it was decided.
  await member.goto("/dashboard/approvals");
  await expect(mine).toContainText("approved");
  await expect(mine).toContainText("Fine for debugging");
  expect(violations).toEqual([]);
});
