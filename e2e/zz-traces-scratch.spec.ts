import { expect, test } from "@playwright/test";
import { signInAsAdmin } from "./fixtures/dashboard.ts";

// Scratch: screenshots of traces of a team, a failure and a continued paused run (deleted after).
test("scratch trace shots", async ({ page }) => {
  test.setTimeout(120_000);
  await signInAsAdmin(page);
  const origin = new URL(page.url()).origin;
  const post = async (path: string, form: Record<string, string>) => {
    const r = await page.request.post(origin + path, { form: { stream: "false", ...form }, headers: { origin } });
    return (await r.json()) as { run_id: string; session_id: string };
  };
  const team = await post("/teams/research-desk/runs", { message: "ask the analyst to add 2 and 3" });
  await post("/agents/assistant/runs", { message: "fail now" });
  const paused = await post("/agents/assistant/runs", { message: "Show me the server details" });
  await page.goto(`/dashboard/runs/${paused.run_id}?session_id=${paused.session_id}`);
  await page.getByRole("button", { name: "Confirm" }).click();
  await expect(page.getByTestId("status").first()).toHaveText("COMPLETED", { timeout: 15_000 });
  await expect(page.getByTestId("trace-waterfall")).toBeVisible({ timeout: 15_000 });
  await page.screenshot({ path: "/tmp/shots/run-continued.png", fullPage: true });
  await page.getByRole("link", { name: "Open trace" }).click();
  await page.getByTestId("trace-span").last().getByRole("button").first().click();
  await page.screenshot({ path: "/tmp/shots/trace-continued.png", fullPage: true });

  await page.goto(`/dashboard/runs/${team.run_id}?session_id=${team.session_id}`);
  await expect(page.getByTestId("trace-waterfall")).toBeVisible({ timeout: 15_000 });
  await page.screenshot({ path: "/tmp/shots/run-team.png", fullPage: true });
  await page.getByTestId("member-runs").locator("summary").first().click();
  await page.getByRole("link", { name: "Member run details" }).first().click();
  await expect(page.getByTestId("trace-waterfall")).toBeVisible({ timeout: 15_000 });
  await page.screenshot({ path: "/tmp/shots/run-member.png", fullPage: true });
  await page.getByRole("link", { name: "Open trace" }).click();
  await page.screenshot({ path: "/tmp/shots/trace-team.png", fullPage: true });

  await page.goto("/dashboard/traces?status=ERROR");
  await page.getByTestId("traces-table").getByRole("link").first().click();
  await page.getByTestId("trace-span").filter({ hasText: "ERROR" }).last().getByRole("button").first().click();
  await page.screenshot({ path: "/tmp/shots/trace-error.png", fullPage: true });
  await page.goto("/dashboard/traces");
  await page.screenshot({ path: "/tmp/shots/traces-mixed.png", fullPage: true });
  await page.goto("/dashboard/traces?view=session");
  await page.screenshot({ path: "/tmp/shots/traces-sessions.png", fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`/dashboard/runs/${team.run_id}?session_id=${team.session_id}`);
  await page.screenshot({ path: "/tmp/shots/run-team-phone.png", fullPage: true });
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
});
