import { Auth } from "@auth/core";
import type { NextAuthConfig } from "next-auth";

const ORIGIN = "http://127.0.0.1:7777";

/** The cookie pairs of a response's Set-Cookie headers, as a browser would send them back. */
export const cookiesOf = (response: Response) => response.headers.getSetCookie().map((c) => c.split(";")[0]);

/**
 * POSTs a form to one of Auth.js's own routes under /dashboard/auth, as a browser would: with the
 * CSRF token and cookie Auth.js hands out first, plus the given cookie and headers.
 */
export async function postToAuthJs(
  config: NextAuthConfig,
  route: string,
  { form, cookie, headers = {} }: { form: Record<string, string>; cookie?: string; headers?: Record<string, string> },
): Promise<Response> {
  const csrf = await Auth(new Request(`${ORIGIN}/dashboard/auth/csrf`), config);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  return Auth(
    new Request(`${ORIGIN}/dashboard/auth/${route}`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/x-www-form-urlencoded", cookie: [...(cookie ? [cookie] : []), ...cookiesOf(csrf)].join("; ") },
      body: new URLSearchParams({ csrfToken, ...form }),
    }),
    config,
  );
}
