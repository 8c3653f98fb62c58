/**
 * The dev identity of the embedded default (CONTRACTS.md section 4): an Ed25519
 * key pair kept in the data dir that stands in for the suite's identity service
 * and gateway, so a fresh clone can call its own API.
 */
import { randomUUID } from 'node:crypto';
import { link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { calculateJwkThumbprint, exportJWK, exportPKCS8, generateKeyPair, importPKCS8, SignJWT, type CryptoKey, type JWK } from 'jose';
import type { Grant, TokenUse } from './principal.ts';
import { systemClock } from '../shared/clock.ts';

/** The `iss` of every dev identity token. */
export const devIssuer = 'svc-dev-identity';

export type DevIdentity = {
  issuer: string;
  /** The public JWKS the service trusts in dev identity mode. */
  jwks: { keys: JWK[] };
  privateKey: CryptoKey;
  kid: string;
};

/** Claims of a dev token besides `iss`, `aud`, `iat`, `exp` and `jti`, which mintDevToken sets. */
export type DevTokenClaims = {
  token_use: TokenUse;
  sub: string;
  scope?: string;
  email?: string;
  name?: string;
  grants?: Grant[];
  act?: { sub: string; email: string; grants: Grant[] };
  htm?: string;
  htu?: string;
};

/**
 * Why dev identity must not run in `env`, or null when it may: it is refused
 * when `DATABASE_URL` is set (a shared server is no local sandbox) or when
 * `NODE_ENV=production` (CONTRACTS.md section 4).
 */
export function devIdentityRefusal(env: NodeJS.ProcessEnv): string | null {
  if (env.NODE_ENV === 'production') return 'dev identity is refused when NODE_ENV=production; set SVC_IDENTITY_JWKS';
  if (env.DATABASE_URL) return 'dev identity is refused when DATABASE_URL is set; set SVC_IDENTITY_JWKS';
  return null;
}

/**
 * Loads the dev identity from `<dataDir>/identity/`, creating its Ed25519 key pair
 * on first use (private key as PKCS#8 PEM, file mode 0600, directory 0700). The
 * `kid` is the key's RFC 7638 thumbprint, so it is stable across restarts.
 * Concurrent first starts agree on one key: the file is published with link(),
 * which fails when another process already published one.
 *
 * @throws Error when the directory cannot be written or the key file is unreadable.
 */
export async function ensureDevIdentity(dataDir: string): Promise<DevIdentity> {
  const dir = join(dataDir, 'identity');
  const keyPath = join(dir, 'private-key.pem');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const pem = (await readIfExists(keyPath)) ?? (await createKeyFile(keyPath));
  // Extractable only so the public half can be exported: jose derives it from the private JWK.
  const privateKey = await importPKCS8(pem, 'EdDSA', { extractable: true });
  const { d: _secret, ...publicJwk } = await exportJWK(privateKey);
  const kid = await calculateJwkThumbprint(publicJwk);
  return {
    issuer: devIssuer,
    jwks: { keys: [{ ...publicJwk, kid, alg: 'EdDSA', use: 'sig' }] },
    privateKey,
    kid,
  };
}

/**
 * Signs `claims` with the dev identity as an EdDSA JWT with `iss`, `aud`
 * (`options.audience`), `iat` (`options.now`, default the current time), `exp`
 * (`iat + options.ttlSeconds`) and a fresh random `jti`.
 *
 * @example mintDevToken(identity, { token_use: 'exchange', sub: 'svc-dev-cli', scope: 'svc:cases:read' }, { audience: 'svc', ttlSeconds: 3600 })
 */
export async function mintDevToken(
  identity: DevIdentity,
  claims: DevTokenClaims,
  options: { audience: string; ttlSeconds: number; now?: Date },
): Promise<string> {
  const iat = Math.floor((options.now ?? systemClock()).getTime() / 1000);
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'EdDSA', kid: identity.kid, typ: 'JWT' })
    .setIssuer(identity.issuer)
    .setAudience(options.audience)
    .setIssuedAt(iat)
    .setExpirationTime(iat + options.ttlSeconds)
    .setJti(randomUUID())
    .sign(identity.privateKey);
}

async function readIfExists(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

async function createKeyFile(keyPath: string): Promise<string> {
  const { privateKey } = await generateKeyPair('EdDSA', { extractable: true });
  const pem = await exportPKCS8(privateKey);
  const staging = `${keyPath}.${randomUUID()}.tmp`;
  await writeFile(staging, pem, { mode: 0o600, flag: 'wx' });
  try {
    await link(staging, keyPath);
    return pem;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return readFile(keyPath, 'utf8');
  } finally {
    await unlink(staging);
  }
}
