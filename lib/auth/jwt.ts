import { createRemoteJWKSet, decodeProtectedHeader, errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from "jose";
import type { Settings } from "../config/settings.ts";
import { HttpError } from "../errors/http-error.ts";
import { ALLOWED_ALGORITHMS, parseJwks, parseVerificationKey, readJwksFile, type VerificationKey } from "./jwt-keys.ts";
import { ADMIN_SCOPE, type Principal } from "./principal.ts";

const CLOCK_LEEWAY_SECONDS = 10;
/** A JWKS URL is refetched at most once per 30 s (on an unknown kid), and kept 10 minutes. */
const JWKS_COOLDOWN_MS = 30_000;
const JWKS_MAX_AGE_MS = 10 * 60_000;

interface JwtVerifier {
  keys: VerificationKey[];
  remote?: JWTVerifyGetKey;
}

const key = Symbol.for("agentry.jwt-verifiers");
type Holder = { [key]?: WeakMap<Settings["auth"], Promise<JwtVerifier>> };

/**
 * The configured keys, parsed once per settings object: the verification keys (a list, so keys
 * rotate without downtime: add the new one, move issuers over, then remove the old), a JWKS file,
 * inline JWKS, and a JWKS URL fetched through jose's cached remote key set.
 */
export function jwtVerifier(settings: Settings): Promise<JwtVerifier> {
  const holder = globalThis as Holder;
  holder[key] ??= new WeakMap();
  let verifier = holder[key].get(settings.auth);
  if (!verifier) {
    verifier = (async () => {
      const { verificationKeys, jwksFile, jwks, jwksUrl } = settings.auth;
      const keys = await Promise.all(verificationKeys.map((k, i) => parseVerificationKey(k, `verification key ${i + 1}`)));
      if (jwksFile) keys.push(...(await readJwksFile(jwksFile)));
      if (jwks) keys.push(...(await parseJwks(jwks, "JWT_JWKS")));
      const remote = jwksUrl ? createRemoteJWKSet(new URL(jwksUrl), { cooldownDuration: JWKS_COOLDOWN_MS, cacheMaxAge: JWKS_MAX_AGE_MS }) : undefined;
      return { keys, remote };
    })();
    holder[key].set(settings.auth, verifier);
  }
  return verifier;
}

const invalid = (why: string) => new HttpError(401, `Invalid token: ${why}`);

function mapError(error: unknown): HttpError {
  if (error instanceof HttpError) return error;
  if (error instanceof errors.JWTExpired) return new HttpError(401, "Token has expired");
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === "aud") return new HttpError(401, "Invalid token audience - token not valid for this AgentOS instance");
    if (error.claim === "nbf") return invalid("token is not yet valid");
    if (error.claim === "iss") return invalid("unexpected issuer");
    return invalid(`claim '${error.claim}' ${error.reason}`);
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) return invalid("signature verification failed");
  if (error instanceof errors.JWKSNoMatchingKey) return invalid("no key matches its key id");
  if (error instanceof errors.JOSEAlgNotAllowed) return invalid("algorithm not allowed for this key");
  if (error instanceof errors.JWKSTimeout) return new HttpError(503, "The JWKS endpoint did not answer in time");
  return invalid((error as Error)?.message ?? "could not be verified");
}

async function verify(token: string, settings: Settings): Promise<JWTPayload> {
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(token);
  } catch {
    throw invalid("malformed token");
  }
  const algorithm = header.alg ?? "none";
  if (!(ALLOWED_ALGORITHMS as readonly string[]).includes(algorithm)) throw invalid(`algorithm '${algorithm}' is not allowed`);
  const options = {
    algorithms: [algorithm],
    clockTolerance: CLOCK_LEEWAY_SECONDS,
    ...(settings.auth.audience ? { audience: settings.auth.audience } : {}),
    ...(settings.auth.issuer ? { issuer: settings.auth.issuer } : {}),
  };
  const verifier = await jwtVerifier(settings);
  const candidates = verifier.keys.filter((k) => k.algorithms.includes(algorithm) && (!header.kid || !k.kid || k.kid === header.kid));
  let lastError: unknown = invalid(header.kid ? `unknown key id '${header.kid}'` : "no configured key verifies it");
  for (const candidate of candidates) {
    try {
      return (await jwtVerify(token, candidate.key, options)).payload;
    } catch (error) {
      lastError = error;
      // Only a bad signature means "try the next key"; an expired or wrong-audience token stays so.
      if (!(error instanceof errors.JWSSignatureVerificationFailed)) throw mapError(error);
    }
  }
  if (verifier.remote && (header.kid ? !verifier.keys.some((k) => k.kid === header.kid) || candidates.length === 0 : true)) {
    try {
      return (await jwtVerify(token, verifier.remote, options)).payload;
    } catch (error) {
      throw mapError(error);
    }
  }
  throw mapError(lastError);
}

/** `sa:…`, `__scheduler__` and anything starting `__` belong to Agentry itself: no JWT may claim them. */
export function isReservedSubject(subject: string): boolean {
  return subject.startsWith("sa:") || subject.startsWith("__");
}

function scopesOf(claim: unknown): string[] {
  if (Array.isArray(claim)) return claim.filter((s): s is string => typeof s === "string");
  if (typeof claim === "string") return claim.split(/\s+/).filter(Boolean);
  return [];
}

/**
 * Verifies a bearer JWT and builds its principal: `sub` → user id, `scopes`, `session_id`.
 * A `sub` that is present must be a string (401 otherwise). A token without one (or with "") is
 * a principal with no user id: an admin-scoped one acts as an admin of no identity of its own;
 * any other is refused wherever it would touch data (dataScopeFor: 403).
 */
export async function verifyJwtPrincipal(token: string, settings: Settings): Promise<Principal> {
  const payload = await verify(token, settings).catch((error: unknown) => {
    throw mapError(error);
  });
  const subject: unknown = payload.sub;
  if (subject !== undefined && typeof subject !== "string") throw invalid("its 'sub' claim must be a string");
  const userId = subject || null;
  if (userId !== null && isReservedSubject(userId)) throw new HttpError(401, "Invalid token subject");
  const scopes = scopesOf(payload.scopes);
  const isAdmin = scopes.includes(ADMIN_SCOPE);
  return {
    kind: isAdmin ? "admin" : "user",
    userId,
    scopes,
    authenticatedBy: "jwt",
    isAdmin,
    sessionId: typeof payload.session_id === "string" ? payload.session_id : undefined,
    isolated: !isAdmin && settings.auth.userIsolation,
  };
}
