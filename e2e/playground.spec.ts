import { expect, test, type Locator, type Page } from "@playwright/test";
import { cspViolations, signInAsAdmin } from "./fixtures/dashboard.ts";

/**
 * The agents list and the playground against `next start`, driven by the scripted model's rules
 * (e2e/fixtures/serve-model.ts): "add A and B" calls a tool, "… server details" pauses for
 * confirmation, "what time is it" pauses for user input, "fail …" errors, "slow …" streams slowly.
 */

const shot = (page: Page, name: string) => page.screenshot({ path: `e2e/artifacts/screenshots/${name}.png`, fullPage: true });

/** Sends a message from the composer with Enter, and returns the turn it started. */
async function send(page: Page, message: string): Promise<Locator> {
  const before = await page.getByTestId("turn").count();
  await page.getByLabel("Message").fill(message);
  await page.getByLabel("Message").press("Enter");
  await expect(page.getByTestId("turn")).toHaveCount(before + 1);
  return page.getByTestId("turn").last();
}

/** The run id and session id a turn's "Run details" link points at. */
async function runLink(turn: Locator): Promise<{ runId: string; sessionId: string }> {
  const href = await turn.getByRole("link", { name: "Run details" }).getAttribute("href");
  const match = /^\/dashboard\/runs\/([^?]+)\?session_id=(.+)$/.exec(href ?? "");
  expect(match, `run details link ${href}`).not.toBeNull();
  return { runId: decodeURIComponent(match![1]), sessionId: decodeURIComponent(match![2]) };
}

async function expectNoHorizontalScroll(page: Page): Promise<void> {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
}

test.beforeEach(async ({ page }) => {
  await signInAsAdmin(page);
});

test("the agents list shows each agent's model, description and tools, marking those that pause for a person", async ({ page }) => {
  const violations = cspViolations(page);
  await page.goto("/dashboard/agents");
  const card = page.getByTestId("agent-assistant");
  await expect(card.getByRole("heading", { name: "Assistant" })).toBeVisible();
  await expect(card).toContainText("assistant · openai-compatible/scripted");
  await expect(card).toContainText("A helpful general-purpose assistant.");
  const tools = card.getByRole("list", { name: "Tools" }).getByRole("listitem");
  await expect(tools).toHaveText(["add", "subtract", "multiply", "divide", "server_detailsneeds confirmation", "current_timeasks for input", "environment_variable_namesneeds approval"]);
  await shot(page, "agents-list");

  await page.setViewportSize({ width: 390, height: 844 });
  await expectNoHorizontalScroll(page);
  await shot(page, "agents-list-phone");

  await card.getByRole("link", { name: "Open the playground of Assistant" }).click();
  await expect(page).toHaveURL(/\/dashboard\/agents\/assistant$/);
  await expect(page.getByRole("heading", { name: "Assistant" })).toBeVisible();
  expect(violations).toEqual([]);
});

test("an unknown agent's playground is a 404", async ({ page }) => {
  const response = await page.goto("/dashboard/agents/no-such-agent");
  expect(response?.status()).toBe(404);
});

test("chat: the answer streams with its tool call, turns share one session, New chat starts another", async ({ page, request }) => {
  const violations = cspViolations(page);
  await page.goto("/dashboard/agents/assistant");
  await expect(page.getByTestId("session")).toHaveText("A new session starts with the first message.");

  const first = await send(page, "add 2 and 3");
  const tool = first.getByTestId("tool-call");
  await expect(tool).toContainText("add");
  await expect(tool).toContainText("done");
  // Folded to a line with the arguments in brief; opened, the arguments and the result.
  await expect(tool).not.toHaveAttribute("open");
  await expect(tool.getByText("a: 2, b: 3")).toBeVisible();
  await tool.getByText("Tool", { exact: true }).click();
  await expect(tool).toHaveAttribute("open");
  await expect(tool.getByText('{ "a": 2, "b": 3 }')).toBeVisible();
  await expect(tool.getByText('"result": 5')).toBeVisible();
  await expect(first.getByTestId("assistant-message")).toHaveText('The result is {"result":5}.');
  await expect(first.getByTestId("run-status")).toContainText("completed");
  const { runId, sessionId } = await runLink(first);
  await expect(page.getByTestId("session")).toContainText(sessionId);

  // Shift+Enter is a new line in the message, not a send.
  await page.getByLabel("Message").fill("hello");
  await page.getByLabel("Message").press("Shift+Enter");
  await page.getByLabel("Message").pressSequentially("there");
  await expect(page.getByTestId("turn")).toHaveCount(1);
  await page.getByLabel("Message").press("Enter");
  const second = page.getByTestId("turn").last();
  await expect(second.getByTestId("user-message")).toHaveText("hello\nthere");
  await expect(second.getByTestId("assistant-message")).toHaveText("Echo: hello\nthere");
  const secondRun = await runLink(second);
  expect(secondRun.sessionId).toBe(sessionId);
  expect(secondRun.runId).not.toBe(runId);
  const runs = (await (await request.get(`/sessions/${sessionId}/runs`)).json()) as { run_id: string }[];
  expect(runs.map((r) => r.run_id)).toEqual([runId, secondRun.runId]);
  await shot(page, "playground-chat");

  await page.getByRole("button", { name: "New chat" }).click();
  await expect(page.getByTestId("turn")).toHaveCount(0);
  await expect(page.getByLabel("Message")).toBeFocused();
  const fresh = await send(page, "hi again");
  await expect(fresh.getByTestId("assistant-message")).toHaveText("Echo: hi again");
  expect((await runLink(fresh)).sessionId).not.toBe(sessionId);
  expect(violations).toEqual([]);
});

