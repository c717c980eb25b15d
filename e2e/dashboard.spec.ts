import { expect, test, type Page } from "@playwright/test";
import { E2E_ADMIN, cspViolations, fillSetup, fillSignIn, signInAsAdmin, inviteMember } from "./fixtures/dashboard.ts";
import { E2E_PORTS } from "./fixtures/ports.ts";

/**
 * The dashboard's workspace pages against `next start` on SQLite: Runs, Sessions and the Queue
 * (in-process on the default app; durable with the embedded worker on the durable app), with
 * runs started through the public API as the signed-in user (the dashboard cookie authenticates
 * same-origin API calls).
 */

const MEMBER_B = { email: "member-b@agentry.test", name: "Member B", password: "member b password" } as const;
const durableApp = `http://127.0.0.1:${E2E_PORTS.durableApp}`;
const shot = (page: Page, name: string) => page.screenshot({ path: `e2e/artifacts/screenshots/${name}.png`, fullPage: true });

type Accepted = { run_id: string; session_id: string; status: string };

/**
 * Starts a run through the public API as the signed-in user: the page's cookies, sent same-origin
 * (a cookie on a cross-site request authenticates no one).
 */
async function apiRun(page: Page, base: string, form: Record<string, string>): Promise<Accepted & Record<string, unknown>> {
  const origin = new URL(page.url()).origin;
  const response = await page.request.post(`${base || origin}/agents/assistant/runs`, { form: { stream: "false", ...form }, headers: { origin } });
  expect(response.status(), await response.text()).toBeLessThan(300);
  return (await response.json()) as Accepted & Record<string, unknown>;
}

