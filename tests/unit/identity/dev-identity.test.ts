import { mkdtemp, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { devAssertionClaims, devExchangeClaims, devSubject, parseGrant } from '../../../adapters/identity/dev-claims.ts';
import { devIdentityRefusal, devIssuer, ensureDevIdentity, mintDevToken } from '../../../adapters/identity/dev-identity.ts';
import { scopes } from '../../../adapters/identity/scopes.ts';
import { createTokenVerifier } from '../../../adapters/identity/verifier.ts';

const tempDir = () => mkdtemp(join(tmpdir(), 'svc-dev-identity-'));
const jtiStore = { claim: async () => true };

describe('dev identity', () => {
  it('creates an Ed25519 key once, private key readable by its owner only, and reuses it', async () => {
    const dir = await tempDir();
    const [first, concurrent] = await Promise.all([ensureDevIdentity(dir), ensureDevIdentity(dir)]);
    const again = await ensureDevIdentity(dir);
    expect(first.issuer).toBe(devIssuer);
    expect(concurrent.kid).toBe(first.kid);
    expect(again.kid).toBe(first.kid);
    expect(first.jwks.keys).toEqual([expect.objectContaining({ kty: 'OKP', crv: 'Ed25519', kid: first.kid, alg: 'EdDSA' })]);
    expect(first.jwks.keys[0]).not.toHaveProperty('d');
    expect((await stat(join(dir, 'identity', 'private-key.pem'))).mode & 0o777).toBe(0o600);
  });

  it('mints tokens the dev JWKS verifies', async () => {
    const identity = await ensureDevIdentity(await tempDir());
    const verifier = await createTokenVerifier({ issuer: devIssuer, audience: 'svc', jwks: identity.jwks, jtiStore });
    const grants = [{ team: 'blue', role: 'admin' as const }];

    const exchange = await mintDevToken(identity, devExchangeClaims({ email: 'dev@example.com', grants }), { audience: 'svc', ttlSeconds: 3600 });
    expect(await verifier.verify(exchange, { method: 'GET', path: '/auth/me' })).toMatchObject({
      tokenUse: 'exchange',
      subject: devSubject('dev@example.com'),
      grants,
      scopes: [...scopes],
    });
    const claims = decodeJwt(exchange);
    expect(Number(claims.exp) - Number(claims.iat)).toBe(3600);

    const bound = { method: 'delete', path: '/cases/1' };
    const assertion = await mintDevToken(identity, devAssertionClaims({ email: 'dev@example.com', name: 'Dev', grants }, bound), {
      audience: 'svc',
      ttlSeconds: 60,
    });
    expect(await verifier.verify(assertion, { method: 'DELETE', path: '/cases/1' })).toMatchObject({ tokenUse: 'assertion', name: 'Dev' });
  });

  it('is refused with a server database or in production', () => {
    expect(devIdentityRefusal({})).toBeNull();
    expect(devIdentityRefusal({ DATABASE_URL: 'postgres://db/svc' })).toMatch(/DATABASE_URL/);
    expect(devIdentityRefusal({ NODE_ENV: 'production' })).toMatch(/production/);
  });
});

describe('dev claims', () => {
  it('parses realm and team grants', () => {
    expect(parseGrant('admin')).toEqual({ team: null, role: 'admin' });
    expect(parseGrant('analyst:blue:team')).toEqual({ team: 'blue:team', role: 'analyst' });
    expect(() => parseGrant('owner')).toThrow(/role must be one of/);
    expect(() => parseGrant('admin:')).toThrow(/team/);
  });

  it('gives one email one stable UUID subject', () => {
    expect(devSubject('Dev@Example.com')).toBe(devSubject('dev@example.com'));
    expect(devSubject('dev@example.com')).not.toBe(devSubject('other@example.com'));
    expect(devSubject('dev@example.com')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
