import { expect, test, type Page } from "@playwright/test";
import { cspViolations, signInAsAdmin } from "./fixtures/dashboard.ts";

/**
 * The sample Research desk team (agentry.config.ts) in the dashboard, against `next start`: the
 * scripted model (e2e/fixtures/serve-model.ts) has a team's leader delegate "ask the M to T" to
 * member M, and the analyst's "add A and B" calls its calculator.
 */

const shot = (page: Page, name: string) => page.screenshot({ path: `e2e/artifacts/screenshots/${name}.png`, fullPage: true });

test.beforeEach(async ({ page }) => {
  await signInAsAdmin(page);
});

test("a team run in the playground: the leader delegates, the member's tool call is folded under the answer, and the run page links the member's run", async ({ page }) => {
  const violations = cspViolations(page);
  await page.goto("/dashboard/agents");
  await expect(page.getByRole("heading", { name: "Agents, teams and workflows" })).toBeVisible();
  const card = page.getByTestId("team-research-desk");
  await expect(card.getByRole("heading", { name: "Research desk" })).toBeVisible();
  await expect(card).toContainText("research-desk · coordinate mode · openai-compatible/scripted");
  await expect(card.getByRole("list", { name: "Members" }).getByRole("listitem")).toHaveText(["Analyst analyst", "Writer writer"]);
  await expect(card.getByRole("list", { name: "Tools" })).toContainText("delegate_task_to_member");
  await shot(page, "agents-and-teams");

  await card.getByRole("link", { name: "Open the playground of Research desk" }).click();
  await expect(page).toHaveURL(/\/dashboard\/teams\/research-desk$/);
  await expect(page.getByTestId("team-members")).toHaveText("Members: Analyst, Writer");
  await page.getByLabel("Message").fill("ask the analyst to add 2 and 3");
  await page.getByLabel("Message").press("Enter");
  const turn = page.getByTestId("turn").last();
  await expect(turn.getByTestId("run-status")).toContainText("completed");
  // The leader's own tool call, then its answer built on the member's.
  await expect(turn.getByTestId("tool-call").first()).toContainText("delegate_task_to_member");
  await expect(turn.getByTestId("assistant-message").last()).toContainText('The result is [analyst]: The result is {"result":5}.');
  const member = turn.getByTestId("member-run");
  await expect(member).toHaveCount(1);
  await expect(member).toContainText("Analyst · completed");
  await member.locator(":scope > summary").click();
  await expect(member.getByTestId("tool-call")).toContainText("add");
  await expect(member.getByTestId("tool-call")).toContainText('"result": 5');
  await expect(member.getByTestId("member-message")).toHaveText('The result is {"result":5}.');
  await shot(page, "team-playground");

  await turn.getByRole("link", { name: "Run details" }).click();
  await expect(page.getByRole("heading", { name: "Run", exact: true })).toBeVisible();
  await expect(page.locator("dl").first()).toContainText("Teamresearch-desk");
  const members = page.getByTestId("member-runs").getByRole("listitem");
  await expect(members).toHaveCount(1);
  await expect(members.first()).toContainText("Analyst");
  await members.first().locator("summary").click();
  await expect(members.first()).toContainText("Tools: add");
  await shot(page, "team-run-page");
  await members.first().getByRole("link", { name: "Member run details" }).click();
  await expect(page.getByTestId("parent-run")).toContainText("the team or workflow run it worked for");
  await expect(page.locator("dl").first()).toContainText("Agentanalyst");

  // The runs list filters by type.
  await page.goto("/dashboard/runs?type=team");
  const rows = page.getByTestId("runs-table").getByRole("row");
  await expect(rows.nth(1)).toContainText("team");
  await expect(rows.nth(1)).toContainText("research-desk");
  // The member's run (an agent run) is not listed among team runs.
  await expect(page.getByTestId("runs-table")).toContainText("1 in all");
  expect(violations).toEqual([]);
});

test("an unknown team's playground is a 404", async ({ page }) => {
  const response = await page.goto("/dashboard/teams/no-such-team");
  expect(response?.status()).toBe(404);
});