test("Runs and Sessions show the signed-in user's runs with their content; sessions rename; user B sees none of user A's", async ({ page, browser }) => {
  const violations = cspViolations(page);
  await signInAsAdmin(page);
  await shot(page, "overview");
  const first = await apiRun(page, "", { message: "hello from A" });
  expect(first.content).toBe("Echo: hello from A");
  await page.waitForTimeout(1100); // created_at has one-second resolution: keep "newest first" unambiguous
  await apiRun(page, "", { message: "add 2 and 3", session_id: first.session_id });

  await page.getByRole("link", { name: "Runs", exact: true }).click();
  await expect(page).toHaveURL(/\/dashboard\/runs$/);
  const runs = page.getByTestId("runs-table");
  await expect(runs.getByRole("link", { name: "hello from A" })).toBeVisible();
  await expect(runs.getByTestId("table-row").first()).toContainText("add 2 and 3"); // newest first
  await expect(runs.getByTestId("table-row").first()).toContainText(E2E_ADMIN.email); // the runs are the signed-in user's
  await shot(page, "runs");

  // Sorting is in the URL, and the back button restores the previous order.
  await runs.getByRole("button", { name: /Created/ }).click();
  await expect(page).toHaveURL(/sort=created_at&order=asc/);
  await expect(runs.getByTestId("table-row").first()).toContainText("hello from A");
  await page.goBack();
  await expect(runs.getByTestId("table-row").first()).toContainText("add 2 and 3");
  // Filters too: a status no run has gives the empty state.
  await page.goto("/dashboard/runs?status=PAUSED");
  await expect(page.getByText("No runs match these filters.")).toBeVisible();
  await page.goto("/dashboard/runs?status=BOGUS&after=not-a-cursor");
  await expect(page.getByRole("alert").filter({ hasText: "status must be one of" })).toBeVisible();
  await expect(page.getByRole("alert").filter({ hasText: "cursor is not one this server issued" })).toBeVisible();
  // Ids and filters that are no text a database stores: a broken escape or a NUL is "not found" / no filter, never an error page.
  for (const path of ["/dashboard/sessions/%25E0%25A4", "/dashboard/runs/%2500", "/dashboard/sessions/a%00b"]) {
    expect((await page.goto(path))?.status(), path).toBe(404);
  }
  expect((await page.goto("/dashboard/sessions?q=%00&user=%ED%A0%80"))?.status()).toBe(200);

  // The run's detail has the same content, its tool call and its events.
  await page.goto("/dashboard/runs");
  await page.getByTestId("runs-table").getByRole("link", { name: "add 2 and 3" }).click();
  await expect(page.getByTestId("run-input")).toHaveText("add 2 and 3");
  await expect(page.getByTestId("run-output")).toHaveText(`The result is {"result":5}.`);
  await expect(page.getByTestId("tool-call")).toContainText("add");
  // The sample agent does not store events (Agno's default); durable runs always do (below).
  await expect(page.getByText("No events were stored for this run")).toBeVisible();
  const runUrl = page.url();

  // Its trace, inline: "trace not exported yet" until the exporter has stored the run's spans
  // (the page refreshes itself), then the run's span with the model and tool calls under it.
  const runTrace = page.getByRole("region", { name: "Trace", exact: true });
  await expect(runTrace.getByTestId("trace-waterfall").or(runTrace.getByText("trace not exported yet"))).toBeVisible();
  await expect(runTrace.getByTestId("trace-waterfall")).toBeVisible({ timeout: 15_000 });
  const spanTypes = (scope: typeof page | typeof runTrace) => scope.getByTestId("trace-span").evaluateAll((rows) => rows.map((row) => row.getAttribute("data-span-type")));
  expect(await spanTypes(runTrace)).toEqual(["AGENT", "LLM", "TOOL", "LLM"]);
  await shot(page, "run-detail");

  // The trace view: the same spans in order, each with its duration; a span's panel shows a tool call's arguments and result, a model call's model and tokens.
  await runTrace.getByRole("link", { name: "Open trace" }).click();
  await expect(page).toHaveURL(/\/dashboard\/traces\/[0-9a-f]{32}$/);
  const traceUrl = page.url();
  await expect(page.getByTestId("trace-name")).toHaveText("Assistant.run");
  const spans = page.getByTestId("trace-span");
  expect(await spanTypes(page)).toEqual(["AGENT", "LLM", "TOOL", "LLM"]);
  await expect(spans.nth(2).getByTestId("span-name")).toHaveText("add");
  for (const duration of await spans.getByTestId("span-duration").allInnerTexts()) expect(duration).toMatch(/^\d+ms$|^\d+\.\d\ds$/);
  await spans.nth(2).getByRole("button", { name: /add/ }).click();
  const panel = page.getByTestId("span-panel");
  await expect(panel.getByLabel("add arguments")).toContainText('"a": 2');
  await expect(panel.getByLabel("add result")).toContainText('"result": 5');
  await spans.nth(1).getByRole("button").first().click();
  await expect(panel).toContainText("openai-compatible/scripted");
  await expect(panel.getByTestId("span-tokens")).toContainText(" in · ");
  await shot(page, "trace-view");

  // The Traces page lists it (its input, its spans) newest first, by run and by session.
  await page.getByRole("link", { name: "Traces", exact: true }).first().click();
  await expect(page).toHaveURL(/\/dashboard\/traces$/);
  const traces = page.getByTestId("traces-table");
  await expect(traces.getByTestId("table-row").first()).toContainText("add 2 and 3");
  await expect(traces.getByTestId("table-row").first()).toContainText(E2E_ADMIN.email);
  await shot(page, "traces");
  await page.getByRole("link", { name: "By session" }).click();
  await expect(page.getByTestId("trace-sessions-table").getByTestId("table-row").first()).toContainText(first.session_id);

  // Sessions: the session with both runs; its history; rename.
  await page.getByRole("link", { name: "Sessions", exact: true }).click();
  const sessions = page.getByTestId("sessions-table");
  await expect(sessions.getByTestId("table-row").first()).toContainText("2");
  await shot(page, "sessions");
  await sessions.getByTestId("table-row").first().getByRole("link").first().click();
  await expect(page.getByTestId("chat-history")).toContainText("Echo: hello from A");
  await expect(page.getByTestId("chat-history")).toContainText(`The result is {"result":5}.`);
  await page.getByLabel("Session name").fill("Arithmetic with A");
  await page.getByRole("button", { name: "Rename" }).click();
  await expect(page.getByText('Renamed to "Arithmetic with A".')).toBeVisible();
  await page.reload();
  await expect(page.getByTestId("session-name")).toHaveText("Arithmetic with A");
  await shot(page, "session-detail");
  const sessionUrl = page.url();
  // "Continue chatting" opens the playground on this session, its history above the chat.
  await page.getByRole("link", { name: "Continue chatting" }).click();
  await expect(page.getByRole("list", { name: "Earlier in this session" })).toContainText("Echo: hello from A");
  await expect(page.getByTestId("session")).toContainText(first.session_id);
  await shot(page, "playground-continue-session");

  // The queue without the durable queue: this server's background runs, and a note saying so.
  await page.getByRole("link", { name: "Queue", exact: true }).click();
  await expect(page.getByTestId("durable-off")).toContainText("Durable mode is off");
  await expect(page.getByTestId("queue-connection")).toHaveText("● live");
  // A background run appears while this server runs it, and goes when it ends — over SSE, no reload.
  // Streamed, so the scripted model takes its time; the page's fetch stops reading after the first event.
  const runId = await page.evaluate(async () => {
    const response = await fetch("/agents/assistant/runs", { method: "POST", body: new URLSearchParams({ message: "slow in process", background: "true", stream: "true" }) });
    const reader = response.body!.getReader();
    const { value } = await reader.read();
    await reader.cancel();
    return /"run_id":\s*"([^"]+)"/.exec(new TextDecoder().decode(value))![1];
  });
  const inProcess = page.getByRole("table", { name: "In-process background runs" }).getByTestId("table-row").filter({ hasText: runId });
  await expect(inProcess.getByTestId("status")).toHaveText("RUNNING", { timeout: 10_000 });
  await shot(page, "queue-in-process");
  await expect(inProcess).toHaveCount(0, { timeout: 20_000 });

  // The overview lists the user's latest runs.
  await page.goto("/dashboard");
  await expect(page.getByTestId("recent-runs")).toContainText("add 2 and 3");
  await shot(page, "overview-recent");

  // User B: none of A's sessions or runs, and A's session's address is a 404.
  const member = await inviteMember(page, browser, MEMBER_B);
  await member.getByRole("link", { name: "Sessions", exact: true }).click();
  await expect(member.getByText("No sessions yet.")).toBeVisible();
  await member.getByRole("link", { name: "Runs", exact: true }).click();
  await expect(member.getByText("No runs yet.")).toBeVisible();
  await shot(member, "runs-member-empty");
  await member.goto("/dashboard");
  await expect(member.getByText("No runs yet. Chat with an agent")).toBeVisible();
  expect((await member.goto(sessionUrl))?.status()).toBe(404);
  expect((await member.goto(runUrl))?.status()).toBe(404);
  expect((await member.goto(traceUrl))?.status()).toBe(404);
  await member.goto("/dashboard/traces");
  await expect(member.getByText("No traces yet.")).toBeVisible();
  await member.goto("/dashboard/sessions");
  await expect(member.getByTestId("sessions-table")).not.toContainText("Arithmetic with A");

  // Phone width: the menu folds away and the tables scroll inside their frame.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/dashboard/runs");
  await shot(page, "runs-phone");
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  expect(violations).toEqual([]);
});

