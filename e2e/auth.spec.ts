import { createServer, type Server } from "node:http";
import { expect, test } from "@playwright/test";
import { E2E_ADMIN, cspViolations, fillSetup, fillSignIn, signInAsAdmin } from "./fixtures/dashboard.ts";
import { E2E_PORTS, E2E_SECURITY_KEY } from "./fixtures/ports.ts";

// Serial: the first test performs the run's first-run setup on a fresh database.
test.describe.configure({ mode: "serial" });

const MEMBER = { email: "member@agentry.test", name: "Mia Member", password: "member password 1" };
const GENERIC_ERROR = "Incorrect email or password.";

test("first-run setup creates the admin and lands in the dashboard; setup is then gone", async ({ page }) => {
  const violations = cspViolations(page);
  const response = await page.goto("/dashboard");
  await expect(page).toHaveURL(/\/dashboard\/setup$/);
  // The dashboard's security headers.
  const headers = (await page.request.get("/dashboard/setup")).headers();
  expect(headers["content-security-policy"]).toMatch(/script-src 'self' 'nonce-[^']+' 'strict-dynamic'/);
  expect(headers["content-security-policy"]).toContain("frame-ancestors 'none'");
  expect(headers["x-frame-options"]).toBe("DENY");
  expect(headers["x-content-type-options"]).toBe("nosniff");
  expect(headers["referrer-policy"]).toBe("same-origin");
  expect(headers["strict-transport-security"]).toBeUndefined(); // plain http: no HSTS
  expect(response?.status()).toBe(200);

  await expect(page.getByRole("heading", { name: "Set up Agentry" })).toBeVisible();
  await page.screenshot({ path: "e2e/artifacts/setup.png", fullPage: true });
  // A mismatched confirmation is refused, keeping the email.
  await page.getByLabel("Email").fill(E2E_ADMIN.email);
  await page.getByLabel("Password", { exact: true }).fill(E2E_ADMIN.password);
  await page.getByLabel("Confirm password").fill("something else entirely");
  await page.getByRole("button", { name: "Create admin account" }).click();
  await expect(page.getByTestId("form-error")).toHaveText("The passwords do not match.");

  await fillSetup(page, E2E_ADMIN);
  await expect(page).toHaveURL(/\/dashboard$/);
  await expect(page.getByTestId("signed-in-user")).toContainText(`${E2E_ADMIN.email}admin`);
  await expect(page.getByRole("heading", { name: "Agents" })).toBeVisible();

  // Setup exists only while no user does.
  expect((await page.goto("/dashboard/setup"))?.status()).toBe(404);
  expect(violations).toEqual([]);
});

test("sign out; a wrong password and an unknown email get the same generic error", async ({ page }) => {
  const violations = cspViolations(page);
  await signInAsAdmin(page);
  await page.getByRole("button", { name: "Sign out", exact: true }).click();
  await expect(page).toHaveURL(/\/dashboard\/sign-in$/);
  await page.goto("/dashboard");
  await expect(page).toHaveURL(/\/dashboard\/sign-in$/);

  await fillSignIn(page, { email: E2E_ADMIN.email, password: "not the password" });
  await expect(page.getByTestId("form-error")).toHaveText(GENERIC_ERROR);
  await expect(page.getByLabel("Email")).toHaveValue(E2E_ADMIN.email);
  await page.screenshot({ path: "e2e/artifacts/sign-in.png", fullPage: true });
  await fillSignIn(page, { email: "nobody@agentry.test", password: "not the password" });
  await expect(page.getByTestId("form-error")).toHaveText(GENERIC_ERROR);

  await fillSignIn(page, E2E_ADMIN);
  await expect(page).toHaveURL(/\/dashboard$/);
  expect(violations).toEqual([]);
});

