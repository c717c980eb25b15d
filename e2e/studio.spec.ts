import { expect, test, type Page } from "@playwright/test";
import { SignJWT } from "jose";
import { cspViolations, inviteMember, screenshot, sendMessage, signInAsAdmin } from "./fixtures/dashboard.ts";
import { E2E_JWT_SECRET, E2E_PORTS } from "./fixtures/ports.ts";

/**
 * Studio against `next start` on the app that verifies JWTs (playwright.config.ts), with the sample
 * registry (agentry.config.ts: the Calculator for everyone, the Host tools for admins only) and the
 * scripted model (e2e/fixtures/serve-model.ts): "add A and B" calls the `add` tool, and "what is
 * your motto?" answers with the "Motto: …" its system prompt carries — so two versions of an agent
 * with different instructions answer differently.
 */

const app = `http://127.0.0.1:${E2E_PORTS.jwtApp}`;
const ADA = { email: "studio-ada@agentry.test", name: "Ada", password: "ada password 1234" };
const BEA = { email: "studio-bea@agentry.test", name: "Bea", password: "bea password 1234" };

/** A token for a dashboard user, as an identity provider would mint it: their id as `sub`, the run scopes. */
async function memberToken(userId: string): Promise<string> {
  return new SignJWT({ scopes: ["agents:read", "agents:run", "sessions:read"] })
    .setProtectedHeader({ alg: "HS256" })
    .setSubject(userId)
    .setIssuedAt()
    .setExpirationTime("10m")
    .sign(new TextEncoder().encode(E2E_JWT_SECRET));
}

/** Asks an agent over HTTP with a bearer token; its run's answer, id and session. */
async function runOverHttp(page: Page, agentId: string, token: string, message: string): Promise<{ content: string; run_id: string; session_id: string }> {
  const response = await page.request.post(`${app}/agents/${encodeURIComponent(agentId)}/runs`, { form: { message, stream: "false" }, headers: { authorization: `Bearer ${token}` } });
  expect(response.status(), await response.text()).toBe(200);
  return (await response.json()) as { content: string; run_id: string; session_id: string };
}

/** Asks in the page's playground (a new session each time it is opened) and returns the answer. */
async function askInPlayground(page: Page, message: string): Promise<string> {
  const turn = await sendMessage(page, message);
  await expect(turn.getByTestId("run-status")).toContainText("completed");
  return (await turn.getByTestId("assistant-message").textContent()) ?? "";
}

/** The component page's id, from its URL. */
const componentIdOf = (page: Page) => decodeURIComponent(new URL(page.url()).pathname.split("/").pop()!);