test("durable queue: a background run moves queued → running → completed on the Queue page without a reload; cancel a running run; requeue a failed job", async ({ page }) => {
  test.setTimeout(120_000);
  const violations = cspViolations(page);
  await page.goto(`${durableApp}/dashboard`);
  if (page.url().endsWith("/setup")) await fillSetup(page, E2E_ADMIN);
  else await fillSignIn(page, E2E_ADMIN);
  await expect(page).toHaveURL(/\/dashboard$/);

  await page.goto(`${durableApp}/dashboard/queue`);
  await expect(page.getByTestId("queue-connection")).toHaveText("● live");
  // A marker that a reload would wipe.
  await page.evaluate(() => ((window as unknown as { marker: string }).marker = "still here"));

  // The second run of one session waits (queued) behind the first, then runs, then completes.
  const ahead = await apiRun(page, durableApp, { message: "slow first", background: "true" });
  const behind = await apiRun(page, durableApp, { message: "slow second", background: "true", session_id: ahead.session_id });
  const row = page
    .getByTestId("jobs-table")
    .getByTestId("table-row")
    .filter({ has: page.locator(`a[href*="${behind.run_id}"]`) });
  await expect(row.getByTestId("status")).toHaveText("queued", { timeout: 10_000 });
  await shot(page, "queue-durable");
  await expect(row.getByTestId("status")).toHaveText("running", { timeout: 20_000 });
  await expect(row.getByTestId("status")).toHaveText("completed", { timeout: 30_000 });
  await expect(page.getByTestId("count-completed")).not.toHaveText("0");
  expect(await page.evaluate(() => (window as unknown as { marker?: string }).marker)).toBe("still here");

  // Cancel a running run from its page.
  const slow = await apiRun(page, durableApp, { message: "slow to cancel", background: "true" });
  await page.goto(`${durableApp}/dashboard/runs/${slow.run_id}?session_id=${slow.session_id}`);
  await expect(page.getByTestId("status").first()).toHaveText("RUNNING", { timeout: 15_000 });
  await shot(page, "run-running");
  await page.getByRole("button", { name: "Cancel run" }).click();
  await expect(page.getByTestId("status").first()).toHaveText("CANCELLED", { timeout: 15_000 });
  await expect(page.getByTestId("events-timeline")).toContainText("RunCancelled");
  await shot(page, "run-cancelled");

  // A failed job, requeued by the admin (a fresh failure needs force).
  const failing = await apiRun(page, durableApp, { message: "fail please", background: "true" });
  await page.goto(`${durableApp}/dashboard/queue?status=failed`);
  const failed = page
    .getByTestId("jobs-table")
    .getByTestId("table-row")
    .filter({ has: page.locator(`a[href*="${failing.run_id}"]`) });
  await expect(failed.getByTestId("status")).toHaveText("failed", { timeout: 20_000 });
  await expect(failed).toContainText("1/1");
  await failed.getByRole("button", { name: "Requeue" }).click();
  await expect(failed.getByRole("alert")).toContainText("force");
  await failed.getByLabel("force").check();
  await failed.getByRole("button", { name: "Requeue" }).click();
  await page.goto(`${durableApp}/dashboard/queue`);
  const again = page
    .getByTestId("jobs-table")
    .getByTestId("table-row")
    .filter({ has: page.locator(`a[href*="${failing.run_id}"]`) });
  // It ran again (and, the model still failing, failed again on its second attempt).
  await expect(again).toContainText("2/2", { timeout: 20_000 });
  await shot(page, "queue-after-requeue");
  expect(violations).toEqual([]);
});

