import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkPath, isWithin, relativeToBase, type CheckedPath, type PathRefusal, type PathRefusalCode } from "@/lib/runtime/tools/path-check.ts";

/**
 * The shared path check (lib/runtime/tools/path-check.ts) that the Workspace toolkit and any other
 * toolkit touching files call: traversal, absolute paths, symlinks leading out, dangling links.
 */

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

function tempDir(files: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), "agentry-path-check-"));
  made.push(dir);
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), content);
  }
  return dir;
}

async function allowed(base: string, path: string, options: { allowOutside?: boolean } = {}): Promise<CheckedPath> {
  const result = await checkPath({ base, path, ...options });
  if (!result.ok) throw new Error(`'${path}' was refused: ${result.code}: ${result.reason}`);
  return result;
}

async function refused(base: string, path: string, code: PathRefusalCode, options: { allowOutside?: boolean; baseName?: string } = {}): Promise<PathRefusal> {
  const result = await checkPath({ base, path, ...options });
  if (result.ok) throw new Error(`'${path}' was allowed (real path ${result.real})`);
  expect(result.code, `${path}: ${result.reason}`).toBe(code);
  // Reasons are for the model: never the host's absolute paths.
  expect(result.reason).not.toContain(tmpdir());
  return result;
}

describe("checkPath inside the base", () => {
  it("resolves relative paths, existing or not, to their real path under the base", async () => {
    const base = tempDir({ "a.txt": "a", "sub/b.txt": "b" });
    expect(await allowed(base, "a.txt")).toEqual({ ok: true, rel: "a.txt", real: join(base, "a.txt"), realRel: "a.txt", exists: true });
    expect(await allowed(base, "./sub//b.txt/")).toMatchObject({ rel: "sub/b.txt", realRel: "sub/b.txt", exists: true });
    expect(await allowed(base, "")).toMatchObject({ rel: "", real: base, realRel: "", exists: true });
    // A file to be created, in directories to be created: where it would land.
    expect(await allowed(base, "new/deeper/c.txt")).toEqual({ ok: true, rel: "new/deeper/c.txt", real: join(base, "new/deeper/c.txt"), realRel: "new/deeper/c.txt", exists: false });
  });

  it("follows symlinks that stay inside, reporting where they lead", async () => {
    const base = tempDir({ "docs/readme.md": "r" });
    symlinkSync("docs", join(base, "d"));
    symlinkSync("docs/readme.md", join(base, "readme-link.md"));
    expect(await allowed(base, "d/readme.md")).toMatchObject({ rel: "d/readme.md", realRel: "docs/readme.md", exists: true });
    expect(await allowed(base, "readme-link.md")).toMatchObject({ realRel: "docs/readme.md" });
    expect(await allowed(base, "d/new.md")).toMatchObject({ realRel: "docs/new.md", exists: false });
  });
});

describe("checkPath refuses", () => {
  it("'..' traversal, even one that would end inside the base", async () => {
    const outside = tempDir({ "secret.txt": "s" });
    const base = tempDir({ "a.txt": "a", "sub/b.txt": "b" });
    for (const path of ["..", "../secret.txt", `../${outside.split("/").at(-1)}/secret.txt`, "sub/../../secret.txt", "sub/../a.txt"]) {
      expect((await refused(base, path, "outside_root")).reason).toBe("'..' segments are not allowed; paths stay inside the base directory");
    }
  });

  it("absolute paths outside the base; absolute paths under it are taken", async () => {
    const outside = tempDir({ "secret.txt": "s" });
    const base = tempDir({ "a.txt": "a" });
    expect((await refused(base, join(outside, "secret.txt"), "outside_root")).reason).toBe("it is outside the base directory");
    await refused(base, "/etc/passwd", "outside_root");
    // A sibling whose name starts with the base's is not under it.
    await refused(base, `${base}-other/x.txt`, "outside_root");
    expect(await allowed(base, join(base, "a.txt"))).toMatchObject({ rel: "a.txt", exists: true });
  });

  it("symlinks leading out of the base: a file, a directory, through it to something new", async () => {
    const outside = tempDir({ "secret.txt": "s" });
    const base = tempDir({ "a.txt": "a" });
    symlinkSync(join(outside, "secret.txt"), join(base, "link.txt"));
    symlinkSync(outside, join(base, "outdir"));
    const reason = "it resolves (through a symlink) to a location outside the base directory";
    expect((await refused(base, "link.txt", "outside_root")).reason).toBe(reason);
    expect((await refused(base, "outdir/secret.txt", "outside_root")).reason).toBe(reason);
    expect((await refused(base, "outdir", "outside_root")).reason).toBe(reason);
    // Paths that do not exist yet are checked through their deepest existing parent.
    await refused(base, "outdir/new.txt", "outside_root");
    await refused(base, "outdir/sub/new.txt", "outside_root");
  });

  it("dangling symlinks, as the path or on its way: where they lead cannot be checked", async () => {
    const outside = tempDir();
    const base = tempDir();
    symlinkSync(join(outside, "not-yet.txt"), join(base, "dangling.txt"));
    symlinkSync(join(outside, "no-dir"), join(base, "dangling-dir"));
    expect((await refused(base, "dangling.txt", "invalid_path")).reason).toBe("it is a symlink whose target does not exist");
    expect((await refused(base, "dangling-dir/x.txt", "invalid_path")).reason).toBe("a directory on its way is a symlink whose target does not exist");
  });

  it("a NUL byte, a symlink loop, a file used as a directory, a base that does not exist", async () => {
    const base = tempDir({ "a.txt": "a" });
    symlinkSync("loop-b", join(base, "loop-a"));
    symlinkSync("loop-a", join(base, "loop-b"));
    expect((await refused(base, "a\0.txt", "invalid_path")).reason).toBe("the path contains a NUL byte");
    expect((await refused(base, "loop-a", "invalid_path")).reason).toBe("it is a symlink loop");
    expect((await refused(base, "a.txt/child", "not_a_directory")).reason).toBe("a parent of it is not a directory");
    expect((await refused(join(base, "missing"), "x.txt", "not_found", { baseName: "the notes folder" })).reason).toBe("the notes folder does not exist");
  });

  it("names the base as the caller calls it", async () => {
    const base = tempDir();
    expect((await refused(base, "../x", "outside_root", { baseName: "the notes folder" })).reason).toBe("'..' segments are not allowed; paths stay inside the notes folder");
    expect((await refused(base, "/etc/hosts", "outside_root", { baseName: "the notes folder" })).reason).toBe("it is outside the notes folder");
  });
});

