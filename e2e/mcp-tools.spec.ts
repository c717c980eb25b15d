import { expect, test } from "@playwright/test";
import { cspViolations, inviteMember, screenshot, sendMessage, signInAsAdmin } from "./fixtures/dashboard.ts";

/**
 * An agent using an MCP server, against `next start`: the sample Wordsmith agent
 * (agentry.config.ts) has the sample stdio MCP server's tools (bin/sample-mcp-server.mjs) through
 * `mcpTools()`. Its first run lists them on the admin's own connection; the scripted model
 * (e2e/fixtures/serve-model.ts) calls `word_count` for "count the words in X". The agents page
 * then shows the server with its tools, and Admin → MCP servers its connection state and pooled
 * connections; a member gets a 404 there.
 */

const MEMBER = { email: "member-mcp@agentry.test", name: "MCP Member", password: "mcp member password" } as const;
const shot = screenshot;

const send = sendMessage;

test("an agent calls an MCP server's tool; the agents page shows the server's tools, the admin page its connection", async ({ page, browser }) => {
  test.setTimeout(120_000);
  const violations = cspViolations(page);
  await signInAsAdmin(page);

  await page.goto("/dashboard/agents");
  const card = page.getByTestId("agent-wordsmith");
  await expect(card.getByRole("heading", { name: "Wordsmith" })).toBeVisible();
  const server = card.getByTestId("mcp-toolkit-sample-text-tools");
  await expect(server).toContainText("Sample text tools");
  await expect(server).toContainText("stdio");

  // The first run connects (as this user), lists the tools and calls one.
  await card.getByRole("link", { name: "Open the playground of Wordsmith" }).click();
  await expect(page).toHaveURL(/\/dashboard\/agents\/wordsmith$/);
  const turn = await send(page, "count the words in the quick brown fox");
  const tool = turn.getByTestId("tool-call");
  await expect(tool).toContainText("word_count");
  await expect(tool).toContainText("done");
  await expect(turn.getByTestId("assistant-message")).toHaveText('The result is {"words":4,"characters":19,"lines":1}.');
  await expect(turn.getByTestId("run-status")).toContainText("completed");
  await shot(page, "mcp-playground");

  // The agents page now lists the server's tools under it.
  await page.goto("/dashboard/agents");
  const listed = page.getByTestId("agent-wordsmith").getByTestId("mcp-toolkit-sample-text-tools");
  await expect(listed.getByRole("list", { name: "Tools of Sample text tools" }).getByRole("listitem")).toHaveText(["word_count", "change_case"]);
  await expect(listed.getByTestId("mcp-state")).toHaveText("connected");
  await shot(page, "mcp-agents");

  // Admin → MCP servers: connected, its tools, one pooled connection (the admin's), no error.
  await page.getByRole("link", { name: "MCP servers" }).click();
  await expect(page).toHaveURL(/\/dashboard\/admin\/mcp-servers$/);
  const section = page.getByRole("region", { name: /Sample text tools/ });
  await expect(section.getByTestId("mcp-state").first()).toHaveText("connected");
  await expect(section.getByTestId("mcp-tool-count")).toHaveText("2: word_count, change_case");
  await expect(section.getByTestId("mcp-open-connections")).toHaveText("1");
  await expect(section.getByTestId("mcp-last-error")).toHaveText("none");
  await expect(section).toContainText("node bin/sample-mcp-server.mjs");
  await expect(section).toContainText("agent:wordsmith");
  await expect(section.getByRole("table", { name: "Connections of Sample text tools" }).getByRole("row")).toHaveCount(2);
  await shot(page, "mcp-servers-admin");
  expect(violations).toEqual([]);

  // A member: no link, and the page is a 404.
  const member = await inviteMember(page, browser, MEMBER);
  await expect(member.getByRole("link", { name: "MCP servers" })).toHaveCount(0);
  expect((await member.goto("/dashboard/admin/mcp-servers"))?.status()).toBe(404);
});
