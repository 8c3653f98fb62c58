/**
 * Verifies caller tokens and turns them into a Principal (CONTRACTS.md section 2,
 * "Caller tokens"; SPEC.md "Authentication").
 */
import { readFile } from 'node:fs/promises';
import { createLocalJWKSet, createRemoteJWKSet, errors, jwtVerify, type JSONWebKeySet, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import * as v from 'valibot';
import { DomainError } from '../../domain/shared/errors.ts';
import { roles, type Principal } from './principal.ts';
import { systemClock } from '../shared/clock.ts';

/** Records used token ids: `claim` resolves true the first time a `jti` is seen, false on a replay. */
export type JtiStore = { claim: (jti: string, expiresAt: Date) => Promise<boolean> };

/** The request a token must be bound to: `path` is the path below SVC_BASE_PATH, without the query. */
export type BoundRequest = { method: string; path: string };

export type TokenVerifier = { verify: (token: string, request: BoundRequest) => Promise<Principal> };

export type TokenVerifierOptions = {
  issuer: string;
  audience: string;
  /** An http(s) URL of a JWKS, a path to a JWKS file, inline JWKS JSON, or a parsed JWKS. */
  jwks: string | { keys: object[] };
  jtiStore: JtiStore;
  now?: () => Date;
};

/** Seconds of clock skew allowed between the token issuer and this service on `exp` and `iat`. */
export const clockToleranceSeconds = 30;
/** Longest accepted `exp - iat` of an assertion: they are minted per request. */
export const maxAssertionLifetimeSeconds = 120;
const algorithms = ['EdDSA', 'ES256', 'RS256'];

const nonEmpty = v.pipe(v.string(), v.minLength(1));
const grantsSchema = v.array(v.object({ team: v.nullable(nonEmpty), role: v.picklist(roles) }));
const assertionClaims = v.object({
  sub: v.pipe(v.string(), v.uuid()),
  email: nonEmpty,
  name: v.string(),
  grants: grantsSchema,
  htm: nonEmpty,
  htu: nonEmpty,
});
const exchangeClaims = v.object({
  sub: nonEmpty,
  scope: v.string(),
  act: v.optional(v.object({ sub: nonEmpty, email: nonEmpty, grants: grantsSchema })),
});
const serviceClaims = v.object({ sub: v.literal('identity'), scope: v.string(), actor_sub: v.optional(nonEmpty) });

/**
 * Builds a verifier for caller tokens signed by a key of `jwks` (chosen by `kid`;
 * algorithms EdDSA, ES256 or RS256 only).
 *
 * Every token: `iss`, `aud`, `exp`, `iat` and `jti` present and valid, `exp` and
 * `iat` checked with {@link clockToleranceSeconds} of tolerance, `token_use` one of
 * `assertion`, `exchange`, `service`. Assertions additionally: `htm`/`htu` equal the
 * request, `exp - iat <= 120`, `jti` accepted once through `jtiStore`. A service token
 * carrying `actor_sub` (minted for one signed-in person, CONTRACTS.md section 2) is held
 * to the same lifetime and single use, because its answer (a one-time link code) must not
 * be obtainable twice. The returned
 * principal has `userId` null (see users.ts).
 *
 * @throws Error when the JWKS file or inline JSON cannot be read (at creation).
 * @throws DomainError 401 `unauthenticated` from `verify` for any token it refuses;
 *   the detail names the reason in general terms and never echoes the token.
 */
export async function createTokenVerifier(options: TokenVerifierOptions): Promise<TokenVerifier> {
  const keys = requireKid(await keySetFrom(options.jwks));
  const now = options.now ?? systemClock;

  const verify = async (token: string, request: BoundRequest): Promise<Principal> => {
    const currentDate = now();
    const payload = await verifySignature(token, keys, options, currentDate);
    const iat = Number(payload.iat);
    const exp = Number(payload.exp);
    if (iat > currentDate.getTime() / 1000 + clockToleranceSeconds) throw unauthenticated('token issued in the future');
    if (typeof payload.jti !== 'string' || payload.jti === '') throw unauthenticated('token has no valid id');

    switch (payload.token_use) {
      case 'assertion': {
        const claims = parseClaims(assertionClaims, payload);
        if (exp - iat > maxAssertionLifetimeSeconds) throw unauthenticated('token lifetime too long');
        if (claims.htm !== request.method.toUpperCase() || claims.htu !== request.path) {
          throw unauthenticated('token not bound to this request');
        }
        // The stored expiry includes the tolerance: the row must outlive every moment the token is still accepted.
        if (!(await options.jtiStore.claim(payload.jti, new Date((exp + clockToleranceSeconds) * 1000)))) {
          throw unauthenticated('token already used');
        }
        return {
          tokenUse: 'assertion',
          subject: claims.sub,
          userId: null,
          email: claims.email,
          name: claims.name,
          grants: claims.grants,
          scopes: null,
          workload: null,
        };
      }
      case 'exchange': {
        const claims = parseClaims(exchangeClaims, payload);
        return {
          tokenUse: 'exchange',
          subject: claims.act?.sub ?? claims.sub,
          userId: null,
          email: claims.act?.email ?? null,
          name: null,
          grants: claims.act?.grants ?? [],
          scopes: splitScope(claims.scope),
          workload: claims.act ? claims.sub : null,
        };
      }
      case 'service': {
        const claims = parseClaims(serviceClaims, payload);
        if (claims.actor_sub !== undefined) {
          if (exp - iat > maxAssertionLifetimeSeconds) throw unauthenticated('token lifetime too long');
          if (!(await options.jtiStore.claim(payload.jti, new Date((exp + clockToleranceSeconds) * 1000)))) throw unauthenticated('token already used');
        }
        return {
          tokenUse: 'service',
          subject: claims.sub,
          userId: null,
          email: null,
          name: null,
          grants: [],
          scopes: splitScope(claims.scope),
          workload: null,
          ...(claims.actor_sub !== undefined && { actorSubject: claims.actor_sub }),
        };
      }
      default:
        throw unauthenticated('token_use is not accepted');
    }
  };
  return { verify };
}

async function keySetFrom(jwks: TokenVerifierOptions['jwks']): Promise<JWTVerifyGetKey> {
  if (typeof jwks !== 'string') return createLocalJWKSet(jwks as JSONWebKeySet);
  const source = jwks.trim();
  if (/^https?:\/\//i.test(source)) return createRemoteJWKSet(new URL(source));
  const text = source.startsWith('{') ? source : await readFile(source, 'utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`SVC_IDENTITY_JWKS is not a URL, a readable JWKS file or JWKS JSON: ${(error as Error).message}`);
  }
  return createLocalJWKSet(parsed as JSONWebKeySet);
}

// jose falls back to the only key of a matching type when `kid` is absent; the contract chooses keys by `kid`.
function requireKid(keys: JWTVerifyGetKey): JWTVerifyGetKey {
  return (header, token) => {
    if (typeof header.kid !== 'string' || header.kid === '') throw unauthenticated('token has no key id');
    return keys(header, token);
  };
}

async function verifySignature(token: string, keys: JWTVerifyGetKey, options: TokenVerifierOptions, currentDate: Date): Promise<JWTPayload> {
  try {
    const { payload } = await jwtVerify(token, keys, {
      issuer: options.issuer,
      audience: options.audience,
      algorithms,
      clockTolerance: clockToleranceSeconds,
      requiredClaims: ['iat', 'exp', 'jti'],
      currentDate,
    });
    return payload;
  } catch (error) {
    const reason = refusalReason(error);
    if (reason === null) throw error;
    throw unauthenticated(reason);
  }
}

// Only failures of the token itself are 401; JWKS fetch or key import problems stay server errors.
function refusalReason(error: unknown): string | null {
  if (error instanceof DomainError) return error.detail;
  if (error instanceof errors.JWTExpired) return 'token expired';
  if (error instanceof errors.JWTClaimValidationFailed) return `token claim "${error.claim}" is missing or invalid`;
  if (error instanceof errors.JWKSNoMatchingKey) return 'token signed by an unknown key';
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'token signature is invalid';
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported) return 'token algorithm is not accepted';
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid || error instanceof errors.JWKSMultipleMatchingKeys) {
    return 'token is malformed';
  }
  return null;
}

function parseClaims<const S extends v.GenericSchema>(schema: S, payload: JWTPayload): v.InferOutput<S> {
  const result = v.safeParse(schema, payload);
  if (!result.success) throw unauthenticated(`token claim "${v.getDotPath(result.issues[0]) ?? 'payload'}" is missing or invalid`);
  return result.output;
}

function splitScope(scope: string): string[] {
  return scope.split(' ').filter((s) => s !== '');
}

/** A 401 `unauthenticated` DomainError with a general reason (SPEC.md "Errors"). */
export function unauthenticated(detail: string): DomainError {
  return new DomainError('unauthenticated', 401, detail);
}
