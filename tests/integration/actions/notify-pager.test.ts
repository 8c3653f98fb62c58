/**
 * The pager actions outside a case (SPEC.md "Webhook intake": the key defaults to the
 * case only in a run bound to one): pager_a reads back the dedup_key the pager chose,
 * pager_b's alert keeps no key, an acknowledge without a key is refused, and previews
 * never show the routing key or the API key.
 */
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActionContext, ActionDefinition, ActionFailure, ResolvedConnection } from '../../../adapters/actions/action.ts';
import { createNotifyPagerA, createNotifyPagerB } from '../../../adapters/actions/notify-pager.ts';
import { startPagerAServer, startPagerBServer } from '../../support/pager-servers.ts';

const ROUTING_KEY = 'R0ut1ngK3yR0ut1ngK3yR0ut1ngK3y32';
const GENIE_KEY = 'eb243592-faa2-4ba2-a551-1afdf565c889';

describe('pager actions outside a case', () => {
  let a: Awaited<ReturnType<typeof startPagerAServer>>;
  let b: Awaited<ReturnType<typeof startPagerBServer>>;
  const pagerA = createNotifyPagerA((url, init) => fetch(url, init)) as ActionDefinition;
  const pagerB = createNotifyPagerB((url, init) => fetch(url, init)) as ActionDefinition;
  beforeAll(async () => {
    a = await startPagerAServer();
    b = await startPagerBServer(GENIE_KEY);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });
  const context = (kind: string, base: string, secret: string): ActionContext => ({
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
    connection: { id: 'c', kind, name: kind, base_url: base, config: {}, secret, previous_secret: null, bot_token: null } satisfies ResolvedConnection,
  });
  const run = (action: ActionDefinition, input: unknown, ctx: ActionContext) =>
    action.execute(v.parse(action.input, input), ctx) as Promise<Record<string, unknown>>;

  it('reads back the dedup_key pager_a chose, and sends pager_b without an alias', async () => {
    const paged = await run(pagerA, { summary: 'Disk full on db-1', severity: 'medium' }, context('pager_a', a.url, ROUTING_KEY));
    expect(paged).toEqual({ key: expect.stringMatching(/^[0-9a-f]{32}$/), linked_case_id: null, status: 202 });
    expect(JSON.parse(a.received[0]!.body)).not.toHaveProperty('dedup_key');
    expect(await run(pagerB, { message: 'Disk full on db-1' }, context('pager_b', b.url, GENIE_KEY))).toEqual({ key: null, linked_case_id: null, status: 202 });
    expect(JSON.parse(b.received[0]!.body)).toEqual({ message: 'Disk full on db-1', priority: 'P3', source: 'svc' });
  });

  it('refuses an acknowledge or resolve without a key, and previews without secrets', async () => {
    const error = await run(pagerA, { summary: 'x', event_action: 'resolve' }, context('pager_a', a.url, ROUTING_KEY)).then(
      () => null,
      (e: unknown) => e as ActionFailure,
    );
    expect(error).toMatchObject({ type: 'input_invalid', retryable: false });
    const shownA = await pagerA.preview(v.parse(pagerA.input, { summary: 'x', dedup_key: 'k' }), context('pager_a', a.url, ROUTING_KEY));
    const shownB = await pagerB.preview(v.parse(pagerB.input, { message: 'x' }), context('pager_b', b.url, GENIE_KEY));
    expect(JSON.stringify(shownA)).not.toContain(ROUTING_KEY);
    expect(JSON.stringify(shownB)).not.toContain(GENIE_KEY);
    expect(shownB).toMatchObject({ headers: { authorization: 'GenieKey [redacted]' } });
  });
});