describe("a base that is itself a symlink", () => {
  it("takes absolute paths under either its configured or its real path, and checks containment against the real one", async () => {
    const real = tempDir({ "a.txt": "a" });
    const holder = tempDir();
    const base = join(holder, "base-link");
    symlinkSync(real, base);
    expect(await allowed(base, "a.txt")).toMatchObject({ real: join(real, "a.txt"), realRel: "a.txt" });
    expect(await allowed(base, join(base, "a.txt"))).toMatchObject({ rel: "a.txt", realRel: "a.txt" });
    expect(await allowed(base, join(real, "a.txt"))).toMatchObject({ rel: "a.txt", realRel: "a.txt" });
    await refused(base, join(holder, "other.txt"), "outside_root");
  });
});

describe("allowOutside (Agno's restrict_to_base_dir=False)", () => {
  it("resolves '..' and absolute paths anywhere, with realRel null outside the base", async () => {
    const outside = tempDir({ "secret.txt": "s" });
    const base = tempDir({ "a.txt": "a" });
    symlinkSync(outside, join(base, "outdir"));
    expect(await allowed(base, join(outside, "secret.txt"), { allowOutside: true })).toMatchObject({ real: join(outside, "secret.txt"), realRel: null, exists: true });
    expect(await allowed(base, "outdir/secret.txt", { allowOutside: true })).toMatchObject({ real: join(outside, "secret.txt"), realRel: null });
    expect(await allowed(base, "sub/../a.txt", { allowOutside: true })).toMatchObject({ rel: "a.txt", realRel: "a.txt" });
    await refused(base, "a\0", "invalid_path", { allowOutside: true });
  });

  it("with a symlinked base, resolves a path outside it where it names, not beside the base's target", async () => {
    // holder/a/link -> holder/b/c/real; holder/a/other/f must stay holder/a/other/f (never holder/b/c/other/f).
    const holder = tempDir({ "a/other/f": "beside the link", "b/c/real/in.txt": "in", "b/c/other/f": "beside the target" });
    const base = join(holder, "a", "link");
    symlinkSync(join(holder, "b", "c", "real"), base);
    expect(await allowed(base, join(holder, "a", "other", "f"), { allowOutside: true })).toMatchObject({ rel: "../other/f", real: join(holder, "a", "other", "f"), realRel: null, exists: true });
    expect(await allowed(base, "../other/f", { allowOutside: true })).toMatchObject({ real: join(holder, "a", "other", "f"), realRel: null });
    expect(await allowed(base, "../other/new.txt", { allowOutside: true })).toMatchObject({ real: join(holder, "a", "other", "new.txt"), exists: false });
    expect(await allowed(base, "in.txt", { allowOutside: true })).toMatchObject({ rel: "in.txt", real: join(holder, "b", "c", "real", "in.txt"), realRel: "in.txt" });
    expect(await allowed(base, join(holder, "b", "c", "real", "in.txt"), { allowOutside: true })).toMatchObject({ realRel: "in.txt" });
  });
});

describe("the lexical half", () => {
  it("relativeToBase needs no filesystem", () => {
    expect(relativeToBase("x/./y//", ["/srv/base"])).toEqual({ rel: "x/y" });
    expect(relativeToBase(".", ["/srv/base"])).toEqual({ rel: "" });
    expect(relativeToBase("/srv/base/x", ["/srv/base"])).toEqual({ rel: "x" });
    expect(relativeToBase("/srv/other/x", ["/srv/base"])).toMatchObject({ code: "outside_root" });
    expect(relativeToBase("x/../y", ["/srv/base"])).toMatchObject({ code: "outside_root" });
  });

  it("isWithin compares whole path components", () => {
    expect(isWithin("/srv/base", "/srv/base")).toBe(true);
    expect(isWithin("/srv/base", "/srv/base/a/b")).toBe(true);
    expect(isWithin("/srv/base", "/srv/base-other")).toBe(false);
    expect(isWithin("/srv/base", "/srv")).toBe(false);
    expect(isWithin("/srv/base", "/srv/base/..x")).toBe(true);
  });
});
