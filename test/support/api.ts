import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Principal } from "@/lib/auth/principal.ts";
import type { Settings } from "@/lib/config/settings.ts";
import { appState, getDatabase } from "@/lib/server/app-context.ts";
import { dispatch } from "@/lib/http/dispatch.ts";
import { ROUTES, templateForPath } from "@/lib/http/route-table.ts";
import { testSettings } from "./settings.ts";

/** The route template a path is served by, as the Next.js router would pick it. */
export function templateFor(pathname: string): string {
  const template = templateForPath(pathname);
  if (!template) throw new Error(`No route template matches ${pathname}`);
  return template;
}

export interface ApiCall {
  body?: unknown;
  /** Act as this principal (tests only); default: authenticate from the settings. */
  as?: Principal;
}

/**
 * Calls the API through `dispatch` — the same path a request takes in the server — and returns
 * the status and the parsed JSON body (null for an empty one).
 */
export function apiClient(settings: Settings) {
  // biome-ignore lint/suspicious/noExplicitAny: tests check bodies against the zod schemas
  return async function api(method: string, path: string, { body, as }: ApiCall = {}): Promise<{ status: number; body: any }> {
    const url = new URL(path, "http://127.0.0.1:7777");
    const init: RequestInit = { method };
    if (body !== undefined) {
      init.body = typeof body === "string" ? body : JSON.stringify(body);
      init.headers = { "content-type": "application/json" };
    }
    const template = templateFor(url.pathname);
    const response = await dispatch(new Request(url, init), template, {
      settings,
      routes: ROUTES.filter((r) => r.path === template),
      principal: as,
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  };
}

/** A non-admin principal holding the given scopes (e.g. from mintPrincipals, with scopes added). */
export function withScopes(principal: Principal, scopes: string[]): Principal {
  return { ...principal, scopes };
}

/**
 * An API test suite over its own real SQLite file: settings (auth mode none, one configured
 * agent), the database the routes use (migrated on open), a client, and a cleanup.
 */
export async function openApiSuite(name: string) {
  const dir = mkdtempSync(join(tmpdir(), `agentry-${name}-`));
  const dbId = `${name}-db`;
  const settings = testSettings({
    env: { DATABASE_URL: `file:${join(dir, "agentry.db")}` },
    file: { database: { id: dbId }, agents: [{ id: "assistant", name: "Assistant", model: null }] },
  });
  const db = await getDatabase(settings);
  return {
    settings,
    db,
    dbId,
    api: apiClient(settings),
    async close() {
      appState().databases.delete(dbId);
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The payload of the first `data:` line of SSE text (the stream's first event), parsed. */
export function firstSseData<T = Record<string, unknown>>(text: string): T {
  const line = text.split("\n").find((l) => l.startsWith("data: "));
  if (line === undefined) throw new Error(`no data line in ${JSON.stringify(text.slice(0, 200))}`);
  return JSON.parse(line.slice(6)) as T;
}