test("a member invited by link cannot open the admin console; disabling them ends their session at once", async ({ page, browser }) => {
  const violations = cspViolations(page);
  await signInAsAdmin(page);
  await page.getByRole("link", { name: "Users" }).click();
  await expect(page).toHaveURL(/\/dashboard\/admin\/users$/);
  await page.getByLabel("Email").fill(MEMBER.email);
  await page.getByRole("button", { name: "Create invite link" }).click();
  const link = await page.getByTestId("one-time-link").inputValue();
  expect(link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/dashboard\/invite\/[A-Za-z0-9_-]{43}$/);
  await expect(page.getByRole("region", { name: /Pending invites/ })).toContainText(MEMBER.email);
  await page.screenshot({ path: "e2e/artifacts/admin-users-invite.png", fullPage: true });

  // The invitee, in a browser of their own.
  const memberContext = await browser.newContext();
  const member = await memberContext.newPage();
  await member.goto(link);
  await expect(member.getByText(`Create the account for ${MEMBER.email}`)).toBeVisible();
  await member.screenshot({ path: "e2e/artifacts/invite.png", fullPage: true });
  await member.getByLabel("Name").fill(MEMBER.name);
  await member.getByLabel("Password", { exact: true }).fill(MEMBER.password);
  await member.getByLabel("Confirm password").fill(MEMBER.password);
  await member.getByRole("button", { name: "Create account" }).click();
  await expect(member).toHaveURL(/\/dashboard$/);
  await expect(member.getByTestId("signed-in-user")).toContainText(`${MEMBER.email}member`);
  await expect(member.getByRole("link", { name: "Users" })).toHaveCount(0);
  expect((await member.goto("/dashboard/admin"))?.status()).toBe(404);
  expect((await member.goto("/dashboard/admin/users"))?.status()).toBe(404);
  // The invite link is used up.
  await member.goto(link);
  await expect(member.getByRole("heading", { name: "Invite link not valid" })).toBeVisible();

  // The admin sees the member, and disables them: the member's very next request is signed out.
  await page.reload();
  const row = page.getByTestId(`user-row-${MEMBER.email}`);
  await expect(row).toContainText("member");
  await page.screenshot({ path: "e2e/artifacts/admin-users.png", fullPage: true });
  await row.getByRole("button", { name: `Disable ${MEMBER.email}` }).click();
  await expect(row).toContainText("disabled");
  await member.goto("/dashboard");
  await expect(member).toHaveURL(/\/dashboard\/sign-in$/);
  await fillSignIn(member, MEMBER);
  await expect(member.getByTestId("form-error")).toHaveText(GENERIC_ERROR);

  // Re-enabled, with a reset link, they choose a new password and are back in.
  await row.getByRole("button", { name: `Enable ${MEMBER.email}` }).click();
  await expect(row).toContainText("active");
  await row.getByRole("button", { name: `Password-reset link for ${MEMBER.email}` }).click();
  const reset = await row.getByTestId("one-time-link").inputValue();
  await member.goto(reset);
  await member.getByLabel("Password", { exact: true }).fill("member password 2");
  await member.getByLabel("Confirm password").fill("member password 2");
  await member.getByRole("button", { name: "Set password" }).click();
  await expect(member).toHaveURL(/\/dashboard$/);
  await memberContext.close();
  expect(violations).toEqual([]);
});

test.describe("cross-origin requests", () => {
  const app = `http://127.0.0.1:${E2E_PORTS.securedApp}`;
  const other = `http://127.0.0.1:${E2E_PORTS.otherOrigin}`;
  let attacker: Server;

  test.beforeAll(async () => {
    // A page on another origin (same host, another port: same site, so the Lax cookie is sent).
    attacker = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.end(`<!doctype html><title>elsewhere</title>
<form id="f" method="POST" action="${app}/agents/assistant/runs">
<input name="message" value="run by another site"><input name="stream" value="false"></form>
<script>document.getElementById("f").submit()</script>`);
    });
    await new Promise<void>((resolve) => attacker.listen(E2E_PORTS.otherOrigin, "127.0.0.1", resolve));
  });
  test.afterAll(async () => new Promise<void>((resolve) => attacker.close(() => resolve())));

  test("a form POST from another origin carrying the signed-in cookie is refused and creates no run", async ({ page, request }) => {
    const bearer = { authorization: `Bearer ${E2E_SECURITY_KEY}` };
    await signInAsAdmin(page, app);
    const before = await (await request.get(`${app}/sessions?type=agent`, { headers: bearer })).json();

    const submitted = page.waitForRequest(`${app}/agents/assistant/runs`);
    const answered = page.waitForResponse(`${app}/agents/assistant/runs`);
    await page.goto(other);
    const sent = await submitted;
    // The browser did send the session cookie: the refusal is the server's origin check.
    expect((await sent.allHeaders()).cookie ?? "").toContain("agentry.session-token=");
    expect((await answered).status()).toBe(401);
    await expect(page.locator("body")).toContainText("Authorization header required");

    const after = await (await request.get(`${app}/sessions?type=agent`, { headers: bearer })).json();
    expect(after.data.length).toBe(before.data.length);
    expect(JSON.stringify(after)).not.toContain("run by another site");

    // The same cookie from the dashboard's own page is the signed-in admin: the run happens.
    await page.goto(`${app}/dashboard`);
    const own = await page.evaluate(async () => {
      const form = new FormData();
      form.set("message", "run by the dashboard");
      form.set("stream", "false");
      const response = await fetch("/agents/assistant/runs", { method: "POST", body: form });
      return { status: response.status, body: (await response.json()) as { content?: string } };
    });
    expect(own.status).toBe(200);
    expect(own.body.content).toBe("Echo: run by the dashboard");
  });
});