test("chat: a streamed answer renders as Markdown, a table and highlighted code with a copy button, on its run page too; HTML in an answer is text that never runs", async ({ page, context }) => {
  const violations = cspViolations(page);
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await page.goto("/dashboard/agents/assistant");

  // The scripted answer streams a line at a time, then a slow closing sentence (serve-model.ts).
  const turn = await send(page, "show me markdown");
  const answer = turn.getByTestId("assistant-message");
  await expect(answer.getByRole("heading", { level: 2 })).toHaveText("Tide times");
  const table = answer.getByRole("table");
  await expect(table.getByRole("columnheader")).toHaveText(["Port", "High water", "Height"]);
  await expect(table.getByRole("row")).toHaveCount(3);
  await expect(table.getByRole("row").last().getByRole("cell")).toHaveText(["Saint-Malo", "07:01", "11.2 m"]);
  const code = answer.getByTestId("code-block");
  await expect(code.locator("code.hljs.language-ts")).toBeVisible();
  await expect(code.locator(".hljs-keyword").first()).toHaveText("const");
  await expect(code.locator(".hljs-comment")).toHaveText("// metres");
  await expect(code.locator(".hljs-string")).toHaveText('"m"');
  // All of it rendered while the answer is still streaming in.
  await expect(turn.getByTestId("run-status")).toContainText("running…");
  await shot(page, "playground-markdown-streaming");

  await expect(turn.getByTestId("run-status")).toContainText("completed");
  await expect(answer.getByRole("paragraph").last()).toHaveText(Array.from({ length: 20 }, (_, i) => `tide${i + 1}`).join(" "));
  await expect(code.locator("code.hljs")).toBeVisible();
  // Highlighted: a keyword's colour is not the code's own.
  const colours = await code.evaluate((block) => [block.querySelector("code.hljs")!, block.querySelector(".hljs-keyword")!].map((el) => getComputedStyle(el).color));
  expect(colours[0]).not.toBe(colours[1]);
  await code.getByRole("button", { name: "Copy code" }).click();
  await expect(code.getByRole("button", { name: "Copied" })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe('const range = (high: number, low: number): number => high - low; // metres\nconsole.log(range(11.2, 1.4), "m");');
  await shot(page, "playground-markdown");
  await page.setViewportSize({ width: 390, height: 844 });
  await expectNoHorizontalScroll(page);
  await shot(page, "playground-markdown-phone");
  await page.emulateMedia({ colorScheme: "dark" });
  await shot(page, "playground-markdown-phone-dark");
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize({ width: 1280, height: 720 });

  // The run page renders the stored answer the same way.
  const { runId, sessionId } = await runLink(turn);
  await page.goto(`/dashboard/runs/${encodeURIComponent(runId)}?session_id=${encodeURIComponent(sessionId)}`);
  const output = page.getByTestId("run-output");
  await expect(output.getByRole("table").getByRole("row")).toHaveCount(3);
  await expect(output.locator("code.hljs.language-ts .hljs-keyword").first()).toHaveText("const");
  await shot(page, "run-markdown");

  // HTML in an answer, inline and as a block of its own, is shown as text: no element, nothing run.
  await page.goto("/dashboard/agents/assistant");
  const hostile = await send(page, 'Hostile <b onmouseover="window.__pwned = 3">bold</b>\n\n<script>window.__pwned = 1</script>\n\n<img src=x onerror="window.__pwned = 2">');
  const echoed = hostile.getByTestId("assistant-message");
  await expect(hostile.getByTestId("run-status")).toContainText("completed");
  await expect(echoed).toContainText('Echo: Hostile <b onmouseover="window.__pwned = 3">bold</b>');
  await expect(echoed).toContainText("<script>window.__pwned = 1</script>");
  await expect(echoed).toContainText('<img src=x onerror="window.__pwned = 2">');
  await expect(echoed.locator("script, img, b")).toHaveCount(0);
  expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();
  await shot(page, "playground-html-as-text");
  expect(violations).toEqual([]);
});

test("a paused run continues from its requirements form: confirmed, rejected, and with the user's input", async ({ page }) => {
  await page.goto("/dashboard/agents/assistant");

  const confirmTurn = await send(page, "Show me the server details");
  const form = confirmTurn.getByRole("form", { name: "Decisions for the paused run" });
  await expect(form).toContainText("server_details wants to run");
  await expect(confirmTurn.getByTestId("tool-call")).toContainText("waiting for you");
  await expect(confirmTurn.getByTestId("run-status")).toContainText("paused");
  await shot(page, "playground-paused-confirmation");
  await form.getByRole("button", { name: "Confirm" }).click();
  await expect(form).toHaveCount(0);
  await expect(confirmTurn.getByTestId("tool-call")).toContainText("done");
  await expect(confirmTurn.getByTestId("tool-call")).toContainText('"node_version"');
  await expect(confirmTurn.getByTestId("assistant-message")).toContainText("The result is {");
  await expect(confirmTurn.getByTestId("run-status")).toContainText("completed");
  await shot(page, "playground-confirmed");

  const rejectTurn = await send(page, "Show the server details again");
  await rejectTurn.getByRole("button", { name: "Reject" }).click();
  await expect(rejectTurn.getByTestId("tool-call")).toContainText("rejected");
  await expect(rejectTurn.getByTestId("assistant-message")).toHaveText("Understood, I did not run it.");

  const inputTurn = await send(page, "What time is it?");
  const inputForm = inputTurn.getByRole("form", { name: "Decisions for the paused run" });
  await expect(inputForm).toContainText("current_time needs your input");
  await inputForm.getByRole("button", { name: "Continue run" }).click();
  await expect(inputForm.getByRole("alert")).toHaveText("time_zone is required.");
  await inputForm.getByLabel("time_zone").fill("Europe/Oslo");
  await inputForm.getByLabel("hour12").check();
  await shot(page, "playground-user-input");
  await inputForm.getByRole("button", { name: "Continue run" }).click();
  await expect(inputForm).toHaveCount(0);
  const tool = inputTurn.getByTestId("tool-call");
  await expect(tool).toContainText("done");
  await expect(tool).toContainText('"time_zone": "Europe/Oslo"');
  await expect(tool).toContainText('"hour12": true');
  await expect(inputTurn.getByTestId("assistant-message")).toContainText('The result is {"time_zone":"Europe/Oslo"');
  await shot(page, "playground-user-input-answered");

  // Every turn was one run in one session.
  const sessions = await Promise.all([confirmTurn, rejectTurn, inputTurn].map(async (turn) => (await runLink(turn)).sessionId));
  expect(new Set(sessions).size).toBe(1);
});

test("a failing model's RunError is shown plainly, and an in-flight run can be stopped", async ({ page }) => {
  await page.goto("/dashboard/agents/assistant");
  const failed = await send(page, "fail please");
  await expect(failed.getByTestId("run-error")).toHaveText("Model provider returned 500: scripted failure");
  await expect(failed.getByTestId("run-status")).toContainText("failed");
  await shot(page, "playground-error");

  const slow = await send(page, "slow please");
  await expect(slow.getByTestId("assistant-message")).toContainText("word1");
  await page.getByRole("button", { name: "Stop" }).click();
  await expect(slow).toContainText("Cancelled");
  await expect(slow.getByTestId("run-status")).toContainText("cancelled");
  await expect(slow.getByTestId("assistant-message")).not.toContainText("word40");
  await expect(page.getByRole("button", { name: "Send" })).toBeVisible();
  await shot(page, "playground-cancelled");
});

test("on a phone: the playground fits the screen, paused run and all", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/dashboard/agents/assistant");
  await send(page, "add 20 and 22");
  await expect(page.getByTestId("assistant-message").last()).toHaveText('The result is {"result":42}.');
  const paused = await send(page, "What time is it?");
  await expect(paused.getByLabel("time_zone")).toBeVisible();
  await expectNoHorizontalScroll(page);
  await shot(page, "playground-phone");
  await page.emulateMedia({ colorScheme: "dark" });
  await shot(page, "playground-phone-dark");
});

