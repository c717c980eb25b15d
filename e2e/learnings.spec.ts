import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { cspViolations, inviteMember, screenshot, sendMessage, signInAsAdmin } from "./fixtures/dashboard.ts";

/**
 * What agents know (agno_learnings) against `next start`, with the sample Companion agent
 * (`learning: true`, agentry.config.ts) and the scripted model's rules (e2e/fixtures/serve-model.ts):
 * its profile extraction reads "my name is …, call me …", its memory extraction each "I <verb> …",
 * and "what do you know about me?" answers with the learning sections of the prompt the run sent it.
 */

const ADA = { email: "learning-ada@agentry.test", name: "Ada", password: "ada password 1234" };
const BEA = { email: "learning-bea@agentry.test", name: "Bea", password: "bea password 1234" };

/** Asks the Companion, in a new session, what its prompt says about the user; the answer's text. */
async function askWhatItKnows(page: Page): Promise<string> {
  await page.goto("/dashboard/agents/companion");
  await expect(page.getByTestId("session")).toHaveText("A new session starts with the first message.");
  const turn = await sendMessage(page, "what do you know about me?");
  await expect(turn.getByTestId("run-status")).toContainText("completed");
  return (await turn.getByTestId("assistant-message").textContent()) ?? "";
}

/** A learning written through the API (auth mode none: the caller is an admin). */
async function postLearning(request: APIRequestContext, body: Record<string, unknown>): Promise<void> {
  const response = await request.post("/learnings", { data: { agent_id: "companion", ...body } });
  expect(response.status(), await response.text()).toBe(201);
}

