import { chmodSync, existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Toolkit, ToolContext } from "@/lib/runtime/tools/types.ts";
import { findExclusion } from "@/lib/runtime/tools/workspace/path-guard.ts";
import { WorkspaceAccessError, workspaceToolkit, type WorkspaceRefusalCode } from "@/lib/runtime/tools/workspace/workspace.ts";

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A fresh temp directory holding `files` (path → content). */
function tempDir(files: Record<string, string | Buffer> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), "agentry-workspace-"));
  made.push(dir);
  for (const [rel, content] of Object.entries(files)) put(dir, rel, content);
  return dir;
}

function put(dir: string, rel: string, content: string | Buffer): void {
  mkdirSync(dirname(join(dir, rel)), { recursive: true });
  writeFileSync(join(dir, rel), content);
}

function context(signal = new AbortController().signal): ToolContext {
  return { runId: "run-1", sessionId: "session-1", agentId: "agent-1", userId: null, signal };
}

/** Calls a tool the way the runtime does: validate the arguments, then execute. */
async function call(toolkit: Toolkit, name: string, args: Record<string, unknown>, ctx = context()): Promise<any> {
  const tool = toolkit.tools.find((t) => t.name === name);
  if (!tool?.execute) throw new Error(`no tool ${name}`);
  return tool.execute(tool.parameters.parse(args), ctx);
}

async function refusal(promise: Promise<unknown>, code?: WorkspaceRefusalCode): Promise<WorkspaceAccessError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WorkspaceAccessError);
  if (code) expect((error as WorkspaceAccessError).code).toBe(code);
  return error as WorkspaceAccessError;
}

const read = (ws: Toolkit, path: string) => call(ws, "read_file", { path });
const write = (ws: Toolkit, path: string, content: string) => call(ws, "write_file", { path, content });
const listPaths = async (ws: Toolkit, args: Record<string, unknown> = {}) => ((await call(ws, "list_files", args)).entries as { path: string }[]).map((e) => e.path);

/**
 * Every excluded-name pattern (lib/runtime/tools/workspace/path-guard.ts), at the root, nested,
 * and as a directory component.
 */
const EXCLUDED = [
  ".env",
  ".env.local",
  "config/.env.local",
  ".env.production",
  ".envrc",
  "prod.env",
  "services/api/app.env",
  "server.pem",
  "certs/tls.key",
  "id_rsa",
  "id_rsa.pub",
  "keys/id_rsa_deploy",
  ".ssh/config",
  "a/.ssh/config",
  ".aws/credentials",
  "home/.aws/config",
  ".kube/config",
  ".npmrc",
  "packages/web/.npmrc",
  ".netrc",
  ".git-credentials",
  "credentials.json",
  "config/credentials.json",
  "secrets.yaml",
  "helm/secrets.yaml",
  "service_account.json",
  "gcp/service_account-prod.json",
  "terraform.tfvars",
  "deploy/prod.tfvars",
  "vault.key/readme.md",
  "old.env/notes.txt",
  ".ENV",
  "keys/ID_RSA",
];
const TEMPLATES = [".env.example", ".env.sample", ".env.template", ".env.dist", "config/.env.example"];
const ORDINARY = [
  "credentials.py",
  "src/auth/credentials.ts",
  "secrets.py",
  "secrets.yml",
  "credentials.yaml",
  "environment.md",
  "src/env.ts",
  "docs/keys.md",
  "service_account.md",
  "aws/notes.txt",
  "ssh.txt",
];

describe("path policy (pure)", () => {
  it("matches every excluded pattern on every path component", () => {
    for (const rel of EXCLUDED) expect(findExclusion(rel), rel).not.toBeNull();
  });

  it("leaves templates and ordinary source alone", () => {
    for (const rel of [...TEMPLATES, ...ORDINARY]) expect(findExclusion(rel), rel).toBeNull();
  });
});