test("an external agent (a LangGraph graph over the scripted model): its card names its framework, its playground streams and continues a session, Stop closes the stream and cancels the run, and its run and session pages render", async ({
  page,
  request,
}) => {
  const violations = cspViolations(page);
  await page.goto("/dashboard/agents");
  const card = page.getByTestId("agent-tide-graph");
  await expect(card.getByRole("heading", { name: "Tide Graph" })).toBeVisible();
  await expect(card.getByTestId("framework")).toHaveText("LangGraph");
  await expect(card).toContainText("tide-graph");
  await expect(card).toContainText("A LangGraph.js graph over the scripted model.");
  await expect(card).not.toContainText("no model configured");
  await shot(page, "external-agents-list");

  await card.getByRole("link", { name: "Open the playground of Tide Graph" }).click();
  await expect(page).toHaveURL(/\/dashboard\/agents\/tide-graph$/);
  await expect(page.getByRole("heading", { name: "Tide Graph" })).toBeVisible();
  await expect(page.getByTestId("framework")).toHaveText("LangGraph");
  await expect(page.getByText("Tools (")).toHaveCount(0);
  await expect(page.getByText("has no model provider configured")).toHaveCount(0);

  // Streamed from the graph's chat model: the first words are in while the run is still going.
  const slow = await send(page, "slow tides");
  await expect(slow.getByTestId("assistant-message")).toContainText("word2");
  await expect(slow.getByTestId("run-status")).toContainText("running…");
  const stopped = await runLink(slow);
  // Its cancel route answers 501: Stop closes the stream, which the server stores as CANCELLED.
  await page.getByRole("button", { name: "Stop" }).click();
  await expect(slow).toContainText("Cancelled: stopped (closing its stream cancels it)");
  await expect(slow.getByTestId("assistant-message")).not.toContainText("word40");
  await expect.poll(async () => ((await (await request.get(`/agents/tide-graph/runs/${stopped.runId}?session_id=${stopped.sessionId}`)).json()) as { status: string }).status).toBe("CANCELLED");

  const first = await send(page, "When is high tide?");
  await expect(first.getByTestId("assistant-message")).toHaveText("Echo: When is high tide?");
  await expect(first.getByTestId("run-status")).toContainText("completed");
  const { runId, sessionId } = await runLink(first);
  expect(sessionId).toBe(stopped.sessionId);
  await shot(page, "external-playground");

  // ?session_id= continues it: the earlier turns above, the next run in the same session.
  await page.goto(`/dashboard/agents/tide-graph?session_id=${encodeURIComponent(sessionId)}`);
  await expect(page.getByRole("list", { name: "Earlier in this session" })).toContainText("Echo: When is high tide?");
  const next = await send(page, "And low tide?");
  await expect(next.getByTestId("assistant-message")).toHaveText("Echo: And low tide?");
  expect((await runLink(next)).sessionId).toBe(sessionId);
  await shot(page, "external-playground-continued");

  await page.goto(`/dashboard/runs/${encodeURIComponent(runId)}?session_id=${encodeURIComponent(sessionId)}`);
  await expect(page.getByTestId("status").first()).toHaveText("COMPLETED");
  await expect(page.getByTestId("run-input")).toHaveText("When is high tide?");
  await expect(page.getByTestId("run-output")).toHaveText("Echo: When is high tide?");
  await expect(page.getByText("LangGraph (external agent)")).toBeVisible();
  await shot(page, "external-run");

  await page.getByRole("link", { name: "Session", exact: true }).click();
  const history = page.getByTestId("chat-history");
  await expect(history).toContainText("Echo: When is high tide?");
  await expect(history).toContainText("Echo: And low tide?");
  await expect(page.getByRole("row").filter({ hasText: stopped.runId }).getByTestId("status")).toHaveText("CANCELLED");
  await expect(page.getByRole("link", { name: "Continue chatting" })).toHaveAttribute("href", `/dashboard/agents/tide-graph?session_id=${encodeURIComponent(sessionId)}`);
  await shot(page, "external-session");

  // The Runs filter offers it, and filtering by it lists its runs.
  await page.goto("/dashboard/runs?agent=tide-graph");
  await expect(page.getByRole("option", { name: "Tide Graph" })).toHaveCount(1);
  const table = page.getByTestId("runs-table");
  await expect(table.getByRole("link", { name: "When is high tide?" })).toBeVisible();
  await expect(table.getByRole("link", { name: "And low tide?" })).toBeVisible();
  await expect(table).not.toContainText("assistant");
  expect(violations).toEqual([]);
});
