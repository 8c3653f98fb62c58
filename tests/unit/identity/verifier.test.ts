import { randomUUID } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTokenVerifier, type JtiStore, type TokenVerifier } from '../../../adapters/identity/verifier.ts';

type Alg = 'EdDSA' | 'ES256' | 'RS256';
type Signer = { alg: Alg; kid: string; privateKey: CryptoKey; publicJwk: JWK };

const issuer = 'https://identity.example.test';
const audience = 'svc';
const now = new Date('2030-01-01T12:00:00Z');
const t = now.getTime() / 1000;
const subject = '6f9b3a52-1c1e-4d55-9a43-0c6d5b1f7e10';
const request = { method: 'POST', path: '/cases/42/comments' };

async function signer(alg: Alg): Promise<Signer> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const kid = `${alg}-${randomUUID()}`;
  return { alg, kid, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg } };
}

function memoryJtiStore(): JtiStore & { seen: Map<string, Date> } {
  const seen = new Map<string, Date>();
  return {
    seen,
    claim: async (jti, expiresAt) => {
      if (seen.has(jti)) return false;
      seen.set(jti, expiresAt);
      return true;
    },
  };
}

type SignOptions = { by?: Signer; kid?: string | null; omit?: string[] };

async function sign(claims: Record<string, unknown>, options: SignOptions = {}): Promise<string> {
  const by = options.by ?? signers.EdDSA;
  const payload: Record<string, unknown> = { iss: issuer, aud: audience, iat: t, exp: t + 60, jti: randomUUID(), ...claims };
  for (const name of options.omit ?? []) delete payload[name];
  const kid = options.kid === undefined ? by.kid : options.kid;
  return new SignJWT(payload).setProtectedHeader({ alg: by.alg, ...(kid === null ? {} : { kid }) }).sign(by.privateKey);
}

function assertion(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    token_use: 'assertion',
    sub: subject,
    email: 'ana@example.com',
    name: 'Ana Analyst',
    grants: [
      { team: null, role: 'viewer' },
      { team: 'blue', role: 'analyst' },
    ],
    htm: 'POST',
    htu: '/cases/42/comments',
    ...extra,
  };
}

async function refused(verifier: TokenVerifier, token: string, detail: RegExp, bound = request): Promise<void> {
  const error = await verifier.verify(token, bound).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toMatchObject({ name: 'DomainError', status: 401, code: 'unauthenticated', detail: expect.stringMatching(detail) });
  expect((error as Error).message).not.toContain(token);
}

let signers: Record<Alg, Signer>;
let jtiStore: ReturnType<typeof memoryJtiStore>;
let verifier: TokenVerifier;

beforeAll(async () => {
  signers = { EdDSA: await signer('EdDSA'), ES256: await signer('ES256'), RS256: await signer('RS256') };
  jtiStore = memoryJtiStore();
  verifier = await createTokenVerifier({
    issuer,
    audience,
    jwks: { keys: Object.values(signers).map((s) => s.publicJwk) },
    jtiStore,
    now: () => now,
  });
});

describe('assertions', () => {
  it.each(['EdDSA', 'ES256', 'RS256'] as const)('accepts one signed with %s', async (alg) => {
    const principal = await verifier.verify(await sign(assertion(), { by: signers[alg] }), request);
    expect(principal).toEqual({
      tokenUse: 'assertion',
      subject,
      userId: null,
      email: 'ana@example.com',
      name: 'Ana Analyst',
      grants: [
        { team: null, role: 'viewer' },
        { team: 'blue', role: 'analyst' },
      ],
      scopes: null,
      workload: null,
    });
  });

  it('refuses a replay, remembering the id until the token can no longer be accepted', async () => {
    const jti = randomUUID();
    const token = await sign(assertion({ jti }));
    await verifier.verify(token, request);
    expect(jtiStore.seen.get(jti)).toEqual(new Date((t + 60 + 30) * 1000));
    await refused(verifier, token, /already used/);
  });

  it('refuses a token bound to another method or path', async () => {
    await refused(verifier, await sign(assertion({ htm: 'GET' })), /not bound to this request/);
    await refused(verifier, await sign(assertion({ htu: '/cases/43/comments' })), /not bound to this request/);
    await refused(verifier, await sign(assertion({ htu: '/cases/42/comments?x=1' })), /not bound to this request/);
  });

  it('refuses a lifetime over 120 s and accepts exactly 120 s', async () => {
    await refused(verifier, await sign(assertion({ exp: t + 121 })), /lifetime/);
    await expect(verifier.verify(await sign(assertion({ exp: t + 120 })), request)).resolves.toMatchObject({ subject });
  });

  it('tolerates 30 s of clock skew and no more', async () => {
    await expect(verifier.verify(await sign(assertion({ iat: t - 80, exp: t - 20 })), request)).resolves.toBeTruthy();
    await expect(verifier.verify(await sign(assertion({ iat: t + 25, exp: t + 85 })), request)).resolves.toBeTruthy();
    await refused(verifier, await sign(assertion({ iat: t - 100, exp: t - 40 })), /expired/);
    await refused(verifier, await sign(assertion({ iat: t + 40, exp: t + 100 })), /future/);
  });

  it.each([
    ['a subject that is not a UUID', { sub: 'ana' }, /"sub"/],
    ['no email', { email: undefined }, /"email"/],
    ['grants that are not a list', { grants: { team: null, role: 'admin' } }, /"grants"/],
    ['an unknown role', { grants: [{ team: null, role: 'owner' }] }, /"grants.0.role"/],
    ['a team that is not a string', { grants: [{ team: 7, role: 'admin' }] }, /"grants.0.team"/],
    ['a grant without a team', { grants: [{ role: 'admin' }] }, /"grants.0.team"/],
    ['no htm', { htm: undefined }, /"htm"/],
  ])('refuses %s', async (_, extra, detail) => {
    await refused(verifier, await sign(assertion(extra)), detail);
  });
});