describe("workspaceToolkit", () => {
  it("is a toolkit with id 'workspace' (or the given id) and Agno's tool names", () => {
    const root = tempDir();
    const ws = workspaceToolkit({ root });
    expect(ws.id).toBe("workspace");
    expect(ws.tools.map((t) => t.name)).toEqual(["read_file", "list_files", "search_files", "write_file"]);
    expect(workspaceToolkit({ root, id: "repo-files" }).id).toBe("repo-files");
  });

  it("rejects allowPaths that are absolute or climb out, and a bad maxReadBytes", () => {
    const root = tempDir();
    expect(() => workspaceToolkit({ root, allowPaths: ["../x/.env"] })).toThrow(/allowPaths/);
    expect(() => workspaceToolkit({ root, allowPaths: ["/etc/.env"] })).toThrow(/allowPaths/);
    expect(() => workspaceToolkit({ root, maxReadBytes: 0 })).toThrow(/maxReadBytes/);
  });
});

describe("read_file", () => {
  it("refuses every excluded path, naming the path and the pattern", async () => {
    const root = tempDir(Object.fromEntries(EXCLUDED.map((rel) => [rel, "SECRET=1\n"])));
    const ws = workspaceToolkit({ root });
    for (const rel of EXCLUDED) {
      const error = await refusal(read(ws, rel), "excluded");
      expect(error.message).toContain(`'${rel}'`);
      expect(error.message).toMatch(/excluded|credential directory/);
    }
    const nested = await refusal(read(ws, "a/.ssh/config"));
    expect(nested.message).toContain("'.ssh' credential directory");
    expect((await refusal(read(ws, "deploy/prod.tfvars"))).message).toContain("'*.tfvars'");
  });

  it("refuses an excluded path whether or not it exists (no existence oracle)", async () => {
    const ws = workspaceToolkit({ root: tempDir() });
    await refusal(read(ws, ".env"), "excluded");
    await refusal(read(ws, "missing/.aws/credentials"), "excluded");
  });

  it("reads the committed env templates and ordinary files named like credentials", async () => {
    const root = tempDir(Object.fromEntries([...TEMPLATES, ...ORDINARY].map((rel) => [rel, `content of ${rel}\n`])));
    const ws = workspaceToolkit({ root });
    for (const rel of [...TEMPLATES, ...ORDINARY]) expect(await read(ws, rel)).toBe(`content of ${rel}\n`);
  });

  it("allowPaths re-allows exactly the named path", async () => {
    const files = {
      "config/credentials.json": "{}",
      "credentials.json": "{}",
      "other/config/credentials.json": "{}",
      ".ssh/known_hosts": "host",
      ".ssh/config": "Host *",
    };
    const root = tempDir(files);
    const ws = workspaceToolkit({ root, allowPaths: ["./config//credentials.json/", ".ssh/known_hosts"] });
    expect(await read(ws, "config/credentials.json")).toBe("{}");
    expect(await read(ws, join(root, "config/credentials.json"))).toBe("{}");
    expect(await read(ws, ".ssh/known_hosts")).toBe("host");
    await refusal(read(ws, "credentials.json"), "excluded");
    await refusal(read(ws, "other/config/credentials.json"), "excluded");
    await refusal(read(ws, ".ssh/config"), "excluded");
    // Without allowPaths the same file is refused.
    await refusal(read(workspaceToolkit({ root }), "config/credentials.json"), "excluded");
  });

  it("refuses '..' traversal and absolute paths outside the root, and reads absolute paths inside it", async () => {
    const outside = tempDir({ "secret.txt": "outside" });
    const root = tempDir({ "a.txt": "inside", "sub/b.txt": "b" });
    const ws = workspaceToolkit({ root });
    for (const p of ["../secret.txt", "sub/../../secret.txt", "sub/../a.txt", ".."]) {
      expect((await refusal(read(ws, p), "outside_root")).message).toContain(`'${p}'`);
    }
    const abs = join(outside, "secret.txt");
    expect((await refusal(read(ws, abs), "outside_root")).message).toContain("outside the workspace root");
    await refusal(read(ws, "/etc/passwd"), "outside_root");
    expect(await read(ws, join(root, "a.txt"))).toBe("inside");
    expect(await read(ws, "./sub//b.txt")).toBe("b");
  });

  it("refuses symlinks (file or directory) that lead outside the root", async () => {
    const outside = tempDir({ "secret.txt": "outside" });
    const root = tempDir({ "a.txt": "inside" });
    symlinkSync(join(outside, "secret.txt"), join(root, "link.txt"));
    symlinkSync(outside, join(root, "outdir"));
    symlinkSync("a.txt", join(root, "inside-link.txt"));
    const ws = workspaceToolkit({ root });
    const error = await refusal(read(ws, "link.txt"), "outside_root");
    expect(error.message).toContain("'link.txt'");
    expect(error.message).not.toContain(outside);
    await refusal(read(ws, "outdir/secret.txt"), "outside_root");
    expect(await read(ws, "inside-link.txt")).toBe("inside");
  });

  it("refuses a symlink to an excluded file, and a path through a symlink to a credential directory", async () => {
    const root = tempDir({ ".env": "SECRET=1", ".ssh/config": "Host *", "deploy/prod.tfvars": "x=1" });
    symlinkSync(".env", join(root, "notes.txt"));
    symlinkSync(".ssh", join(root, "keys"));
    symlinkSync("deploy/prod.tfvars", join(root, "vars.txt"));
    const ws = workspaceToolkit({ root });
    expect((await refusal(read(ws, "notes.txt"), "excluded")).message).toContain("'notes.txt'");
    await refusal(read(ws, "keys/config"), "excluded");
    await refusal(read(ws, "vars.txt"), "excluded");
  });

  it("refuses a hard link to an excluded file (which Agno misses)", async () => {
    const root = tempDir({ ".env": "SECRET=1", "a/.ssh/id_ed25519": "KEY", "x.txt": "plain", "config/credentials.json": "{}" });
    linkSync(join(root, ".env"), join(root, "notes.txt"));
    linkSync(join(root, "a/.ssh/id_ed25519"), join(root, "key-copy.txt"));
    linkSync(join(root, "x.txt"), join(root, "y.txt"));
    linkSync(join(root, "config/credentials.json"), join(root, "creds-copy.txt"));
    const ws = workspaceToolkit({ root });
    const error = await refusal(read(ws, "notes.txt"), "hard_link");
    expect(error.message).toContain("'notes.txt'");
    expect(error.message).toContain("hard link");
    await refusal(read(ws, "key-copy.txt"), "hard_link");
    // Hard links between ordinary files, or to a re-allowed file, stay readable.
    expect(await read(ws, "y.txt")).toBe("plain");
    expect(await read(workspaceToolkit({ root, allowPaths: ["config/credentials.json"] }), "creds-copy.txt")).toBe("{}");
  });

  it("sees a hard link created after an earlier call on the same toolkit (no stale cache)", async () => {
    const root = tempDir({ "b.txt": "B", "c.txt": "C" });
    linkSync(join(root, "b.txt"), join(root, "b2.txt"));
    const ws = workspaceToolkit({ root });
    expect(await read(ws, "b.txt")).toBe("B"); // nlink 2: scans, finds nothing excluded
    expect(await read(ws, "c.txt")).toBe("C");
    linkSync(join(root, "b.txt"), join(root, ".env"));
    linkSync(join(root, "c.txt"), join(root, "server.pem"));
    await refusal(read(ws, "b.txt"), "hard_link");
    await refusal(read(ws, "c.txt"), "hard_link");
  });

  it("refuses binary, oversized, missing and directory paths with readable errors", async () => {
    const root = tempDir({
      "img.png": Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]),
      "latin1.txt": Buffer.from([0x63, 0x61, 0xe9]),
      "big.log": "x".repeat(100),
      "ok.txt": "x".repeat(64),
      "dir/a.txt": "a",
    });
    const ws = workspaceToolkit({ root, maxReadBytes: 64 });
    expect((await refusal(read(ws, "img.png"), "binary")).message).toContain("'img.png'");
    await refusal(read(ws, "latin1.txt"), "binary");
    expect((await refusal(read(ws, "big.log"), "too_large")).message).toMatch(/'big.log'.*100 bytes.*64 bytes/);
    expect(await read(ws, "ok.txt")).toHaveLength(64);
    expect((await refusal(read(ws, "nope.txt"), "not_found")).message).toBe("Cannot read 'nope.txt': it does not exist in the workspace");
    await refusal(read(ws, "dir"), "not_a_file");
    await refusal(read(ws, "ok.txt/child"), "not_a_directory");
  });

  it("stops when the run is aborted", async () => {
    const ws = workspaceToolkit({ root: tempDir({ "a.txt": "a" }) });
    const controller = new AbortController();
    controller.abort(new Error("run cancelled"));
    await expect(call(ws, "read_file", { path: "a.txt" }, context(controller.signal))).rejects.toThrow("run cancelled");
  });
});

