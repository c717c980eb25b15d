import { createServer, type Server } from "node:http";
import { expect, test, type Page } from "@playwright/test";
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

test("sign out ends the session on the server: the old cookie no longer opens the dashboard", async ({ page, browser, baseURL }) => {
  await signInAsAdmin(page);
  const session = (await page.context().cookies()).find((c) => c.name === "agentry.session-token");
  expect(session).toBeTruthy();
  await page.getByRole("button", { name: "Sign out", exact: true }).click();
  await expect(page).toHaveURL(/\/dashboard\/sign-in$/);

  // A copy of the cookie taken before signing out (a stolen one, say), in another browser.
  const elsewhere = await browser.newContext({ baseURL });
  await elsewhere.addCookies([{ ...session! }]);
  const replay = await elsewhere.newPage();
  await replay.goto("/dashboard");
  await expect(replay).toHaveURL(/\/dashboard\/sign-in$/);
  await replay.screenshot({ path: "e2e/artifacts/signed-out-cookie-refused.png", fullPage: true });
  await elsewhere.close();
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

test("sign-in throttling counts the connecting address (a forged X-Forwarded-For does not escape it), and the form says when to try again", async ({ page }) => {
  const email = `throttled-${Date.now()}@agentry.test`;
  // Through Auth.js's credentials route, each attempt claiming another X-Forwarded-For.
  const attempt = async (forgedAddress: string) => {
    const { csrfToken } = (await (await page.request.get("/dashboard/auth/csrf")).json()) as { csrfToken: string };
    const response = await page.request.post("/dashboard/auth/callback/credentials", {
      form: { csrfToken, email, password: "not the password", callbackUrl: "/dashboard" },
      headers: { "x-forwarded-for": forgedAddress },
      maxRedirects: 0,
    });
    return new URL(response.headers().location ?? "", "http://x").searchParams.get("code");
  };
  for (let i = 1; i <= 5; i++) expect(await attempt(`203.0.113.${i}`)).toBe("credentials");
  expect(await attempt("203.0.113.6")).toBe("throttled");

  // The sign-in form, from the same address, says how long to wait.
  await page.goto("/dashboard/sign-in");
  await fillSignIn(page, { email, password: "not the password" });
  await expect(page.getByTestId("form-error")).toHaveText(/^Too many failed sign-in attempts from here\. Try again in (30|[12]\d|\d) seconds?\.$/);
  await page.screenshot({ path: "e2e/artifacts/sign-in-throttled.png", fullPage: true });
  // The admin's account is not affected: it signs in from this very address.
  await fillSignIn(page, E2E_ADMIN);
  await expect(page).toHaveURL(/\/dashboard$/);
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
  /** Pages the attacker serves besides its run form, by path: copies of the dashboard's own forms. */
  const copies = new Map<string, string>();

  test.beforeAll(async () => {
    // A page on another origin (same host, another port: same site, so the Lax cookie is sent).
    attacker = createServer((req, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      const copy = copies.get(req.url ?? "");
      if (copy) return void res.end(copy);
      res.end(`<!doctype html><title>elsewhere</title>
<form id="f" method="POST" action="${app}/agents/assistant/runs">
<input name="message" value="run by another site"><input name="stream" value="false"></form>
<script>document.getElementById("f").submit()</script>`);
    });
    await new Promise<void>((resolve) => attacker.listen(E2E_PORTS.otherOrigin, "127.0.0.1", resolve));
  });
  test.afterAll(async () => new Promise<void>((resolve) => attacker.close(() => resolve())));

  /**
   * Serves, on the attacker's origin, a copy of the dashboard form on the page whose button says
   * `button` (as the server sent it, the real server action's fields included), filled in with
   * `values` and submitted as soon as it loads.
   */
  async function copyForm(page: Page, { button, path, values = {} }: { button: string; path: string; values?: Record<string, string> }) {
    const form = await page.evaluate(
      async ({ button, action }) => {
        const html = await (await fetch(location.href)).text();
        const doc = new DOMParser().parseFromString(html, "text/html");
        const found = [...doc.forms].find((f) => [...f.querySelectorAll("button")].some((b) => b.textContent?.trim() === button));
        if (!found) throw new Error(`no form with a '${button}' button`);
        found.id = "copied";
        found.setAttribute("action", action);
        found.setAttribute("method", "POST");
        found.setAttribute("enctype", "multipart/form-data");
        return found.outerHTML;
      },
      { button, action: `${app}${new URL(page.url()).pathname}` },
    );
    const fill = Object.entries(values)
      .map(([name, value]) => `document.querySelector('#copied [name="${name}"]').value = ${JSON.stringify(value)};`)
      .join("\n");
    copies.set(path, `<!doctype html><title>elsewhere</title>${form}<script>${fill}\ndocument.getElementById("copied").submit()</script>`);
  }

  /** Opens the attacker's copy and returns the dashboard's answer to the form it sent. */
  async function submitFromElsewhere(page: Page, path: string) {
    const answered = page.waitForResponse((r) => r.request().method() === "POST" && r.url().startsWith(app));
    await page.goto(`${other}${path}`);
    const response = await answered;
    return { status: response.status(), body: await response.text(), cookie: response.headers()["set-cookie"] ?? "" };
  }

  test("setup, sign-in and sign-out forms sent from another origin are a 403 with a detail, and change nothing", async ({ page, browser }) => {
    // Setup, while it is open: the copied form would create an admin of the attacker's choosing.
    await page.goto(`${app}/dashboard/setup`);
    await copyForm(page, {
      button: "Create admin account",
      path: "/setup",
      values: { email: "intruder@evil.test", name: "Intruder", password: "intruder password", confirm: "intruder password" },
    });
    const setup = await submitFromElsewhere(page, "/setup");
    expect(setup.status).toBe(403);
    expect(JSON.parse(setup.body)).toEqual({ detail: expect.stringMatching(/^Cross-site request refused: dashboard forms can only be submitted from the dashboard's own pages/) });
    expect(setup.body).not.toMatch(/Error|Invalid Server Actions/);
    await page.screenshot({ path: "e2e/artifacts/cross-site-setup-refused.png" });
    // Setup is still open: no admin was created.
    expect((await page.goto(`${app}/dashboard/setup`))?.status()).toBe(200);

    // Sign-in (login CSRF: signing the browser into the attacker's account) and sign-out.
    await signInAsAdmin(page, app);
    const cookieBefore = (await page.context().cookies(app)).find((c) => c.name === "agentry.session-token")?.value;
    expect(cookieBefore).toBeTruthy();
    await copyForm(page, { button: "Sign out", path: "/sign-out" });
    const signOut = await submitFromElsewhere(page, "/sign-out");
    expect(signOut.status).toBe(403);
    expect(JSON.parse(signOut.body).detail).toMatch(/^Cross-site request refused/);
    expect(signOut.cookie).toBe("");
    await page.goto(`${app}/dashboard`);
    await expect(page.getByTestId("signed-in-user")).toContainText(E2E_ADMIN.email);

    const signInPage = await browser.newPage();
    await signInPage.goto(`${app}/dashboard/sign-in`);
    await copyForm(signInPage, { button: "Sign in", path: "/sign-in", values: { email: E2E_ADMIN.email, password: E2E_ADMIN.password } });
    await signInPage.close();
    const signIn = await submitFromElsewhere(page, "/sign-in");
    expect(signIn.status).toBe(403);
    expect(JSON.parse(signIn.body).detail).toMatch(/^Cross-site request refused/);
    expect(signIn.cookie).toBe("");
    expect((await page.context().cookies(app)).find((c) => c.name === "agentry.session-token")?.value).toBe(cookieBefore);
  });

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
