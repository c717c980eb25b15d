import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test, type Page } from "@playwright/test";
import { cspViolations, signInAsAdmin, inviteMember } from "./fixtures/dashboard.ts";

/**
 * The Knowledge page against `next start` on SQLite, embedding through the scripted model's
 * hashing embedder (playwright.config.ts): an admin adds pasted text, a Markdown file and a web
 * page (served by this test, held until the test has seen it processing), each followed live to
 * completed without a reload; a file that is not the PDF its name says fails with the reason; the
 * form's refusals are shown next to their fields; hybrid and keyword searches rank the right chunk
 * first, with its score, source and chunk number; a content is deleted after confirming. Members
 * see their own contents and the shared ones (an admin's), never another member's, and cannot
 * delete a shared one.
 */

// Serial: the member test reads what the admin added in the first one.
test.describe.configure({ mode: "serial" });

const SHOTS = process.env.AGENTRY_E2E_OUTPUT_DIR ? `${process.env.AGENTRY_E2E_OUTPUT_DIR}/screenshots` : "e2e/artifacts/screenshots";
const shot = (page: Page, name: string) => page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });

const MEMBER_A = { email: "knowledge-a@agentry.test", name: "Kay Member", password: "knowledge member a" } as const;
const MEMBER_B = { email: "knowledge-b@agentry.test", name: "Bea Member", password: "knowledge member b" } as const;

const TENT_CARE = "Tent care: after every trip, dry the tent fully before packing it away. Reseal the seams with a waterproof seam sealer once a season so rain stays out.";
const STOVES_MD = [
  "# Camp stoves",
  "",
  "A canister stove burns a butane and propane mix. Keep the canister warm in cold weather: butane stops vaporising near freezing.",
  "",
  "## Cleaning",
  "",
  "Clear the jet with the pricker after each trip and check the O-ring for cracks.",
].join("\n");
const LANTERNS_MD = "# Lanterns\n\nA lantern with a frosted globe spreads its light around the whole campsite; hang it from a ridge line.\n";

const rowsOf = (page: Page) => page.getByTestId("contents-table").getByTestId("table-row");
const contentRow = (page: Page, name: string) => rowsOf(page).filter({ has: page.getByTestId("content-name").getByText(name, { exact: true }) });
const statusOf = (page: Page, name: string) => contentRow(page, name).getByTestId("content-status").getByTestId("status");

