import Database from "better-sqlite3";
import { expect, test, type Page } from "@playwright/test";
import { E2E_ADMIN, signInAsAdmin } from "./fixtures/dashboard.ts";

/**
 * The Metrics page, the top users and the Overview's last-7-days chart render real runs: two
 * chat turns in the playground (the signed-in admin's) and one API run of another user, counted
 * after a Refresh. The scripted model has no price, so its tokens show and its cost says "no price".
 */

const shot = (page: Page, name: string) => page.screenshot({ path: `e2e/artifacts/screenshots/${name}.png`, fullPage: true });
const API_USER = "e2e-metrics-api-user";
const OUTPUT_DIR = process.env.AGENTRY_E2E_OUTPUT_DIR ?? "e2e/artifacts/test-results";

async function chat(page: Page, message: string) {
  const before = await page.getByTestId("turn").count();
  await page.getByLabel("Message").fill(message);
  await page.getByLabel("Message").press("Enter");
  await expect(page.getByTestId("turn")).toHaveCount(before + 1);
  await expect(page.getByTestId("turn").last()).toContainText(`Echo: ${message}`);
}

/** The bars a chart drew (days with a value). */
const bars = (page: Page, testId: string) => page.getByTestId(testId).locator(".recharts-bar-rectangle path, path.recharts-bar-rectangle, .recharts-bar-rectangle .recharts-rectangle");

test("the metrics charts render real runs after a refresh; the top users and the Overview's week show them", async ({ page }) => {
  // The suite's specs share one database: this one counts what its own runs add.
  // The first number in an element's text ("1,234 runs · …" → 1234).
  const figure = async (testId: string) => Number((/[\d,]+/.exec((await page.getByTestId(testId).textContent()) ?? "")?.[0] ?? "0").replace(/,/g, ""));
  const unpriced = async () => ((await page.getByTestId("unpriced-note").count()) === 0 ? 0 : figure("unpriced-note"));
  await signInAsAdmin(page);
  await page.goto("/dashboard/metrics?days=7");
  await page.getByRole("button", { name: "Refresh now" }).click();
  await expect(page.getByText(/^Refreshed/)).toBeVisible();
  const before = { runs: await figure("total-runs"), sessions: await figure("total-sessions"), tokens: await figure("total-tokens"), unpriced: await unpriced() };
  await page.goto("/dashboard");
  const weekBefore = await figure("week-totals");

  await page.goto("/dashboard/agents/assistant");
  await chat(page, "hello metrics");
  await chat(page, "count me too");
  const api = await page.request.post("/agents/assistant/runs", { form: { message: "from the API", stream: "false", user_id: API_USER } });
  expect(api.status()).toBe(200);
  expect(((await api.json()) as { status: string }).status).toBe("COMPLETED");

  await page.goto("/dashboard/metrics?days=7");
  await expect(page.getByRole("heading", { name: "Metrics", level: 1 })).toBeVisible();
  await page.getByRole("button", { name: "Refresh now" }).click();
  await expect(page.getByText(/^Refreshed/)).toBeVisible();
  await expect(page.getByTestId("total-runs")).toHaveText(String(before.runs + 3));
  await expect(page.getByTestId("total-sessions")).toHaveText(String(before.sessions + 2));
  const tokens = await figure("total-tokens");
  expect(tokens).toBeGreaterThan(before.tokens);
  await expect(page.getByTestId("unpriced-note")).toContainText(`${before.unpriced + 3} runs used a model with no price`);
  // Today's bar in the runs and tokens charts.
  await expect(bars(page, "chart-runs")).not.toHaveCount(0);
  await expect(bars(page, "chart-tokens")).not.toHaveCount(0);
  await expect(page.getByTestId("chart-runs")).toHaveAttribute("data-total", String(before.runs + 3));
  await expect(page.getByTestId("chart-tokens")).toHaveAttribute("data-total", String(tokens));
  await expect(page.getByTestId("per-model").getByTestId("breakdown-row")).toContainText(["scripted (openai-compatible)"]);
  await expect(page.getByTestId("per-agent").getByTestId("breakdown-row")).toContainText(["assistant"]);
  await shot(page, "metrics");

  // One user's view: the URL carries the range and the user; the scripted model has no price.
  await page.goto(`/dashboard/metrics?days=7&user=${API_USER}`);
  await expect(page.getByTestId("total-runs")).toHaveText("1");
  await expect(page.getByTestId("total-cost")).toHaveText("no price");
  const model = page.getByTestId("per-model").getByTestId("breakdown-row");
  await expect(model).toHaveCount(1);
  await expect(model).toContainText("scripted (openai-compatible)");
  await expect(model.getByTestId("cost")).toHaveText("no price");

  await page.goto("/dashboard/metrics/users?days=7&by=tokens");
  await expect(page.getByTestId("top-users")).toContainText(E2E_ADMIN.email);
  await expect(page.getByTestId("top-users")).toContainText(API_USER);
  await shot(page, "metrics-top-users");

  await page.goto("/dashboard");
  await expect(page.getByTestId("week-totals")).toContainText(`${weekBefore + 2} runs`);
  await expect(bars(page, "chart-week-runs")).not.toHaveCount(0);
  await shot(page, "overview-week");

  const metrics = await page.request.get(`/metrics?user_id=${API_USER}`);
  expect(metrics.status()).toBe(200);
  const body = (await metrics.json()) as { metrics: { agent_runs_count: number; user_id: string; cost_metrics: { models: { model_id: string; cost: null }[] } }[] };
  expect(body.metrics.map((m) => [m.user_id, m.agent_runs_count])).toEqual([[API_USER, 1]]);
  expect(body.metrics[0].cost_metrics.models).toEqual([expect.objectContaining({ model_id: "scripted", cost: null })]);
});