describe("list_files", () => {
  function fixture() {
    const outside = tempDir({ "secret.txt": "outside" });
    const root = tempDir({
      ".env": "TOKEN=1",
      ".env.example": "TOKEN=",
      "a.txt": "a",
      "credentials.py": "def load(): ...",
      "src/index.ts": "export {}",
      "src/.env.local": "TOKEN=2",
      ".ssh/config": "Host *",
      ".ssh/known_hosts": "host",
      "deploy/prod.tfvars": "x=1",
      "deploy/main.tf": "",
    });
    symlinkSync(".env", join(root, "notes.txt"));
    symlinkSync(join(outside, "secret.txt"), join(root, "out.txt"));
    symlinkSync("a.txt", join(root, "alias.txt"));
    linkSync(join(root, ".env"), join(root, "hard.txt"));
    return root;
  }

  it("omits excluded files, credential directories, and links to excluded or outside files", async () => {
    const ws = workspaceToolkit({ root: fixture() });
    expect(await listPaths(ws, { recursive: true })).toEqual([".env.example", "a.txt", "alias.txt", "credentials.py", "deploy", "deploy/main.tf", "src", "src/index.ts"]);
    const top = await call(ws, "list_files", {});
    expect(top.path).toBe(".");
    expect(top.truncated).toBe(false);
    expect(top.entries).toContainEqual({ path: "a.txt", type: "file", size: 1 });
    expect(top.entries).toContainEqual({ path: "alias.txt", type: "symlink" });
    expect(top.entries).toContainEqual({ path: "src", type: "directory" });
    expect(top.entries.map((e: { path: string }) => e.path)).not.toContain("src/index.ts");
  });

  it("lists a subdirectory, and shows a re-allowed path inside an excluded directory", async () => {
    const root = fixture();
    expect(await listPaths(workspaceToolkit({ root }), { path: "deploy" })).toEqual(["deploy/main.tf"]);
    const allowed = workspaceToolkit({ root, allowPaths: [".ssh/known_hosts"] });
    const paths = await listPaths(allowed, { recursive: true });
    expect(paths).toContain(".ssh/known_hosts");
    expect(paths).not.toContain(".ssh/config");
    expect(paths).not.toContain(".ssh");
  });

  it("refuses to list an excluded directory, an escape, or a file", async () => {
    const root = fixture();
    const ws = workspaceToolkit({ root });
    await refusal(call(ws, "list_files", { path: ".ssh" }), "excluded");
    await refusal(call(ws, "list_files", { path: "../" }), "outside_root");
    await refusal(call(ws, "list_files", { path: "a.txt" }), "not_a_directory");
  });
});