describe('every token', () => {
  it('refuses a signature by another key under a known kid', async () => {
    const impostor = await signer('EdDSA');
    await refused(verifier, await sign(assertion(), { by: impostor, kid: signers.EdDSA.kid }), /signature/);
  });

  it('refuses an unknown or missing kid', async () => {
    await refused(verifier, await sign(assertion(), { kid: 'nobody' }), /unknown key/);
    await refused(verifier, await sign(assertion(), { kid: null }), /no key id/);
  });

  it('refuses a wrong issuer or audience', async () => {
    await refused(verifier, await sign(assertion({ iss: 'https://evil.example' })), /"iss"/);
    await refused(verifier, await sign(assertion({ aud: 'other' })), /"aud"/);
  });

  it.each(['iat', 'exp', 'jti', 'iss', 'aud'])('refuses a token without %s', async (claim) => {
    await refused(verifier, await sign(assertion(), { omit: [claim] }), new RegExp(`"${claim}"|no valid id`));
  });

  it('refuses an algorithm outside EdDSA, ES256 and RS256', async () => {
    const token = await new SignJWT({ ...assertion(), iss: issuer, aud: audience, iat: t, exp: t + 60, jti: randomUUID() })
      .setProtectedHeader({ alg: 'HS256', kid: signers.EdDSA.kid })
      .sign(new TextEncoder().encode('a-shared-secret-of-enough-length!'));
    await refused(verifier, token, /algorithm/);
  });

  it('refuses garbage and an unknown token_use', async () => {
    await refused(verifier, 'not.a.jwt', /malformed/);
    await refused(verifier, await sign(assertion({ token_use: 'refresh' })), /token_use/);
    await refused(verifier, await sign(assertion({ token_use: undefined })), /token_use/);
  });
});

describe('exchange tokens', () => {
  it('take grants from act and scopes from scope, and may be reused', async () => {
    const token = await sign({
      token_use: 'exchange',
      sub: 'mcp-workload',
      scope: 'svc:cases:read  svc:runs:write',
      act: { sub: subject, email: 'ana@example.com', grants: [{ team: null, role: 'admin' }] },
      exp: t + 3600,
    });
    const expected = {
      tokenUse: 'exchange',
      subject,
      userId: null,
      email: 'ana@example.com',
      name: null,
      grants: [{ team: null, role: 'admin' }],
      scopes: ['svc:cases:read', 'svc:runs:write'],
      workload: 'mcp-workload',
    };
    expect(await verifier.verify(token, request)).toEqual(expected);
    expect(await verifier.verify(token, { method: 'GET', path: '/anything' })).toEqual(expected);
  });

  it('without act carry no grants', async () => {
    const token = await sign({ token_use: 'exchange', sub: 'batch-job', scope: 'svc:alerts:read' });
    expect(await verifier.verify(token, request)).toMatchObject({
      subject: 'batch-job',
      email: null,
      grants: [],
      scopes: ['svc:alerts:read'],
      workload: null,
    });
  });

  it('refuse a missing scope or a malformed actor', async () => {
    await refused(verifier, await sign({ token_use: 'exchange', sub: 'w' }), /"scope"/);
    await refused(verifier, await sign({ token_use: 'exchange', sub: 'w', scope: '', act: { sub: subject, grants: [] } }), /"act.email"/);
  });
});

describe('service tokens', () => {
  it('come from identity only and carry no grants', async () => {
    const token = await sign({ token_use: 'service', sub: 'identity', scope: 'svc:peer:status:read' });
    expect(await verifier.verify(token, request)).toMatchObject({ tokenUse: 'service', subject: 'identity', grants: [], scopes: ['svc:peer:status:read'] });
    await refused(verifier, await sign({ token_use: 'service', sub: 'someone', scope: 'x' }), /"sub"/);
  });

  it('minted for a person (actor_sub) are short-lived and accepted once', async () => {
    const token = await sign({ token_use: 'service', sub: 'identity', scope: 'svc:peer:account:write', actor_sub: subject });
    expect(await verifier.verify(token, request)).toMatchObject({ tokenUse: 'service', actorSubject: subject });
    await refused(verifier, token, /already used/);
    await refused(
      verifier,
      await sign({ token_use: 'service', sub: 'identity', scope: 'svc:peer:account:write', actor_sub: subject, iat: t, exp: t + 121 }),
      /lifetime/,
    );
    const plain = await sign({ token_use: 'service', sub: 'identity', scope: 'svc:peer:status:read' });
    await verifier.verify(plain, request);
    expect(await verifier.verify(plain, request)).not.toHaveProperty('actorSubject');
  });
});

describe('key sources', () => {
  it('reads the JWKS from inline JSON and from a file', async () => {
    const json = JSON.stringify({ keys: [signers.ES256.publicJwk] });
    const file = join(await mkdtemp(join(tmpdir(), 'svc-jwks-')), 'jwks.json');
    await writeFile(file, json);
    for (const jwks of [json, file]) {
      const v = await createTokenVerifier({ issuer, audience, jwks, jtiStore: memoryJtiStore(), now: () => now });
      await expect(v.verify(await sign(assertion(), { by: signers.ES256 }), request)).resolves.toMatchObject({ subject });
    }
  });

  it('fails at creation on unreadable JWKS text', async () => {
    await expect(createTokenVerifier({ issuer, audience, jwks: '{oops', jtiStore: memoryJtiStore() })).rejects.toThrow(/SVC_IDENTITY_JWKS/);
  });
});