test("a run stored with a cost shows on the cost chart and in the per-model breakdown", async ({ page }) => {
  // A run of a priced model, as the runtime stores one (the scripted model of this suite has no
  // price): its cost in run_data.metrics, written into the app's SQLite file.
  const db = new Database(`${OUTPUT_DIR}/e2e.db`);
  try {
    const now = Math.floor(Date.now() / 1000);
    const session = `priced-session-${now}`;
    db.prepare(`INSERT INTO agno_sessions (session_id, session_type, agent_id, user_id, session_data, created_at, updated_at) VALUES (?, 'agent', 'assistant', ?, ?, ?, ?)`).run(
      session,
      "e2e-priced-user",
      JSON.stringify({ session_metrics: { input_tokens: 12000, output_tokens: 3000, total_tokens: 15000, cost: 0.048 } }),
      now,
      now,
    );
    const run = {
      run_id: `priced-run-${now}`,
      session_id: session,
      agent_id: "assistant",
      model: "gpt-4o",
      model_provider: "openai",
      status: "COMPLETED",
      metrics: { input_tokens: 12000, output_tokens: 3000, total_tokens: 15000, cost: 0.06 },
      created_at: now,
    };
    db.prepare(
      `INSERT INTO agno_runs (run_id, session_id, run_type, agent_id, user_id, status, run_index, run_data, created_at, updated_at) VALUES (?, ?, 'agent', 'assistant', 'e2e-priced-user', 'COMPLETED', 0, ?, ?, ?)`,
    ).run(run.run_id, session, JSON.stringify(run), now, now);
  } finally {
    db.close();
  }
  expect((await page.request.post("/metrics/refresh")).status()).toBe(200);
  await signInAsAdmin(page);
  await page.goto("/dashboard/metrics?days=7&user=e2e-priced-user");
  await expect(page.getByTestId("total-cost")).toHaveText("$0.06");
  await expect(bars(page, "chart-cost")).not.toHaveCount(0);
  const model = page.getByTestId("per-model").getByTestId("breakdown-row");
  await expect(model).toContainText("gpt-4o (openai)");
  await expect(model.getByTestId("cost")).toHaveText("$0.06");
  await shot(page, "metrics-priced");
});
