import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase, readSchemaVersions } from "@/lib/db/index.ts";
import { dispatch } from "@/lib/http/dispatch.ts";
import { ROUTES } from "@/lib/http/route-table.ts";
import { LATEST_VERSION } from "@/lib/migrations/types.ts";
import { testSettings } from "../support/settings.ts";

const dir = mkdtempSync(join(tmpdir(), "agentry-dbroutes-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function settingsFor(name: string, extra: Record<string, string> = {}) {
  return testSettings({ env: { DATABASE_URL: `file:${join(dir, `${name}.db`)}`, ...extra }, file: { database: { id: `db-${name}` } } });
}

function post(path: string, template: string, settings: ReturnType<typeof settingsFor>, headers: Record<string, string> = {}) {
  return dispatch(new Request(`http://127.0.0.1${path}`, { method: "POST", headers }), template, {
    settings,
    routes: ROUTES.filter((r) => r.path === template),
  });
}

describe("POST /databases/…/migrate", () => {
  it("migrates every database and stamps every table", async () => {
    const settings = settingsFor("all");
    const response = await post("/databases/all/migrate", "/databases/all/migrate", settings);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ message: "All databases migrated to the latest version" });
    const db = await openDatabase({ url: settings.database.url });
    expect((await readSchemaVersions(db)).get("agno_runs")).toBe(LATEST_VERSION);
    await db.close();
  });

  it("migrates one database by id, and answers 404 for an unknown id", async () => {
    const settings = settingsFor("one");
    expect((await post("/databases/db-one/migrate", "/databases/{db_id}/migrate", settings)).status).toBe(200);
    const unknown = await post("/databases/nope/migrate", "/databases/{db_id}/migrate", settings);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ detail: "No database found with id 'nope'" });
  });

  it("rejects a malformed or unknown target_version with a 422", async () => {
    const settings = settingsFor("target");
    const malformed = await post("/databases/db-target/migrate?target_version=latest", "/databases/{db_id}/migrate", settings);
    expect(malformed.status).toBe(422);
    const future = await post("/databases/all/migrate?target_version=9.0.0", "/databases/all/migrate", settings);
    expect(future.status).toBe(422);
    expect(JSON.stringify(await future.json())).toMatch(/Unknown target version '9\.0\.0'/);
  });

  it("needs config:write: with a security key, no key is a 401", async () => {
    const settings = settingsFor("secured", { OS_SECURITY_KEY: "k" });
    expect((await post("/databases/all/migrate", "/databases/all/migrate", settings)).status).toBe(401);
    expect((await post("/databases/all/migrate", "/databases/all/migrate", settings, { authorization: "Bearer k" })).status).toBe(200);
  });
});
