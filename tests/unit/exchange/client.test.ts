/**
 * The workload exchange client's own rules (adapters/exchange/client.ts, declared.ts):
 * only declared (audience, scope) pairs are ever requested, `UNDECLARED_EXCHANGE_SCOPE`
 * is raised before any request leaves, an unconfigured exchange says so, a token endpoint
 * failure reads as the exchange's, and the exchanges document is sorted.
 */
import { describe, expect, it } from 'vitest';
import { ActionFailure } from '../../../adapters/actions/action.ts';
import { createTokenSource } from '../../../adapters/actions/oauth2-token.ts';
import { createExchangeClient } from '../../../adapters/exchange/client.ts';
import { exchangesDocument, isDeclared } from '../../../adapters/exchange/declared.ts';

const settings = { tokenUrl: 'https://identity.example/oauth2/token', clientId: 'svc', clientSecret: 'exchange-secret-3f9a' };

/** A token endpoint answering `status` with `body`, counting requests. */
function tokenEndpoint(status: number, body: Record<string, unknown>) {
  const calls: string[] = [];
  const fetchImpl = async (url: string) => {
    calls.push(url);
    return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  };
  return { calls, tokens: createTokenSource(fetchImpl) };
}

const failureOf = async (p: Promise<unknown>) => {
  const error = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ActionFailure);
  return error as ActionFailure;
};

describe('workload exchange client', () => {
  const signal = new AbortController().signal;

  it('refuses an undeclared audience or scope with UNDECLARED_EXCHANGE_SCOPE before any request', async () => {
    const { calls, tokens } = tokenEndpoint(200, { access_token: 't', token_type: 'Bearer', expires_in: 300 });
    const client = createExchangeClient(settings, tokens);
    for (const [audience, scopes] of [
      ['detector', ['detector:admin']],
      ['detector', ['detector:alerts:read', 'detector:tenants:write']],
      ['pipeline', ['pipeline:deployments:write']],
      ['detector', []],
      ['__proto__', ['detector:alerts:read']],
    ] as const) {
      const failure = await failureOf(client.token('detector.get_alert', audience, scopes, signal));
      expect([failure.type, failure.retryable]).toEqual(['UNDECLARED_EXCHANGE_SCOPE', false]);
    }
    expect(calls).toEqual([]);
  });

  it('mints a declared pair once and serves it from the cache', async () => {
    const { calls, tokens } = tokenEndpoint(200, { access_token: 'detector-token', token_type: 'Bearer', expires_in: 300 });
    const client = createExchangeClient(settings, tokens);
    expect(await client.token('alerts.backfill', 'detector', ['detector:alerts:read'], signal)).toBe('detector-token');
    expect(await client.token('alerts.backfill', 'detector', ['detector:alerts:read'], signal)).toBe('detector-token');
    expect(calls).toEqual([settings.tokenUrl]);
  });

  it('says when the exchange is not configured, and reports a token endpoint failure as the exchange failing', async () => {
    const unconfigured = await failureOf(
      createExchangeClient(null, tokenEndpoint(200, {}).tokens).token('alerts.backfill', 'detector', ['detector:alerts:read'], signal),
    );
    expect(unconfigured.type).toBe('exchange_not_configured');

    const refused = await failureOf(
      createExchangeClient(settings, tokenEndpoint(400, { error: 'invalid_scope' }).tokens).token(
        'alerts.backfill',
        'detector',
        ['detector:alerts:read'],
        signal,
      ),
    );
    expect([refused.type, refused.message, refused.retryable]).toEqual([
      'exchange_failed',
      'alerts.backfill: workload exchange request to identity.example failed with status 400, OAuth error invalid_scope',
      false,
    ]);
    expect(refused.message).not.toContain(settings.clientSecret);
  });

  it('publishes every audience with sorted scopes, and declares only whole sets', () => {
    expect(exchangesDocument('svc', { pipeline: ['b', 'a'], detector: ['z', 'y'] })).toEqual({
      contract_version: 1,
      product: 'svc',
      exchanges: { detector: ['y', 'z'], pipeline: ['a', 'b'] },
    });
    expect(isDeclared('detector', ['detector:alerts:read'])).toBe(true);
    expect(isDeclared('detector', ['detector:alerts:read', 'detector:alerts:delete'])).toBe(false);
  });
});
