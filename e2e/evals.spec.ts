import { expect, test, type Page } from "@playwright/test";
import { cspViolations, signInAsAdmin } from "./fixtures/dashboard.ts";
import { E2E_PORTS } from "./fixtures/ports.ts";

/**
 * The Evals pages against `next start` on SQLite, with the scripted model as the agent and the
 * judge (e2e/fixtures/judge-answers.ts: an answer holding the expected output scores 9): an
 * accuracy eval is started from the form, followed live to its end, its cases read on its page
 * with the run each made; running it again adds a point to its trend, and the list shows both.
 * On the app with the durable queue, a background eval is a job the Queue page shows, linked to
 * the eval.
 */

const SHOTS = process.env.AGENTRY_E2E_OUTPUT_DIR ? `${process.env.AGENTRY_E2E_OUTPUT_DIR}/screenshots` : "e2e/artifacts/screenshots";
const shot = (page: Page, name: string) => page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });
const durableApp = `http://127.0.0.1:${E2E_PORTS.durableApp}`;

test("create an accuracy eval against the scripted model, watch it complete, open its detail, run it again and see the trend point", async ({ page }) => {
  test.setTimeout(120_000);
  const violations = cspViolations(page);
  const name = `capital-${Date.now().toString(36)}`;
  await signInAsAdmin(page);

  await page.goto("/dashboard/evals");
  await page.getByRole("link", { name: "New eval" }).click();
  await expect(page).toHaveURL(/\/dashboard\/evals\/new$/);
  const form = page.getByRole("form", { name: "New eval" });
  await expect(form.getByLabel("Kind", { exact: true })).toHaveValue("accuracy");
  await expect(form.getByLabel("Agent", { exact: true })).toHaveValue("assistant");
  // The fields follow the kind.
  await form.getByLabel("Kind", { exact: true }).selectOption("reliability");
  await expect(form.getByLabel("Expected tool calls", { exact: true })).toBeVisible();
  await expect(form.getByLabel("Expected output", { exact: true })).toHaveCount(0);
  await form.getByLabel("Kind", { exact: true }).selectOption("accuracy");

  // A refusal names the field, and what was typed stays.
  await form.getByLabel("Name", { exact: true }).fill(name);
  await form.getByLabel("Input", { exact: true }).fill("Paris");
  await form.getByRole("button", { name: "Run eval" }).click();
  await expect(form.getByRole("alert")).toContainText("expected_output is required for accuracy evaluation");
  await expect(form.getByLabel("Input", { exact: true })).toHaveValue("Paris");

  await form.getByLabel("Expected output", { exact: true }).fill("Paris");
  await page.getByText("Iterations and models").click();
  await form.getByLabel("Iterations", { exact: true }).fill("2");
  await shot(page, "eval-new");
  await form.getByRole("button", { name: "Run eval" }).click();

  // The eval's page opens at once and follows it to its end.
  await expect(page).toHaveURL(/\/dashboard\/evals\/[0-9a-f-]{36}$/);
  const firstUrl = page.url();
  await expect(page.getByTestId("eval-name")).toHaveText(name);
  await expect(page.getByTestId("eval-status").getByTestId("status")).toHaveText("COMPLETED", { timeout: 30_000 });
  await expect(page.getByTestId("eval-headline")).toHaveText("9 / 10");
  const cases = page.getByTestId("eval-case");
  await expect(cases).toHaveCount(2);
  await expect(cases.first()).toContainText("Paris");
  await expect(cases.first()).toContainText("Echo: Paris");
  await expect(cases.first().getByTestId("case-score")).toHaveText("9 / 10");
  await expect(cases.first()).toContainText("The answer matches the expected output.");
  await expect(page.getByTestId("eval-trend")).toHaveAttribute("data-points", "1");
  await shot(page, "eval-detail");

  // Each case links to the run it made.
  await cases.first().getByRole("link").click();
  await expect(page).toHaveURL(/\/dashboard\/runs\//);
  await expect(page.getByTestId("status").first()).toHaveText("COMPLETED");
  await page.goto(firstUrl);

  // Run it again: a new eval run, and the trend has both points.
  await page.getByRole("button", { name: "Run again" }).click();
  await expect(page).not.toHaveURL(firstUrl);
  await expect(page).toHaveURL(/\/dashboard\/evals\/[0-9a-f-]{36}$/);
  await expect(page.getByTestId("eval-status").getByTestId("status")).toHaveText("COMPLETED", { timeout: 30_000 });
  await expect(page.getByTestId("eval-trend")).toHaveAttribute("data-points", "2");
  await expect(page.getByTestId("eval-trend").locator("svg")).toBeVisible();
  await shot(page, "eval-trend");

  // The list shows both runs, with their result; the kind filter keeps them.
  await page.goto("/dashboard/evals?kind=accuracy");
  const rows = page.getByTestId("evals-table").getByTestId("table-row").filter({ hasText: name });
  await expect(rows).toHaveCount(2);
  await expect(rows.first().getByTestId("eval-result")).toContainText("9 / 10");
  await page.goto("/dashboard/evals?kind=performance");
  await expect(page.getByTestId("evals-table").getByTestId("table-row").filter({ hasText: name })).toHaveCount(0);
  await page.goto("/dashboard/evals");
  await shot(page, "evals-list");
  expect(violations).toEqual([]);
});

test("durable queue: a background eval is a job on the Queue page, linked to its eval, whose page shows the timing chart", async ({ page }) => {
  test.setTimeout(120_000);
  await signInAsAdmin(page, durableApp);
  const origin = durableApp;
  const response = await page.request.post(`${durableApp}/eval-runs?background=true`, {
    data: { agent_id: "assistant", eval_type: "performance", input: "quick", num_iterations: 5, warmup_runs: 1, name: "queue-perf" },
    headers: { origin },
  });
  expect(response.status(), await response.text()).toBe(202);
  const started = (await response.json()) as { id: string; status: string };
  expect(started.status).toBe("PENDING");

  await page.goto(`${durableApp}/dashboard/queue?status=completed&status=running&status=queued`);
  const row = page
    .getByTestId("jobs-table")
    .getByTestId("table-row")
    .filter({ has: page.locator(`a[href="/dashboard/evals/${started.id}"]`) });
  await expect(row).toContainText("eval_run", { timeout: 20_000 });
  await expect(row.getByTestId("status")).toHaveText("completed", { timeout: 30_000 });
  await row.getByRole("link", { name: /^eval / }).click();
  await expect(page).toHaveURL(new RegExp(`/dashboard/evals/${started.id}$`));
  await expect(page.getByTestId("eval-status").getByTestId("status")).toHaveText("COMPLETED");
  await expect(page.getByTestId("run-times-chart")).toHaveAttribute("data-runs", "5");
  await expect(page.getByTestId("performance-figures")).toContainText("Run time");
  await expect(page.getByTestId("eval-agent-runs").getByRole("row")).toHaveCount(7);
  await shot(page, "eval-performance");
});
