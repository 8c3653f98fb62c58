/**
 * The reputation actions (SPEC.md "Action registry entry") against local servers that
 * answer as the two services' public APIs document: the key travels in the service's own
 * header, each indicator type goes to its path, the verdicts follow the documented
 * thresholds, an unseen indicator is `unknown` (not a failure), a quota answer is
 * retryable, and reputation_b refuses what is not an IP before any request.
 */
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActionContext, ActionDefinition, ActionFailure, ResolvedConnection } from '../../../adapters/actions/action.ts';
import { indicatorTypeOf, reputationActions } from '../../../adapters/actions/enrich-reputation.ts';
import { startReputationAServer, startReputationBServer } from '../../support/reputation-servers.ts';

const KEY_A = 'vt-key-0c9f5e';
const KEY_B = 'abuse-key-77d1a2';

describe('indicator types', () => {
  it('tells IPs, URLs, hashes and domains apart', () => {
    expect(
      ['203.0.113.7', '2001:db8::1', 'https://evil.example/x?y=1', 'd41d8cd98f00b204e9800998ecf8427e', 'evil.example.com', 'not an indicator'].map(
        indicatorTypeOf,
      ),
    ).toEqual(['ip', 'ip', 'url', 'hash', 'domain', null]);
  });
});

describe('reputation actions', () => {
  let a: Awaited<ReturnType<typeof startReputationAServer>>;
  let b: Awaited<ReturnType<typeof startReputationBServer>>;
  const [repA, repB] = reputationActions((url, init) => fetch(url, init)) as [ActionDefinition, ActionDefinition];
  beforeAll(async () => {
    a = await startReputationAServer(KEY_A, {
      'ip_addresses/203.0.113.7': { harmless: 60, malicious: 9, suspicious: 1, undetected: 20, timeout: 0 },
      'domains/evil.example.com': { harmless: 70, malicious: 1, suspicious: 0, undetected: 19, timeout: 0 },
      'files/d41d8cd98f00b204e9800998ecf8427e': { harmless: 0, malicious: 0, suspicious: 0, undetected: 70, timeout: 0 },
      [`urls/${Buffer.from('https://evil.example/login').toString('base64url')}`]: { harmless: 88, malicious: 0, suspicious: 0, undetected: 2, timeout: 0 },
    });
    b = await startReputationBServer(KEY_B, { '203.0.113.7': [100, 312], '198.51.100.4': [30, 2], '198.51.100.5': [0, 4] });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  const context = (base: string, secret: string, config: Record<string, unknown> = {}): ActionContext => ({
    runId: 'r',
    stepId: 's',
    attempt: 1,
    deliveryId: 'delivery-1',
    caseId: null,
    signal: AbortSignal.timeout(10_000),
    cases: null,
    approval: null,
    resume: null,
    now: () => new Date(),
    connection: { id: 'c', kind: 'http', name: 'intel', base_url: base, config, secret, previous_secret: null, bot_token: null } satisfies ResolvedConnection,
  });
  const runA = (input: unknown) => repA.execute(v.parse(repA.input, input), context(a.url, KEY_A)) as Promise<Record<string, any>>;
  const runB = (input: unknown, config?: Record<string, unknown>) =>
    repB.execute(v.parse(repB.input, input), context(b.url, KEY_B, config)) as Promise<Record<string, any>>;
  const failure = (p: Promise<unknown>) =>
    p.then(
      () => null,
      (e: unknown) => e as ActionFailure,
    );

  it('reads reputation_a for every indicator type from its own path, with the key in x-apikey', async () => {
    expect(await runA({ indicator: '203.0.113.7' })).toMatchObject({
      type: 'ip',
      verdict: 'malicious',
      score: 10,
      raw: { as_owner: 'Example AS', reputation: -11 },
    });
    expect(await runA({ indicator: 'Evil.Example.com' })).toMatchObject({ type: 'domain', verdict: 'suspicious', score: 1 });
    expect(await runA({ indicator: 'https://evil.example/login' })).toMatchObject({ type: 'url', verdict: 'harmless', score: 0 });
    expect(await runA({ indicator: 'D41D8CD98F00B204E9800998ECF8427E' })).toMatchObject({ type: 'hash', verdict: 'unknown', score: 0 });
    expect(await runA({ indicator: 'never-seen.example' })).toEqual({
      indicator: 'never-seen.example',
      type: 'domain',
      verdict: 'unknown',
      score: null,
      raw: null,
    });
    expect(a.received.map((r) => r.path)).toEqual([
      '/api/v3/ip_addresses/203.0.113.7',
      '/api/v3/domains/evil.example.com',
      `/api/v3/urls/${Buffer.from('https://evil.example/login').toString('base64url')}`,
      '/api/v3/files/d41d8cd98f00b204e9800998ecf8427e',
      '/api/v3/domains/never-seen.example',
    ]);
    expect(a.received.every((r) => r.headers['x-apikey'] === KEY_A)).toBe(true);
    expect((await runA({ indicator: '203.0.113.7' })).raw).not.toHaveProperty('whois');
    expect(await failure(runA({ indicator: '192.0.2.99' }))).toMatchObject({ type: 'http_status', retryable: true });
  });

  it('reads reputation_b by confidence score, with the key in Key, and refuses what is not an IP before any request', async () => {
    expect(await runB({ indicator: '203.0.113.7' })).toMatchObject({ type: 'ip', verdict: 'malicious', score: 100, raw: { totalReports: 312 } });
    expect(await runB({ indicator: '198.51.100.4' })).toMatchObject({ verdict: 'suspicious', score: 30 });
    expect(await runB({ indicator: '198.51.100.5' })).toMatchObject({ verdict: 'harmless', score: 0 });
    expect(await runB({ indicator: '198.51.100.6' })).toMatchObject({ verdict: 'unknown', score: 0 });
    expect(await runB({ indicator: '198.51.100.4' }, { suspicious_score: 50 })).toMatchObject({ verdict: 'harmless' });
    expect(b.received[0]!.path).toBe('/api/v2/check?ipAddress=203.0.113.7&maxAgeInDays=90');
    expect(b.received[0]!.headers.key).toBe(KEY_B);
    const seen = b.received.length;
    expect(await failure(runB({ indicator: 'evil.example.com' }))).toMatchObject({ type: 'indicator_unsupported', retryable: false });
    expect(b.received).toHaveLength(seen);
    expect(await failure(repB.execute(v.parse(repB.input, { indicator: '203.0.113.7' }), context(b.url, 'wrong')))).toMatchObject({
      type: 'http_status',
      retryable: false,
    });
  });

  it('refuses an indicator of no known type at validation, and previews without the key', async () => {
    expect(v.safeParse(repA.input, { indicator: 'not an indicator' }).success).toBe(false);
    const shown = await repA.preview(v.parse(repA.input, { indicator: '203.0.113.7' }), context(a.url, KEY_A));
    expect(shown).toEqual({ method: 'GET', url: `${a.url}/api/v3/ip_addresses/203.0.113.7`, headers: { 'x-apikey': '[redacted]' }, type: 'ip' });
  });
});
