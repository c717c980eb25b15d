import { expect, test, type Page } from "@playwright/test";
import { cspViolations, signInAsAdmin } from "./fixtures/dashboard.ts";

/**
 * An agent's knowledge search seen from the dashboard: a shared content is added through the API,
 * the sample agent looks it up in the playground (the scripted model calls search_knowledge_base
 * for "look up …"), and the run's page lists the chunks it used with their scores.
 */

const SHOTS = process.env.AGENTRY_E2E_OUTPUT_DIR ? `${process.env.AGENTRY_E2E_OUTPUT_DIR}/screenshots` : "e2e/artifacts/screenshots";
const shot = (page: Page, name: string) => page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });

test("the playground agent searches its knowledge base and the run page shows the chunks it used", async ({ page, request }) => {
  const violations = cspViolations(page);
  const tag = Date.now().toString(36);
  const added = await request.post("/knowledge/content", {
    multipart: { text_content: `The Ridgeline ${tag} tent weighs 1.9 kg and sleeps two.`, name: `ridgeline-${tag}` },
  });
  expect(added.status()).toBe(202);
  const { id } = (await added.json()) as { id: string };
  await expect.poll(async () => ((await (await request.get(`/knowledge/content/${id}/status`)).json()) as { status: string }).status, { timeout: 20_000 }).toBe("completed");

  // The content is shared with every user of this app: it goes when the test ends (the Knowledge
  // page's spec counts the rows it makes).
  try {
    await lookItUp(page, tag);
  } finally {
    await request.delete(`/knowledge/content/${id}`);
  }
  expect(violations).toEqual([]);
});

async function lookItUp(page: Page, tag: string): Promise<void> {
  await signInAsAdmin(page);
  await page.goto("/dashboard/agents/assistant");
  await page.getByLabel("Message").fill(`look up ridgeline ${tag} weight`);
  await page.getByLabel("Message").press("Enter");
  const turn = page.getByTestId("turn").last();
  await expect(turn.getByTestId("tool-call")).toContainText("search_knowledge_base");
  await expect(turn.getByTestId("assistant-message")).toContainText("1.9 kg");
  await turn.getByRole("link", { name: "Run details" }).click();
  await expect(page).toHaveURL(/\/dashboard\/runs\//);
  const references = page.getByTestId("run-references");
  await expect(references).toContainText(`ridgeline ${tag} weight`);
  await expect(references.getByTestId("run-reference").first()).toContainText(`ridgeline-${tag}`);
  await expect(references.getByTestId("run-reference").first()).toContainText(/score \d\.\d{4}/);
  await shot(page, "run-knowledge-references");
}
