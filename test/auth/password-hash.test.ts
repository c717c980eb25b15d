import { describe, expect, it } from "vitest";
import { hashPassword, passwordProblem, unknownAccountHash, verifyPassword } from "@/lib/auth/dashboard/password-hash.ts";

describe("password hashing (scrypt)", () => {
  it("stores scrypt$N$r$p$salt$hash with a random salt, never the password", async () => {
    const password = "tr0ub4dor & 3 horses";
    const a = await hashPassword(password);
    const b = await hashPassword(password);
    expect(a).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(a).not.toBe(b); // a fresh salt each time
    expect(a).not.toContain(password);
    expect(a.split("$")[4]).not.toBe(b.split("$")[4]);
  });

  it("verifies the right password and refuses a wrong one", async () => {
    const stored = await hashPassword("correct horse battery");
    expect(await verifyPassword("correct horse battery", stored)).toBe(true);
    expect(await verifyPassword("correct horse batterY", stored)).toBe(false);
    expect(await verifyPassword("", stored)).toBe(false);
  });

  it("reads the parameters from the stored hash, so older or stronger parameters still verify", async () => {
    const stored = await hashPassword("pässwörd-ünïcode");
    const [, , r, p, salt, key] = stored.split("$");
    // Same salt and key but an N this code does not use: must not verify (the key would differ).
    expect(await verifyPassword("pässwörd-ünïcode", ["scrypt", 16384, r, p, salt, key].join("$"))).toBe(false);
    expect(await verifyPassword("pässwörd-ünïcode", stored)).toBe(true);
  });

  it("never matches a malformed or tampered hash (and does not run away on absurd parameters)", async () => {
    const stored = await hashPassword("correct horse battery");
    const parts = stored.split("$");
    for (const bad of [
      "",
      "plaintext",
      "correct horse battery",
      parts.slice(0, 5).join("$"),
      ["bcrypt", ...parts.slice(1)].join("$"),
      ["scrypt", 2 ** 30, ...parts.slice(2)].join("$"),
      ["scrypt", 1000, ...parts.slice(2)].join("$"),
      ["scrypt", parts[1], 0, ...parts.slice(3)].join("$"),
      [...parts.slice(0, 5), ""].join("$"),
    ]) {
      expect(await verifyPassword("correct horse battery", bad), bad).toBe(false);
    }
  });

  it("has a dummy hash for unknown accounts that no password matches", async () => {
    const dummy = await unknownAccountHash();
    expect(dummy).toMatch(/^scrypt\$/);
    expect(await verifyPassword("", dummy)).toBe(false);
    expect(await verifyPassword("correct horse battery", dummy)).toBe(false);
    expect(await unknownAccountHash()).toBe(dummy);
  });

  it("asks for at least 10 characters", () => {
    expect(passwordProblem("short")).toMatch(/at least 10/);
    expect(passwordProblem("long enough pw")).toBeNull();
    expect(passwordProblem("x".repeat(201))).toMatch(/at most/);
  });
});