test("a chat in the playground is the same run in Runs; a paused run continues from its run page", async ({ page }) => {
  const violations = cspViolations(page);
  await signInAsAdmin(page);
  await page.goto("/dashboard/agents/assistant");
  await page.getByLabel("Message").fill("add 4 and 5");
  await page.getByLabel("Message").press("Enter");
  const turn = page.getByTestId("turn").last();
  await expect(turn.getByTestId("assistant-message")).toContainText("The result is");
  const answer = (await turn.getByTestId("assistant-message").innerText()).trim();
  await turn.getByRole("link", { name: "Run details" }).click();
  await expect(page.getByTestId("run-input")).toHaveText("add 4 and 5");
  await expect(page.getByTestId("run-output")).toHaveText(answer);
  await expect(page.getByTestId("tool-call")).toContainText("add");

  // A run that pauses in the chat, left there and continued from its page in Runs.
  await page.goto("/dashboard/agents/assistant");
  await page.getByLabel("Message").fill("Show me the server details");
  await page.getByLabel("Message").press("Enter");
  await expect(page.getByRole("form", { name: "Decisions for the paused run" })).toBeVisible();
  await page.goto("/dashboard/runs?status=PAUSED");
  await page.getByTestId("runs-table").getByRole("link", { name: "Show me the server details" }).first().click();
  await expect(page.getByRole("region", { name: "Waiting for you" })).toContainText("server_details");
  await shot(page, "run-paused");
  await page.getByRole("button", { name: "Confirm" }).click();
  await expect(page.getByTestId("status").first()).toHaveText("COMPLETED", { timeout: 15_000 });
  await expect(page.getByTestId("run-output")).toContainText("The result is {");
  await expect(page.getByTestId("tool-call")).toContainText("confirmed");
  // The paused run and its continuation are one trace with two roots (the served build's module graphs share the trace id).
  const pausedRunId = new URL(page.url()).pathname.split("/").pop()!;
  await expect
    .poll(async () => {
      const list = (await (await page.request.get(`/traces?run_id=${pausedRunId}`)).json()) as { data?: { trace_id: string }[] };
      if (!list.data?.length) return "no trace yet";
      const trace = (await (await page.request.get(`/traces/${list.data[0]!.trace_id}`)).json()) as { tree: { name: string }[] };
      return `${list.data.length} trace, roots ${trace.tree.map((root) => root.name).join(", ")}`;
    })
    .toBe("1 trace, roots Assistant.run, Assistant.run");

  // A paused run can also be cancelled from its page (after saying yes to the question).
  await page.goto("/dashboard/agents/assistant");
  await page.getByLabel("Message").fill("Show me the server details, again");
  await page.getByLabel("Message").press("Enter");
  await page.getByTestId("turn").last().getByRole("link", { name: "Run details" }).click();
  await expect(page.getByTestId("status").first()).toHaveText("PAUSED");
  page.once("dialog", (dialog) => void dialog.accept());
  await page.getByRole("button", { name: "Cancel run" }).click();
  await expect(page.getByTestId("status").first()).toHaveText("CANCELLED", { timeout: 10_000 });
  await expect(page.getByRole("region", { name: "Waiting for you" })).toHaveCount(0);
  expect(violations).toEqual([]);
});
