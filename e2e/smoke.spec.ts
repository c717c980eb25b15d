import { expect, test } from "@playwright/test";
import { signInAsAdmin } from "./fixtures/dashboard.ts";

test("the API answers and the dashboard renders in Chromium", async ({ page, request }) => {
  const health = await request.get("/health");
  expect(health.status()).toBe(200);
  expect(await health.json()).toMatchObject({ status: "ok" });
  // Trailing slash: stripped, not redirected.
  const slash = await request.get("/health/", { maxRedirects: 0 });
  expect(slash.status()).toBe(200);
  const info = await (await request.get("/info")).json();
  expect(info).toMatchObject({ os_id: "agentry", auth_mode: "none" });
  expect((await request.get("/models")).status()).toBe(404);

  // A browser asking for / lands on the dashboard, once signed in (first-run setup if no user yet).
  await signInAsAdmin(page);
  await page.goto("/");
  await expect(page).toHaveURL(/\/dashboard$/);
  await expect(page.getByRole("heading", { name: "Agents" })).toBeVisible();
  const agents = page.getByRole("region", { name: "Agents" });
  await expect(agents).toContainText("Assistant (assistant)");
  await expect(agents).toContainText("openai-compatible/scripted");
  await expect(page.getByTestId("database")).toContainText("sqlite");
  await page.screenshot({ path: "e2e/artifacts/dashboard.png", fullPage: true });

  await page.goto("/docs");
  await expect(page.locator(".swagger-ui")).toBeVisible();
  await expect(page.getByText("/databases/{db_id}/migrate").first()).toBeVisible({ timeout: 15_000 });
  await page.screenshot({ path: "e2e/artifacts/docs.png", fullPage: false });
});
