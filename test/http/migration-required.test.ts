import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { getSession, openDatabase } from "@/lib/db/index.ts";
import { MigrationRequiredError } from "@/lib/errors/domain-errors.ts";
import { getDatabase } from "@/lib/server/app-context.ts";
import { errorResponse } from "@/lib/http/errors.ts";
import { createSeededAgnoV2 } from "../fixtures/agno-v2.ts";
import { testSettings } from "../support/settings.ts";
import { adminScope } from "../support/scopes.ts";

const dir = mkdtempSync(join(tmpdir(), "agentry-oldschema-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a database with an older schema", () => {
  it("with auto-migration off, refuses to serve and names the cause and both fixes", async () => {
    const url = `file:${join(dir, "v2.db")}`;
    const v2 = await openDatabase({ url });
    await createSeededAgnoV2(v2, { stamp: "2.5.6" });
    await v2.close();
    const settings = testSettings({ env: { DATABASE_URL: url }, file: { database: { autoMigrate: false, id: "old-db" } } });
    const failure = await getDatabase(settings).then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(MigrationRequiredError);
    const message = (failure as Error).message;
    expect(message).toMatch(/agno_sessions \(schema 2\.5\.6\)/);
    expect(message).toMatch(/created by an older version/);
    expect(message).toContain("npx agentry migrate");
    expect(message).toContain("POST /databases/all/migrate");
    const response = errorResponse(failure);
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({ error_type: "migration_required_error" });
  });

  it("turns a missing table met at query time into the same error", async () => {
    const db = await openDatabase({ url: `file:${join(dir, "empty.db")}` });
    const failure = await getSession(db, { scope: adminScope(), sessionId: "x" }).then(
      () => null,
      (error: unknown) => error,
    );
    await db.close();
    const response = errorResponse(failure, () => undefined);
    expect(response.status).toBe(503);
    const body = (await response.json()) as { detail: string; error_type: string };
    expect(body.error_type).toBe("migration_required_error");
    expect(body.detail).toMatch(/agno_sessions.*npx agentry migrate.*POST \/databases\/all\/migrate/);
  });
});