test("what agents know: learned while chatting, seen only by its member and admins, corrected, then forgotten for good", async ({ page, browser, request }) => {
  await signInAsAdmin(page);
  const ada = await inviteMember(page, browser, ADA);
  const bea = await inviteMember(page, browser, BEA);
  const violations = cspViolations(ada);

  // The agents list says what the Companion learns, and how.
  await ada.goto("/dashboard/agents");
  const learns = ada.getByTestId("agent-companion").getByRole("list", { name: "Learning" }).getByRole("listitem");
  await expect(learns).toHaveText(["User profilealways", "User memoryalways"]);
  await ada.getByRole("link", { name: "Open the playground of Companion" }).click();
  const first = await sendMessage(ada, "My name is Ada Lovelace, call me Ada. I keep bees.");
  // The extraction is awaited before the run completes: what it learned is stored by then.
  await expect(first.getByTestId("run-status")).toContainText("completed");

  await ada.getByRole("link", { name: "What agents know" }).click();
  await expect(ada).toHaveURL(/\/dashboard\/learnings$/);
  const companion = ada.getByRole("region", { name: /^Companion/ });
  await expect(companion.getByTestId("learning-user_profile")).toContainText("Ada Lovelace");
  await expect(companion.getByTestId("learning-memory")).toHaveCount(1);
  await expect(companion.getByTestId("learning-memory")).toContainText("Keeps bees");

  // An entity of Ada's own and a shared one, as an agent with entity memory would keep them.
  const profiles = (await (await request.get("/learnings?learning_type=user_profile")).json()) as { data: { user_id: string; content: { name?: string } }[] };
  const adaId = profiles.data.find((row) => row.content.name === "Ada Lovelace")!.user_id;
  await postLearning(request, {
    learning_type: "entity_memory",
    user_id: adaId,
    namespace: "user",
    entity_id: "grace_hopper",
    entity_type: "person",
    content: {
      name: "Grace Hopper",
      entity_type: "person",
      description: "Ada's mentor",
      facts: [{ id: "f1", content: "Wrote the first compiler" }],
      events: [{ id: "e1", content: "Met Ada at the bee club", date: "2026-05-02" }],
      relationships: [{ entity_id: "bee_club", relation: "member of", direction: "outgoing" }],
    },
  });
  await postLearning(request, {
    learning_type: "entity_memory",
    namespace: "global",
    entity_id: "ridgeline_2",
    entity_type: "product",
    content: { name: "Ridgeline 2", entity_type: "product", description: "A two-person tent", facts: [{ id: "f1", content: "Weighs 1.9 kg" }] },
  });
  await ada.reload();
  await expect(companion.getByTestId("learning-entity_memory")).toContainText("Wrote the first compiler");
  await expect(ada.getByText("Ridgeline 2")).toHaveCount(0);
  await screenshot(ada, "learnings-member");
  const desktop = ada.viewportSize()!;
  await ada.setViewportSize({ width: 390, height: 844 });
  expect(await ada.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
  await screenshot(ada, "learnings-member-phone");
  await ada.setViewportSize(desktop);

  // Corrected on the page, and the next session's prompt carries the correction.
  await companion.getByRole("button", { name: "Edit the profile" }).click();
  await ada.getByRole("form", { name: "Edit the profile" }).getByLabel("Preferred name").fill("Countess");
  await ada.getByRole("form", { name: "Edit the profile" }).getByRole("button", { name: "Save" }).click();
  await expect(companion.getByTestId("learning-user_profile")).toContainText("Countess");
  expect(await askWhatItKnows(ada)).toBe("From my prompt: user_profile: Name: Ada Lovelace; Preferred Name: Countess | user_memories: - Keeps bees");

  // The shared tab: the shared entity, read-only for a member.
  await ada.goto("/dashboard/learnings?tab=shared");
  const shared = ada.getByTestId("learning-entity_memory").filter({ hasText: "Ridgeline 2" });
  await expect(shared).toContainText("read-only");
  await expect(shared.getByRole("button")).toHaveCount(0);

  // Another member sees none of it, whichever user the URL names.
  for (const path of ["/dashboard/learnings", `/dashboard/learnings?user=${encodeURIComponent(adaId)}`]) {
    await bea.goto(path);
    await expect(bea.getByTestId("learnings-empty")).toHaveText(/Agents have learned nothing about you yet/);
    await expect(bea.getByText("Ada Lovelace")).toHaveCount(0);
  }

  // An admin picks Ada with the user filter, and can change the shared learnings.
  await page.goto("/dashboard/learnings");
  await expect(page.getByRole("link", { name: "About everyone" })).toHaveAttribute("aria-current", "page");
  await expect(page.getByTestId("learning-user_profile")).toContainText(`about ${ADA.email}`);
  await screenshot(page, "learnings-admin-everyone");
  await page.getByRole("combobox", { name: /^User/ }).selectOption({ label: ADA.email });
  await page.getByRole("button", { name: "Apply" }).click();
  await expect(page).toHaveURL(/[?&]user=/);
  await expect(page.getByRole("heading", { name: "Forget everything about learning-ada@agentry.test" })).toBeVisible();
  await expect(page.getByTestId("learning-user_profile")).toContainText("Countess");
  await screenshot(page, "learnings-admin");
  await page.getByRole("link", { name: "Shared" }).click();
  await expect(
    page
      .getByTestId("learning-entity_memory")
      .filter({ hasText: "Ridgeline 2" })
      .getByRole("button", { name: /^Edit the entity/ }),
  ).toBeVisible();
  await screenshot(page, "learnings-admin-shared");

  // Forget everything: asked twice, then nothing learned is left.
  await ada.goto("/dashboard/learnings");
  await ada.getByRole("button", { name: "Forget everything about me" }).click();
  await ada.getByRole("button", { name: "Yes, forget everything" }).click();
  await expect(ada.getByRole("status").filter({ hasText: "Agents forgot everything" })).toHaveText(
    "Agents forgot everything they learned about you: 3 learnings, 0 memories and 0 learned insights deleted.",
  );
  await expect(ada.getByTestId("learnings-empty")).toHaveText(/Agents have learned nothing about you yet/);
  await ada.reload();
  await expect(ada.getByTestId("learnings-empty")).toBeVisible();

  // The next run, in a new session, is sent none of it; and it learns nothing new from the question.
  expect(await askWhatItKnows(ada)).toBe("Nothing about you is in my prompt.");
  await ada.goto("/dashboard/learnings");
  await expect(ada.getByTestId("learnings-empty")).toBeVisible();
  // The shared entity stays.
  await ada.getByRole("link", { name: "Shared" }).click();
  await expect(ada.getByText("Ridgeline 2")).toBeVisible();
  expect(violations).toEqual([]);
  await bea.context().close();
  await ada.context().close();
});