describe("search_files", () => {
  it("returns path, line number and line, skipping excluded files and links to them", async () => {
    const root = tempDir({
      ".env": "API_TOKEN=abc",
      "config/.env.local": "API_TOKEN=def",
      ".aws/credentials": "API_TOKEN=ghi",
      "secrets.yaml": "API_TOKEN: jkl",
      ".env.example": "API_TOKEN=",
      "src/client.ts": "import x\nconst t = process.env.API_TOKEN;\n",
      "credentials.py": "API_TOKEN = os.environ['API_TOKEN']",
      "bin.dat": Buffer.from("API_TOKEN\0\x01"),
    });
    symlinkSync(".env", join(root, "notes.txt"));
    linkSync(join(root, "secrets.yaml"), join(root, "copy.yaml"));
    const ws = workspaceToolkit({ root });
    const result = await call(ws, "search_files", { query: "API_TOKEN" });
    expect(result.truncated).toBe(false);
    expect(result.matches).toEqual([
      { path: ".env.example", line_number: 1, line: "API_TOKEN=" },
      { path: "credentials.py", line_number: 1, line: "API_TOKEN = os.environ['API_TOKEN']" },
      { path: "src/client.ts", line_number: 2, line: "const t = process.env.API_TOKEN;" },
    ]);
    const inSrc = await call(ws, "search_files", { query: "API_TOKEN", path: "src" });
    expect(inSrc.matches.map((m: { path: string }) => m.path)).toEqual(["src/client.ts"]);
  });

  it("refuses an excluded, hard-linked or escaping search path", async () => {
    const root = tempDir({ ".env": "A=1", "config/.env.local": "A=2", "ok.txt": "A" });
    linkSync(join(root, ".env"), join(root, "hard.txt"));
    const ws = workspaceToolkit({ root });
    await refusal(call(ws, "search_files", { query: "A", path: ".env" }), "excluded");
    await refusal(call(ws, "search_files", { query: "A", path: "config/.env.local" }), "excluded");
    await refusal(call(ws, "search_files", { query: "A", path: "hard.txt" }), "hard_link");
    await refusal(call(ws, "search_files", { query: "A", path: "../" }), "outside_root");
    expect((await call(ws, "search_files", { query: "A", path: "ok.txt" })).matches).toEqual([{ path: "ok.txt", line_number: 1, line: "A" }]);
  });
});