test("Studio: a member makes an agent with a registry tool, tries the draft, publishes it, runs it everywhere as themselves, rolls back; others run it but cannot change it", async ({
  page,
  browser,
}) => {
  test.setTimeout(180_000);
  await signInAsAdmin(page, app);
  const ada = await inviteMember(page, browser, ADA, app);
  const bea = await inviteMember(page, browser, BEA, app);
  const violations = cspViolations(ada);
  for (const who of [page, ada, bea]) who.on("dialog", (dialog) => void dialog.accept());

  // ── A new agent: the registry's toolkits for a member (no admin-only Host), its Calculator's add ──
  await ada.goto(`${app}/dashboard`);
  await ada.getByRole("link", { name: "Studio", exact: true }).click();
  await expect(ada).toHaveURL(`${app}/dashboard/studio`);
  await expect(ada.getByTestId("code-row-agent-assistant")).toContainText("No: defined in agentry.config.ts");
  await ada.getByRole("link", { name: "New agent" }).click();
  await expect(ada.getByTestId("toolkit-Calculator")).toBeVisible();
  await expect(ada.getByTestId("toolkit-Host")).toHaveCount(0);
  await ada.getByLabel("Name", { exact: true }).fill("Ada's helper");
  await ada.getByLabel("Description").fill("Does sums and says its motto.");
  await ada.getByLabel("Instructions").fill("Be brief. Motto: ahoy.");
  await ada.getByLabel("Tool add", { exact: true }).check();
  await expect(ada.getByLabel("Ask before each call of add")).not.toBeChecked();
  await ada.getByLabel("Add the session's history to each run").check();
  await ada.getByLabel("Earlier runs", { exact: true }).fill("3");
  // The output schema is checked as it is typed: JSON in the browser, the meta-schema on the server.
  await ada.getByLabel("A JSON schema").check();
  await expect(ada.getByTestId("output-schema-check")).toContainText("A valid JSON schema");
  await ada.getByLabel("JSON schema", { exact: true }).fill('{"type": "object", "properties": {"answer": {"type": "strnig"}}}');
  await expect(ada.getByTestId("output-schema-check")).toContainText("is not a valid JSON Schema");
  await ada.getByLabel("JSON schema", { exact: true }).fill('{"type": "object", "properties": ');
  await expect(ada.getByTestId("output-schema-check")).toContainText("invalid JSON");
  await expect(ada.getByRole("button", { name: "Save draft" })).toBeDisabled();
  await ada.getByLabel("None (answers in text)").check();
  await ada.getByLabel("Notes for this version").fill("first try");
  await screenshot(ada, "studio-agent-editor");
  await ada.getByRole("button", { name: "Save draft" }).click();
  await expect(ada).toHaveURL(/\/dashboard\/studio\/ada-s-helper-[0-9a-f]{8}$/);
  const agentId = componentIdOf(ada);
  await expect(ada.getByTestId("component-name")).toHaveText("Ada's helper");
  await expect(ada.getByTestId("component-current")).toHaveText("never published");
  await expect(ada.getByTestId("version-1")).toContainText("draft");

  // Another member sees nothing of a draft: not its page, not its playground.
  expect((await bea.goto(`${app}/dashboard/studio/${agentId}`))?.status()).toBe(404);
  expect((await bea.goto(`${app}/dashboard/agents/${agentId}?version=1`))?.status()).toBe(404);

  // ── Try the draft: the playground on v1, the registry tool runs ──
  await ada.getByRole("link", { name: "Try it (draft v1)" }).click();
  await expect(ada).toHaveURL(`${app}/dashboard/agents/${agentId}?version=1`);
  const sum = await sendMessage(ada, "add 2 and 3");
  await expect(sum.getByTestId("tool-call")).toContainText("add");
  await expect(sum.getByTestId("assistant-message")).toHaveText('The result is {"result":5}.');
  expect(await askInPlayground(ada, "what is your motto?")).toBe("My motto is ahoy.");

  // ── Publish v1: the list says so; the playground and HTTP (a JWT for Ada) run it, as Ada ──
  await ada.goto(`${app}/dashboard/studio/${agentId}`);
  await ada.getByRole("button", { name: "Publish v1" }).first().click();
  await expect(ada.getByTestId("component-current")).toHaveText("current: v1");
  await ada.goto(`${app}/dashboard/studio`);
  const row = ada.getByTestId(`studio-row-${agentId}`);
  await expect(row.getByTestId("studio-stage")).toHaveText("published");
  await expect(row.getByTestId("studio-current-version")).toHaveText("v1");
  await expect(row).toContainText("you");
  await screenshot(ada, "studio-list");
  await ada.goto(`${app}/dashboard/agents/${agentId}`);
  expect(await askInPlayground(ada, "what is your motto?")).toBe("My motto is ahoy.");

  const component = await ada.request.get(`${app}/components/${encodeURIComponent(agentId)}`, { headers: { origin: app } });
  expect(component.status(), await component.text()).toBe(200);
  const adaId = ((await component.json()) as { user_id: string }).user_id;
  const adaToken = await memberToken(adaId);
  const overHttp = await runOverHttp(page, agentId, adaToken, "what is your motto?");
  expect(overHttp.content).toBe("My motto is ahoy.");
  // Stored under Ada: her run page shows it; Bea's is a 404.
  await ada.goto(`${app}/dashboard/runs/${overHttp.run_id}?session_id=${overHttp.session_id}`);
  await expect(ada.getByTestId("run-output")).toHaveText("My motto is ahoy.");
  expect((await bea.goto(`${app}/dashboard/runs/${overHttp.run_id}?session_id=${overHttp.session_id}`))?.status()).toBe(404);

  // ── v2: new instructions, and add now asks first; its diff, tried, published ──
  await ada.goto(`${app}/dashboard/studio/${agentId}`);
  await ada.getByLabel("Instructions").fill("Be brief. Motto: bonjour.");
  await ada.getByLabel("Ask before each call of add").check();
  await ada.getByLabel("Notes for this version").fill("French");
  await ada.getByRole("button", { name: "Save draft" }).click();
  await expect(ada).toHaveURL(/\?saved=2$/);
  await expect(ada.getByRole("status").filter({ hasText: "Draft v2 saved." }).first()).toBeVisible();
  const diff = ada.getByTestId("config-diff");
  await expect(diff.locator('[data-kind="removed"]')).toContainText(['"instructions": "Be brief. Motto: ahoy."']);
  await expect(diff.locator('[data-kind="added"]')).toContainText(['"instructions": "Be brief. Motto: bonjour."']);
  await expect(diff).toContainText('"requires_confirmation": true');
  await screenshot(ada, "studio-agent-draft-diff");
  await ada.getByRole("link", { name: "Try it (draft v2)" }).click();
  await expect(ada).toHaveURL(`${app}/dashboard/agents/${agentId}?version=2`);
  expect(await askInPlayground(ada, "what is your motto?")).toBe("My motto is bonjour.");
  const asks = await sendMessage(ada, "add 4 and 5");
  await expect(asks.getByTestId("tool-call")).toContainText("waiting for you");
  // The published v1 still answers everyone else meanwhile.
  expect((await runOverHttp(page, agentId, adaToken, "what is your motto?")).content).toBe("My motto is ahoy.");
  await ada.goto(`${app}/dashboard/studio/${agentId}`);
  await ada.getByRole("button", { name: "Publish v2" }).first().click();
  await expect(ada.getByTestId("component-current")).toHaveText("current: v2");
  expect((await runOverHttp(page, agentId, adaToken, "what is your motto?")).content).toBe("My motto is bonjour.");

  // ── Roll back to v1: the playground and HTTP answer as v1 again ──
  await ada.getByTestId("version-1").getByRole("button", { name: "Make v1 current" }).click();
  await expect(ada.getByTestId("component-current")).toHaveText("current: v1");
  await expect(ada.getByTestId("version-1").getByTestId("current-marker")).toBeVisible();
  await ada.goto(`${app}/dashboard/agents/${agentId}`);
  expect(await askInPlayground(ada, "what is your motto?")).toBe("My motto is ahoy.");
  expect((await runOverHttp(page, agentId, adaToken, "what is your motto?")).content).toBe("My motto is ahoy.");

  // ── Bea: sees the published agent, runs it as herself, cannot change it ──
  await bea.goto(`${app}/dashboard/studio`);
  const shared = bea.getByTestId(`studio-row-${agentId}`);
  await expect(shared).toContainText("another user");
  await expect(shared).toContainText("view only");
  await shared.getByRole("link", { name: "Ada's helper" }).click();
  await expect(bea.getByTestId("view-only")).toContainText("only its owner can change it");
  await expect(bea.getByRole("button", { name: "Save draft" })).toHaveCount(0);
  await expect(bea.getByRole("button", { name: /^Publish/ })).toHaveCount(0);
  await expect(bea.getByRole("button", { name: /^Make v\d current/ })).toHaveCount(0);
  await expect(bea.getByRole("button", { name: "Archive" })).toHaveCount(0);
  await expect(bea.getByRole("link", { name: /^Try it/ })).toHaveCount(0);
  await screenshot(bea, "studio-agent-view-only");
  await bea.getByRole("link", { name: "Playground (v1)" }).click();
  expect(await askInPlayground(bea, "what is your motto?")).toBe("My motto is ahoy.");

  // ── An admin-only toolkit: not offered to Bea; a forged save attaching it is refused ──
  await bea.goto(`${app}/dashboard/studio/new?type=agent`);
  await expect(bea.getByTestId("toolkit-Host")).toHaveCount(0);
  await bea.getByLabel("Name", { exact: true }).fill("Bea's forgery");
  await bea.getByLabel("Tool add", { exact: true }).check();
  // What the browser sends is rewritten in flight: the server action receives the Host toolkit's server_details.
  let forgedSaves = 0;
  await bea.route(`${app}/dashboard/studio/new**`, async (route) => {
    const request = route.request();
    const body = request.postData();
    // Only the save carries the config (the layout's own server actions pass by untouched).
    if (request.method() !== "POST" || !body?.includes('{"name":"add","toolkit":"Calculator"}')) return route.continue();
    forgedSaves++;
    return route.continue({ postData: body.replace('{"name":"add","toolkit":"Calculator"}', '{"name":"server_details","toolkit":"Host"}') });
  });
  await bea.getByRole("button", { name: "Save draft" }).click();
  await expect(bea.getByRole("alert").filter({ hasText: "toolkit 'Host' is offered to admins only" })).toBeVisible();
  expect(forgedSaves).toBe(1);
  await bea.unroute(`${app}/dashboard/studio/new**`);
  await bea.goto(`${app}/dashboard/studio`);
  await expect(bea.getByText("Bea's forgery")).toHaveCount(0);
  // An admin is offered it, marked as theirs alone.
  await page.goto(`${app}/dashboard/studio/new?type=agent`);
  await expect(page.getByTestId("toolkit-Host")).toContainText("admins only");

  expect(violations).toEqual([]);
});

