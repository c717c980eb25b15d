import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { storeContent, unsafeGetUpload } from "@/lib/db/knowledge/contents.ts";
import { unsafeSystemScope } from "@/lib/db/scope.ts";
import { DIALECTS, useMigratedDb, type TestDb } from "../support/databases.ts";

describe.each(DIALECTS)("an upload's bytes on $name", (dialect) => {
  let db: TestDb;
  useMigratedDb(dialect, (x) => (db = x));

  it.skipIf(dialect.skipReason)("come back whole when read a slice at a time (a size that is no multiple of the slice, and an empty one)", async () => {
    const scope = unsafeSystemScope("test stores uploads", { actingAs: "upload-owner" });
    for (const [id, size] of [
      ["big", 2.5 * 1024 * 1024 + 17],
      ["empty", 0],
    ] as const) {
      const data = new Uint8Array(randomBytes(size));
      await storeContent(db, {
        scope,
        content: { id, name: id, description: "", metadata: null, type: null, size, linkedTo: "Knowledge" },
        upload: { data, filename: `${id}.bin`, mimeType: "application/octet-stream" },
      });
      const read = await unsafeGetUpload(db, id);
      expect(read).toMatchObject({ filename: `${id}.bin`, mimeType: "application/octet-stream" });
      expect(Buffer.compare(Buffer.from(read!.data), Buffer.from(data))).toBe(0);
    }
    expect(await unsafeGetUpload(db, "missing")).toBeNull();
  });
});