describe("write_file", () => {
  it("creates parent directories, then replaces content", async () => {
    const root = tempDir();
    const ws = workspaceToolkit({ root });
    expect(await write(ws, "deep/er/notes.md", "hello")).toEqual({ path: "deep/er/notes.md", bytes_written: 5, created: true });
    expect(readFileSync(join(root, "deep/er/notes.md"), "utf8")).toBe("hello");
    expect(await write(ws, "deep/er/notes.md", "hi")).toMatchObject({ created: false });
    expect(await read(ws, "deep/er/notes.md")).toBe("hi");
    expect(await write(ws, ".env.example", "TOKEN=")).toMatchObject({ created: true });
    expect(await write(ws, "credentials.py", "x = 1")).toMatchObject({ created: true });
  });

  it("refuses every excluded path, creating nothing", async () => {
    const root = tempDir();
    const ws = workspaceToolkit({ root });
    for (const rel of EXCLUDED) {
      expect((await refusal(write(ws, rel, "pwned"), "excluded")).message).toContain(`Cannot write '${rel}'`);
      expect(existsSync(join(root, rel)), rel).toBe(false);
    }
    expect(existsSync(join(root, "config"))).toBe(false); // no parent of a refused write is created
  });

  it("refuses to overwrite an existing excluded file, directly, through a symlink or a hard link", async () => {
    const root = tempDir({ ".env": "SECRET=1", ".ssh/authorized_keys": "ssh-ed25519 AAA" });
    symlinkSync(".env", join(root, "notes.txt"));
    symlinkSync(".ssh", join(root, "keys"));
    linkSync(join(root, ".env"), join(root, "hard.txt"));
    const ws = workspaceToolkit({ root });
    await refusal(write(ws, ".env", "x"), "excluded");
    await refusal(write(ws, "notes.txt", "x"), "excluded");
    await refusal(write(ws, "keys/authorized_keys", "x"), "excluded");
    await refusal(write(ws, "keys/new_key", "x"), "excluded");
    await refusal(write(ws, "hard.txt", "x"), "hard_link");
    expect(readFileSync(join(root, ".env"), "utf8")).toBe("SECRET=1");
    expect(readFileSync(join(root, ".ssh/authorized_keys"), "utf8")).toBe("ssh-ed25519 AAA");
    expect(existsSync(join(root, ".ssh/new_key"))).toBe(false);
  });

  it("re-allows writing exactly an allowPaths entry", async () => {
    const root = tempDir();
    const ws = workspaceToolkit({ root, allowPaths: ["config/credentials.json"] });
    await write(ws, "config/credentials.json", "{}");
    expect(readFileSync(join(root, "config/credentials.json"), "utf8")).toBe("{}");
    await refusal(write(ws, "credentials.json", "{}"), "excluded");
  });

  it("never writes outside the root: '..', absolute paths, symlinked files, directories or dangling links", async () => {
    const outside = tempDir({ "target.txt": "original" });
    const root = tempDir();
    symlinkSync(join(outside, "target.txt"), join(root, "link.txt"));
    symlinkSync(outside, join(root, "outdir"));
    symlinkSync(join(outside, "not-yet.txt"), join(root, "dangling.txt"));
    const ws = workspaceToolkit({ root });
    await refusal(write(ws, "../escape.txt", "x"), "outside_root");
    await refusal(write(ws, join(outside, "abs.txt"), "x"), "outside_root");
    await refusal(write(ws, "link.txt", "x"), "outside_root");
    await refusal(write(ws, "outdir/new.txt", "x"), "outside_root");
    await refusal(write(ws, "outdir/sub/new.txt", "x"), "outside_root");
    await refusal(write(ws, "dangling.txt", "x"), "invalid_path");
    expect(readFileSync(join(outside, "target.txt"), "utf8")).toBe("original");
    for (const rel of ["escape.txt", "abs.txt", "new.txt", "sub", "not-yet.txt"]) expect(existsSync(join(outside, rel)), rel).toBe(false);
    expect(existsSync(join(dirname(root), "escape.txt"))).toBe(false);
  });

  it("refuses writing to a directory or the root itself", async () => {
    const root = tempDir({ "dir/a.txt": "a" });
    const ws = workspaceToolkit({ root });
    await refusal(write(ws, "dir", "x"), "not_a_file");
    await refusal(write(ws, "", "x"), "not_a_file");
    await refusal(write(ws, "dir/a.txt/b.txt", "x"), "not_a_directory");
  });
});

describe("hard-link scan that cannot see everything", () => {
  // Root ignores directory permissions, so this only runs (and can only fail) as a normal user.
  it.skipIf(process.getuid?.() === 0)("refuses a multiply-linked file when a directory could not be scanned", async () => {
    const root = tempDir({ "x.txt": "x", "single.txt": "s", "locked/.env": "SECRET=1" });
    linkSync(join(root, "x.txt"), join(root, "y.txt"));
    chmodSync(join(root, "locked"), 0o000);
    try {
      const ws = workspaceToolkit({ root });
      expect((await refusal(read(ws, "x.txt"), "unverifiable")).message).toContain("'locked'");
      expect(await read(ws, "single.txt")).toBe("s"); // one link: nothing to rule out
    } finally {
      chmodSync(join(root, "locked"), 0o700);
    }
  });
});