test("Studio: a team of a code-defined agent, tried as a draft, and a workflow whose step waits for a person's confirmation", async ({ page }) => {
  await signInAsAdmin(page, app);
  for (const dialog of [page]) dialog.on("dialog", (d) => void d.accept());

  // A team: the leader's instructions carry its motto; its members a code-defined agent and another.
  await page.goto(`${app}/dashboard/studio/new?type=team`);
  await page.getByLabel("Name", { exact: true }).fill("Motto desk");
  await page.getByLabel("Leader instructions").fill("Ask the writer when wording helps. Motto: together.");
  await page.getByLabel("Mode", { exact: true }).selectOption("coordinate");
  const addMember = async (label: string) => {
    await page.getByLabel("Member to add").selectOption({ label });
    await page.getByRole("button", { name: "Add", exact: true }).click();
  };
  await addMember("Writer (agent writer, in code)");
  await addMember("Analyst (agent analyst, in code)");
  await expect(page.getByTestId("team-member")).toHaveText([/1\. Writer/, /2\. Analyst/]);
  await page.getByRole("button", { name: "Move agent analyst up" }).click();
  await expect(page.getByTestId("team-member")).toHaveText([/1\. Analyst/, /2\. Writer/]);
  await screenshot(page, "studio-team-editor");
  await page.getByRole("button", { name: "Save draft" }).click();
  await expect(page).toHaveURL(/\/dashboard\/studio\/motto-desk$/);
  const teamId = componentIdOf(page);
  await page.getByRole("link", { name: "Try it (draft v1)" }).click();
  await expect(page).toHaveURL(`${app}/dashboard/teams/${teamId}?version=1`);
  expect(await askInPlayground(page, "what is your motto?")).toBe("My motto is together.");

  // A workflow: the analyst, then the writer once a person confirms.
  await page.goto(`${app}/dashboard/studio/new?type=workflow`);
  await page.getByLabel("Name", { exact: true }).fill("Checked brief");
  await page.getByRole("button", { name: "Add a step" }).click();
  await page.getByRole("button", { name: "Add a step" }).click();
  const steps = page.getByTestId("workflow-step");
  await steps.nth(0).getByLabel("Step name").fill("facts");
  await steps.nth(0).getByLabel("What step facts runs").selectOption({ label: "Analyst (agent analyst, in code)" });
  await steps.nth(1).getByLabel("Step name").fill("draft");
  await steps.nth(1).getByLabel("What step draft runs").selectOption({ label: "Writer (agent writer, in code)" });
  await steps.nth(1).getByText("Human review").click();
  await steps.nth(1).getByLabel("Confirm before step draft runs").check();
  await steps.nth(1).getByLabel("Confirmation message of step draft").fill("Write the draft now?");
  await screenshot(page, "studio-workflow-editor");
  await page.getByRole("button", { name: "Save draft" }).click();
  await expect(page).toHaveURL(/\/dashboard\/studio\/checked-brief$/);
  await page.getByRole("button", { name: "Publish v1" }).first().click();
  await expect(page.getByTestId("component-current")).toHaveText("current: v1");
  const workflowId = componentIdOf(page);
  // Its steps are Agno's step list in GET /workflows/{id}.
  const workflow = await page.request.get(`${app}/workflows/${workflowId}`, { headers: { origin: app } });
  expect(workflow.status(), await workflow.text()).toBe(200);
  expect(((await workflow.json()) as { steps?: { name: string }[] }).steps?.map((s) => s.name)).toEqual(["facts", "draft"]);
  // Its playground lists the same steps.
  await page.goto(`${app}/dashboard/workflows/${workflowId}?version=1`);
  await expect(page.getByRole("heading", { name: "Checked brief" })).toBeVisible();
  await expect(page.getByText("facts", { exact: true }).first()).toBeVisible();
});
