import { expect, test, type Page } from "@playwright/test";
import { cspViolations, signInAsAdmin } from "./fixtures/dashboard.ts";

/**
 * The sample Brief workflow (agentry.config.ts) in the dashboard, against `next start`: the analyst
 * and the writer answer through the scripted model (e2e/fixtures/serve-model.ts echoes), then the
 * `file` step waits for a person's confirmation.
 */

const shot = (page: Page, name: string) => page.screenshot({ path: `e2e/artifacts/screenshots/${name}.png`, fullPage: true });

test.beforeEach(async ({ page }) => {
  await signInAsAdmin(page);
});

test("a workflow run pauses for review, is confirmed from the playground, and completes; a second run is confirmed from its run page", async ({ page }) => {
  const violations = cspViolations(page);
  await page.goto("/dashboard/agents");
  const card = page.getByTestId("workflow-brief");
  await expect(card.getByRole("heading", { name: "Brief" })).toBeVisible();
  await expect(card.getByRole("list", { name: "Steps" }).getByRole("listitem")).toHaveText(["Analyst", "→Writer", "→file(review)"]);
  await card.getByRole("link", { name: "Open the playground of Brief" }).click();
  await expect(page).toHaveURL(/\/dashboard\/workflows\/brief$/);
  await expect(page.getByTestId("workflow-step-0")).toHaveAttribute("data-status", "pending");

  await page.getByLabel("Message").fill("tides");
  await page.getByLabel("Message").press("Enter");
  await expect(page.getByTestId("workflow-step-0")).toHaveAttribute("data-status", "done");
  await expect(page.getByTestId("workflow-step-0").getByTestId("step-content")).toHaveText("Echo: tides");
  await expect(page.getByTestId("workflow-step-1")).toHaveAttribute("data-status", "done");
  await expect(page.getByTestId("workflow-step-1").getByTestId("step-content")).toHaveText("Echo: Echo: tides");
  await expect(page.getByTestId("workflow-step-2")).toHaveAttribute("data-status", "paused");
  const review = page.getByTestId("step-review");
  await expect(review).toContainText("File this draft?");
  await shot(page, "workflow-paused");

  await review.getByRole("button", { name: "Confirm" }).click();
  await expect(page.getByTestId("workflow-step-2")).toHaveAttribute("data-status", "done");
  await expect(page.getByTestId("workflow-result")).toHaveText("Filed: Echo: Echo: tides");
  await expect(page.getByTestId("run-status")).toContainText("completed");
  await shot(page, "workflow-completed");

  // The run page: its steps, its step agents' runs, and (for a paused run) the same review form.
  await page.getByRole("link", { name: "Run details" }).click();
  await expect(page.locator("dl").first()).toContainText("Workflowbrief");
  await expect(page.getByTestId("workflow-step-results").getByRole("listitem")).toHaveCount(3);
  await expect(page.getByTestId("member-runs").getByRole("listitem")).toHaveCount(2);
  await shot(page, "workflow-run-page");

  await page.goto("/dashboard/workflows/brief");
  await page.getByLabel("Message").fill("currents");
  await page.getByLabel("Message").press("Enter");
  await expect(page.getByTestId("workflow-step-2")).toHaveAttribute("data-status", "paused");
  await page.getByRole("link", { name: "Run details" }).click();
  await expect(page.getByRole("heading", { name: "Waiting for you" })).toBeVisible();
  await page.getByTestId("step-review").getByRole("button", { name: "Reject" }).click();
  // on_reject "skip": the file step is skipped and the run completes with the writer's draft.
  await expect(page.getByTestId("run-output")).toHaveText("Echo: Echo: currents");
  await expect(page.locator("header").getByText("COMPLETED")).toBeVisible();
  expect(violations).toEqual([]);
});

test("an unknown workflow's playground is a 404", async ({ page }) => {
  const response = await page.goto("/dashboard/workflows/no-such-workflow");
  expect(response?.status()).toBe(404);
});