/** A web server of the test's own whose pages are held until `release()` (so "processing" can be seen for certain). */
async function heldPages(pages: Record<string, string>): Promise<{ url: (path: string) => string; release: () => void; server: Server }> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const server = createServer((request, response) => {
    const body = pages[request.url ?? ""];
    void released.then(() => {
      if (body === undefined) response.writeHead(404).end("not found");
      else response.writeHead(200, { "content-type": "text/markdown; charset=utf-8" }).end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: (path) => `http://127.0.0.1:${port}${path}`, release, server };
}

/** Searches from the page's playground and waits for the answer. */
async function search(page: Page, query: string, type: "Hybrid" | "Vector" | "Keyword"): Promise<void> {
  const form = page.getByRole("form", { name: "Search knowledge" });
  await form.getByLabel("Query").fill(query);
  await form.getByRole("radio", { name: new RegExp(`^${type}`) }).check();
  await form.getByRole("button", { name: "Search" }).click();
  await expect(form.getByRole("button", { name: "Search" })).toBeEnabled();
}

/** Adds pasted text from the page's form. */
async function addText(page: Page, text: string, name: string): Promise<void> {
  const form = page.getByRole("form", { name: "Add content" });
  await form.getByRole("radio", { name: "Text", exact: true }).check();
  await form.getByLabel("Text to add").fill(text);
  await form.getByLabel("Name", { exact: true }).fill(name);
  await form.getByRole("button", { name: "Add content" }).click();
  await expect(form.getByRole("status")).toHaveText(`Added “${name}”: it is being processed.`);
}

test("knowledge: add text, a file and a URL, follow them live, see a failure, search hybrid and keyword, delete", async ({ page }) => {
  test.setTimeout(120_000);
  const violations = cspViolations(page);
  const web = await heldPages({ "/lanterns.md": LANTERNS_MD });
  try {
    await signInAsAdmin(page);
    await page.getByRole("link", { name: "Knowledge", exact: true }).click();
    await expect(page).toHaveURL(/\/dashboard\/knowledge$/);
    await expect(page.getByRole("heading", { name: "Knowledge", level: 1 })).toBeVisible();
    await expect(page.getByTestId("contents-table")).toContainText("No contents yet");
    // An embedder is configured: every search type can run, and no note says otherwise.
    const searchForm = page.getByRole("form", { name: "Search knowledge" });
    await expect(searchForm.getByRole("radio", { name: /^Vector/ })).toBeEnabled();
    await expect(page.getByTestId("embedder-note")).toHaveCount(0);
    // Nothing below may come from a reload: the page's window outlives every change.
    await page.evaluate(() => Object.assign(window, { knowledgeNoReload: true }));

    // Refusals are named next to their field, and what was typed stays.
    const form = page.getByRole("form", { name: "Add content" });
    await form.getByRole("button", { name: "Add content" }).click();
    await expect(form.getByRole("alert")).toHaveText("Nothing to add: choose a file, enter a URL or paste some text.");
    await form.getByRole("radio", { name: "URL", exact: true }).check();
    await form.getByLabel("Page or file URL").fill("ftp://example.com/guide.md");
    await form.getByRole("button", { name: "Add content" }).click();
    await expect(form.getByRole("alert")).toHaveText("'ftp://example.com/guide.md' is not an http(s) URL: give an address starting with http:// or https://.");
    await expect(form.getByLabel("Page or file URL")).toHaveAttribute("aria-invalid", "true");
    await form.getByRole("radio", { name: "Text", exact: true }).check();
    await form.getByLabel("Text to add").fill(TENT_CARE);
    await form.getByLabel("Metadata").fill("{topic: tents}");
    await form.getByRole("button", { name: "Add content" }).click();
    await expect(form.getByRole("alert")).toHaveText('metadata is not JSON: write an object such as {"topic": "tents"}.');
    await expect(form.getByLabel("Text to add")).toHaveValue(TENT_CARE);
    await shot(page, "knowledge-form-error");

    // Pasted text, with metadata: its row appears, then reads completed.
    await form.getByLabel("Metadata").fill('{"topic": "tents"}');
    await form.getByLabel("Name", { exact: true }).fill("Tent care");
    await form.getByRole("button", { name: "Add content" }).click();
    await expect(form.getByRole("status")).toHaveText("Added “Tent care”: it is being processed.");
    await expect(form.getByLabel("Text to add")).toHaveValue("");
    await expect(contentRow(page, "Tent care")).toContainText("Text");
    await expect(statusOf(page, "Tent care")).toHaveText("completed", { timeout: 20_000 });

    // A Markdown file, sent from the file input: its size and type are shown.
    await form.getByRole("radio", { name: "File", exact: true }).check();
    await form.getByLabel("File to upload").setInputFiles({ name: "stoves.md", mimeType: "text/markdown", buffer: Buffer.from(STOVES_MD) });
    await form.getByRole("button", { name: "Add content" }).click();
    await expect(form.getByRole("status")).toHaveText("Added “stoves.md”: it is being processed.");
    await expect(statusOf(page, "stoves.md")).toHaveText("completed", { timeout: 20_000 });
    await expect(contentRow(page, "stoves.md")).toContainText("Markdown");
    await expect(contentRow(page, "stoves.md")).toContainText(`${Buffer.byteLength(STOVES_MD)} B`);

    // A web page the server holds: the row reads processing (and the page follows it live) until the page is served.
    await form.getByRole("radio", { name: "URL", exact: true }).check();
    await form.getByLabel("Page or file URL").fill(web.url("/lanterns.md"));
    await form.getByLabel("Name", { exact: true }).fill("Lanterns");
    await form.getByRole("button", { name: "Add content" }).click();
    await expect(statusOf(page, "Lanterns")).toHaveText("processing");
    await expect(page.getByText("live", { exact: true })).toBeVisible();
    await expect(contentRow(page, "Lanterns")).toContainText("URL");
    web.release();
    await expect(statusOf(page, "Lanterns")).toHaveText("completed", { timeout: 20_000 });
    await expect(page.getByText("live", { exact: true })).toHaveCount(0);

    // A file that is not the PDF its name says: failed, with the reason.
    await form.getByRole("radio", { name: "File", exact: true }).check();
    await form.getByLabel("File to upload").setInputFiles({ name: "broken.pdf", mimeType: "application/pdf", buffer: Buffer.from("this is not a PDF at all") });
    await form.getByRole("button", { name: "Add content" }).click();
    await expect(statusOf(page, "broken.pdf")).toHaveText("failed", { timeout: 20_000 });
    await expect(contentRow(page, "broken.pdf").getByTestId("status-message")).toContainText("The file is not a readable PDF");
    // A document past a knowledge limit (read on a worker thread): failed, naming the limit and its setting.
    await form.getByRole("radio", { name: "File", exact: true }).check();
    await form.getByLabel("File to upload").setInputFiles({ name: "deep.json", mimeType: "application/json", buffer: Buffer.from(`${"[".repeat(100)}1${"]".repeat(100)}`) });
    await form.getByRole("button", { name: "Add content" }).click();
    await expect(statusOf(page, "deep.json")).toHaveText("failed", { timeout: 20_000 });
    await expect(contentRow(page, "deep.json").getByTestId("status-message")).toContainText("nested more than 64 levels deep (knowledge.maxJsonDepth)");
    await expect(rowsOf(page)).toHaveCount(5);
    await expect(page.getByText("5 in all")).toBeVisible();
    expect(await page.evaluate(() => (window as unknown as { knowledgeNoReload?: boolean }).knowledgeNoReload)).toBe(true);
    await shot(page, "knowledge-list");
    const desktop = page.viewportSize()!;
    await page.setViewportSize({ width: 390, height: 844 });
    await shot(page, "knowledge-list-phone");
    await page.setViewportSize(desktop);

    // The status filter is a plain GET form.
    await page.getByRole("combobox", { name: "Status" }).selectOption("failed");
    await page.getByRole("button", { name: "Apply" }).click();
    await expect(page).toHaveURL(/[?&]status=failed/);
    await expect(rowsOf(page)).toHaveCount(2);
    await expect(contentRow(page, "broken.pdf")).toHaveCount(1);
    await page.getByRole("link", { name: "Clear" }).click();
    await expect(rowsOf(page)).toHaveCount(5);

    // Hybrid search: the chunk about seams first, with its score, source and chunk number.
    await search(page, "waterproof seam sealer", "Hybrid");
    await expect(page.getByTestId("search-summary")).toContainText("(hybrid search)");
    const hits = page.getByTestId("search-hit");
    await expect(hits.first().getByTestId("hit-source")).toHaveText("Tent care");
    await expect(hits.first().getByTestId("hit-score")).toHaveText(/^\d+\.\d{4}$/);
    await expect(hits.first().getByTestId("hit-chunk")).toHaveText("chunk 1");
    await expect(hits.first().getByTestId("hit-text")).toContainText("Reseal the seams with a waterproof seam sealer");
    // The source links to the content's row in the table.
    await expect(hits.first().getByTestId("hit-source").getByRole("link")).toHaveAttribute("href", /^#content-/);
    await shot(page, "knowledge-search");

    // Keyword search: the stove section that names butane canisters.
    await search(page, "butane canister", "Keyword");
    await expect(page.getByTestId("search-summary")).toContainText("(keyword search)");
    await expect(hits.first().getByTestId("hit-source")).toHaveText("stoves.md");
    await expect(hits.first().getByTestId("hit-text")).toContainText("A canister stove burns a butane and propane mix");
    await expect(hits.first().getByTestId("hit-score")).toHaveText(/^-?\d+\.\d{4}$/);
    await expect(hits.first().getByTestId("hit-chunk")).toHaveText(/^chunk \d+$/);
    await shot(page, "knowledge-search-keyword");

    // Delete asks first; dismissing keeps the content, accepting deletes it and its chunks.
    page.once("dialog", (dialog) => void dialog.dismiss());
    await contentRow(page, "Lanterns").getByRole("button", { name: "Delete “Lanterns”" }).click();
    await expect(contentRow(page, "Lanterns")).toHaveCount(1);
    page.once("dialog", (dialog) => {
      expect(dialog.message()).toContain("Delete “Lanterns”");
      void dialog.accept();
    });
    await contentRow(page, "Lanterns").getByRole("button", { name: "Delete “Lanterns”" }).click();
    await expect(contentRow(page, "Lanterns")).toHaveCount(0);
    await expect(page.getByText("4 in all")).toBeVisible();
    await search(page, "frosted globe lantern", "Keyword");
    await expect(page.getByTestId("search-hit").filter({ hasText: "frosted globe" })).toHaveCount(0);
    expect(violations).toEqual([]);
  } finally {
    web.release();
    await new Promise((resolve) => web.server.close(resolve));
  }
});

test("knowledge: a member sees its own contents and the shared ones, never another member's, and cannot delete a shared one", async ({ page, browser }) => {
  test.setTimeout(120_000);
  await signInAsAdmin(page);
  const memberA = await inviteMember(page, browser, MEMBER_A);
  const memberB = await inviteMember(page, browser, MEMBER_B);
  const violations = cspViolations(memberA);

  // The admin's contents are shared: the member sees them, marked so, without a delete button.
  await memberA.goto("/dashboard/knowledge?user=anyone");
  await expect(contentRow(memberA, "Tent care")).toContainText("shared");
  await expect(contentRow(memberA, "Tent care").getByRole("button", { name: /^Delete/ })).toHaveCount(0);
  await expect(memberA.getByRole("combobox", { name: "User" })).toHaveCount(0);
  await expect(memberA.getByRole("columnheader", { name: "User" })).toHaveCount(0);
  await addText(memberA, "Packing list: two headlamps, spare batteries and a whistle.", "Kay's packing list");
  await expect(statusOf(memberA, "Kay's packing list")).toHaveText("completed", { timeout: 20_000 });
  await expect(contentRow(memberA, "Kay's packing list").getByRole("button", { name: "Delete “Kay's packing list”" })).toBeVisible();
  await expect(contentRow(memberA, "Kay's packing list")).not.toContainText("shared");
  await search(memberA, "headlamps seam sealer", "Hybrid");
  const sources = memberA.getByTestId("search-hit").getByTestId("hit-source");
  await expect(sources.filter({ hasText: "Kay's packing list" })).toHaveCount(1);
  await expect(sources.filter({ hasText: "Tent care" })).toHaveCount(1);
  await shot(memberA, "knowledge-member");
  expect(violations).toEqual([]);

  // Another member sees the shared contents, not the first member's, and finds nothing of it.
  await memberB.goto("/dashboard/knowledge");
  await expect(contentRow(memberB, "Tent care")).toHaveCount(1);
  await expect(contentRow(memberB, "Kay's packing list")).toHaveCount(0);
  await search(memberB, "headlamps", "Keyword");
  await expect(memberB.getByText("Nothing you can see matches “headlamps”.")).toBeVisible();

  // The admin sees everyone's, with whose each is, and can filter to one user (plus the shared ones).
  await page.goto("/dashboard/knowledge");
  await expect(contentRow(page, "Kay's packing list")).toContainText(MEMBER_A.email);
  await expect(contentRow(page, "Tent care")).toContainText("shared");
  await expect(contentRow(page, "stoves.md").getByRole("button", { name: "Delete “stoves.md”" })).toBeVisible();
  await page.getByRole("combobox", { name: "User" }).selectOption({ label: MEMBER_B.email });
  await page.getByRole("button", { name: "Apply" }).click();
  await expect(contentRow(page, "Kay's packing list")).toHaveCount(0);
  await expect(contentRow(page, "Tent care")).toHaveCount(1);
  await page.goto("/dashboard/knowledge");
  await shot(page, "knowledge-admin");
  await memberA.context().close();
  await memberB.context().close();
});
