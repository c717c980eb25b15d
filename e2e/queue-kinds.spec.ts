import Database from "better-sqlite3";
import { expect, test } from "@playwright/test";
import { E2E_ADMIN, fillSetup, fillSignIn } from "./fixtures/dashboard.ts";
import { E2E_PORTS } from "./fixtures/ports.ts";

/**
 * The Queue page shows every kind of job, while Agno's /queue API lists run jobs unless a
 * job_type names others: a job of another kind (here an eval job, as a later kind will store it:
 * no session, its kind as component_type) is written into the durable app's SQLite file.
 */

const durableApp = `http://127.0.0.1:${E2E_PORTS.durableApp}`;
const OUTPUT_DIR = process.env.AGENTRY_E2E_OUTPUT_DIR ?? "e2e/artifacts/test-results";

test("the queue page lists a job of another kind with its kind and subject and no run link; /queue/jobs shows it only when job_type names it", async ({ page }) => {
  const id = `eval-job-${Date.now()}`;
  const db = new Database(`${OUTPUT_DIR}/e2e-durable.db`);
  try {
    const now = Math.floor(Date.now() / 1000);
    db.prepare(
      `INSERT INTO agno_jobs (id, component_type, job_type, component_id, session_id, user_id, payload, status, attempt, lease_losses, max_attempts,
                              available_at, created_at, updated_at, completed_at)
       VALUES (?, 'eval', 'eval', 'eval-accuracy-1', NULL, NULL, '{}', 'completed', 1, 0, 1, ?, ?, ?, ?)`,
    ).run(id, now, now, now, now);
  } finally {
    db.close();
  }

  await page.goto(`${durableApp}/dashboard`);
  if (page.url().endsWith("/setup")) await fillSetup(page, E2E_ADMIN);
  else await fillSignIn(page, E2E_ADMIN);
  await expect(page).toHaveURL(/\/dashboard$/);

  await page.goto(`${durableApp}/dashboard/queue`);
  const row = page.getByTestId("jobs-table").getByTestId("table-row").filter({ hasText: "eval-accuracy-1" });
  await expect(row).toHaveCount(1);
  await expect(row).toContainText("eval");
  await expect(row.getByTestId("status")).toHaveText("completed");
  // No session, so no run page to link to.
  await expect(row.locator("a[href*='/dashboard/runs/']")).toHaveCount(0);
  await page.screenshot({ path: "e2e/artifacts/screenshots/queue-job-kinds.png", fullPage: true });

  const listed = async (query: string) => {
    const response = await page.request.get(`${durableApp}/queue/jobs${query}`);
    expect(response.status()).toBe(200);
    return ((await response.json()) as { data: { id: string }[] }).data.map((job) => job.id);
  };
  expect(await listed("?limit=100")).not.toContain(id);
  expect(await listed("?job_type=eval")).toEqual([id]);
});
