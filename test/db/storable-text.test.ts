import { describe, expect, it } from "vitest";
import { PaginationError } from "@/lib/errors/domain-errors.ts";
import { encodeCursor } from "@/lib/db/keyset.ts";
import { getRun } from "@/lib/db/runs/runs.ts";
import { listSessionSummaries } from "@/lib/db/sessions/session-list.ts";
import { getSession } from "@/lib/db/sessions/sessions.ts";
import { updateSession } from "@/lib/db/sessions/session-writes.ts";
import { storableJsonText, storableText } from "@/lib/db/storable-text.ts";
import { agnoRun, seedSession } from "../support/agno-runs.ts";
import { DIALECTS, useMigratedDb, type TestDb } from "../support/databases.ts";
import { mintPrincipals } from "../support/principals.ts";

describe("storable text", () => {
  it("replaces NUL and lone surrogates with U+FFFD, and keeps paired surrogates", () => {
    expect(storableText("a\u0000b\ud800c\udc00")).toBe("a\ufffdb\ufffdc\ufffd");
    expect(storableText("\u{1F600} ok")).toBe("\u{1F600} ok");
  });

  it("does the same inside JSON text, keys included, and leaves an escaped backslash before u alone", () => {
    const text = JSON.stringify({ "k\u0000": ["\ud800", "\u{1F600}"], literal: "\\u0000 and \\ud800 are text here" });
    expect(JSON.parse(storableJsonText(text))).toEqual({ "k\ufffd": ["\ufffd", "\u{1F600}"], literal: "\\u0000 and \\ud800 are text here" });
    expect(JSON.parse(storableJsonText(JSON.stringify({ odd: "\\\u0000" })))).toEqual({ odd: "\\\ufffd" });
  });

  it("reads JSON as Python's json.dumps writes it: escaped pairs are kept, numbers and spacing untouched", () => {
    const python = '{"emoji": "\\ud83d\\ude00", "lone": "\\ud83d x", "low": "\\ude00", "nul": "a\\u0000b", "big": 12345678901234567890, "f": 1.10}';
    expect(storableJsonText(python)).toBe('{"emoji": "\\ud83d\\ude00", "lone": "\\ufffd x", "low": "\\ufffd", "nul": "a\\ufffdb", "big": 12345678901234567890, "f": 1.10}');
    const clean = '{"a": "\\u00e9", "n": 1e400}';
    expect(storableJsonText(clean)).toBe(clean);
  });
});

describe.each(DIALECTS)("text no database stores, on $name", (dialect) => {
  let db: TestDb;
  useMigratedDb(dialect, (opened) => (db = opened));

  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    it("a run whose output holds NUL or a lone surrogate (a model's answer) is stored with U+FFFD, the same on both dialects", async () => {
      const { scopes } = mintPrincipals();
      const run: Record<string, unknown> = { ...agnoRun({ sessionId: "", content: "tab\u0000le \ud83d" }), tools: [{ tool_name: "t", result: { "key\u0000": "\udc00" } }] };
      const session = await seedSession(db, { scope: scopes.a, session: {}, runs: [run] });
      const stored = await getRun(db, { scope: scopes.a, runId: String(run.run_id) });
      expect(stored?.run_data.content).toBe("tab\ufffdle \ufffd");
      expect((stored?.run_data.tools as Record<string, unknown>[] | undefined)?.[0]?.result).toEqual({ "key\ufffd": "\ufffd" });
      // Text parameters too: a session name derived from such output.
      await updateSession(db, { scope: scopes.a, sessionId: session.session_id, sessionName: "name\u0000" });
      expect((await getSession(db, { scope: scopes.a, sessionId: session.session_id }))?.session_data?.session_name).toBe("name\ufffd");
    });

    it("a forged dashboard cursor carrying a NUL is a PaginationError, never a database error", async () => {
      const { scopes } = mintPrincipals();
      for (const cursor of [encodeCursor({ sort: "s.updated_at", order: "desc" }, 5, "a\u0000b"), encodeCursor({ sort: "s.updated_at", order: "desc" }, 5, "x\ud800")]) {
        await expect(listSessionSummaries(db, { scope: scopes.a, limit: 25, after: cursor })).rejects.toBeInstanceOf(PaginationError);
      }
    });
  });
});
