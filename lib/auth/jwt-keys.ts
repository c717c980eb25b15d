import { createPublicKey, createSecretKey, type KeyObject } from "node:crypto";
import { readFileSync } from "node:fs";
import { importJWK, type JWK } from "jose";

/** The algorithms Agentry accepts at all. `none` and anything unlisted never verify. */
export const ALLOWED_ALGORITHMS = ["RS256", "ES256", "EdDSA", "HS256"] as const;

/** One verification key with the algorithms it may verify (its allowlist) and its optional `kid`. */
export interface VerificationKey {
  readonly kid?: string;
  readonly algorithms: readonly string[];
  readonly key: KeyObject | Uint8Array | CryptoKey;
  /** For messages: where the key came from, never the key itself. */
  readonly source: string;
}

function algorithmsFor(key: KeyObject): string[] {
  switch (key.asymmetricKeyType) {
    case "rsa":
      return ["RS256"];
    case "ec":
      return key.asymmetricKeyDetails?.namedCurve === "prime256v1" ? ["ES256"] : [];
    case "ed25519":
      return ["EdDSA"];
    default:
      return [];
  }
}

async function fromJwk(jwk: JWK & { kid?: string; alg?: string }, source: string): Promise<VerificationKey> {
  const algorithm = jwk.alg ?? (jwk.kty === "RSA" ? "RS256" : jwk.kty === "EC" ? "ES256" : jwk.kty === "OKP" ? "EdDSA" : jwk.kty === "oct" ? "HS256" : undefined);
  if (!algorithm || !(ALLOWED_ALGORITHMS as readonly string[]).includes(algorithm)) {
    throw new Error(`${source}: JWK algorithm '${algorithm ?? jwk.kty}' is not allowed (allowed: ${ALLOWED_ALGORITHMS.join(", ")})`);
  }
  if (jwk.d) throw new Error(`${source}: the JWK holds a private key; configure the public key only`);
  const key = await importJWK(jwk, algorithm);
  return { kid: jwk.kid, algorithms: [algorithm], key, source };
}

/**
 * Parses one configured key: a PEM public key or certificate (RSA → RS256, P-256 → ES256,
 * Ed25519 → EdDSA), a JWK as JSON, or otherwise an HMAC secret (HS256). Each key verifies only its
 * own algorithm, so an HS256 token can never be checked against an RSA public key.
 */
export async function parseVerificationKey(value: string, source: string): Promise<VerificationKey> {
  const text = value.trim();
  if (text.startsWith("-----BEGIN")) {
    if (/PRIVATE KEY/.test(text)) throw new Error(`${source}: this is a private key; configure the public key only`);
    const key = createPublicKey(text);
    const algorithms = algorithmsFor(key);
    if (algorithms.length === 0) throw new Error(`${source}: unsupported public key type '${key.asymmetricKeyType}'`);
    return { algorithms, key, source };
  }
  if (text.startsWith("{")) return fromJwk(JSON.parse(text) as JWK, source);
  if (text.length < 32) throw new Error(`${source}: an HMAC secret must be at least 32 characters`);
  return { algorithms: ["HS256"], key: createSecretKey(Buffer.from(text, "utf8")), source };
}

/** Every key of a JWKS document (a file's contents or JWT_JWKS). */
export async function parseJwks(json: string, source: string): Promise<VerificationKey[]> {
  const parsed = JSON.parse(json) as { keys?: unknown };
  if (!Array.isArray(parsed.keys)) throw new Error(`${source}: not a JWKS document (no "keys" list)`);
  return Promise.all(parsed.keys.map((jwk, i) => fromJwk(jwk as JWK, `${source} key ${i + 1}`)));
}

export function readJwksFile(path: string): Promise<VerificationKey[]> {
  return parseJwks(readFileSync(path, "utf8"), `JWKS file ${path}`);
}
