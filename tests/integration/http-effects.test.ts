/**
 * The effects read model and its routes on every engine (SPEC.md "Effect (managed
 * containment)"; docs/containment.md "Reading effects"): effects decided by the Effect
 * aggregate and appended through the event store are listed by target (any spelling of
 * the address), type and status and read one by one, with their state, TTL end, adapter
 * and failed reversals; case scoping hides an effect of a case the caller cannot see.
 */
import { randomUUID } from 'node:crypto';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decideAndAppend } from '../../adapters/commands/aggregate.ts';
import { PostgresEventStore } from '../../adapters/event-store/postgres.ts';
import { snapshotDigest, snapshotOf } from '../../domain/effects/binding.ts';
import { effectDecider, type EffectCommand } from '../../domain/effects/index.ts';
import { normalizePolicy, responsePolicySchema } from '../../domain/response-policy/policy.ts';
import { streams } from '../../domain/shared/streams.ts';
import { manualClock } from '../support/clock.ts';
import { callAs, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';
import { e2eEngines } from '../support/service-process.ts';

const root = testPerson('root@example.com', [{ team: null, role: 'admin' }]);
const blue = testPerson('ana@example.com', [{ team: 'blue', role: 'analyst' }]);
const red = testPerson('rex@example.com', [{ team: 'red', role: 'analyst' }]);

const policy = normalizePolicy(
  v.parse(responsePolicySchema, {
    ttl: { min_seconds: 60, max_seconds: 86_400 },
    adapters: [
      {
        effect_type: 'block',
        target_type: 'ip',
        adapter_id: 'edge_waf',
        block_action: 'custom.edge_waf.block',
        unblock_action: 'custom.edge_waf.unblock',
        connection_name: 'waf',
      },
    ],
  }),
);
const snapshot = snapshotOf(policy, 4, 'block', 'ip');
const T0 = '2026-11-24T10:00:00.000Z';

describe.each(e2eEngines)('effects read model on $name', ({ server }) => {
  let svc: InProcessService;
  let caseId = '';
  const active = randomUUID();
  const degraded = randomUUID();
  const failing = randomUUID();

  beforeAll(async () => {
    // The service clock stays at T0: none of these effects is due for reversal while the test reads them.
    svc = await startInProcessService({ server }, { clock: manualClock(T0).now });
    const kase = await callAs(svc, root, 'POST', '/cases', { title: 'Blocked source', severity: 'high', team: 'blue' });
    expect(kase.status, kase.text).toBe(201);
    caseId = kase.body.id;
    const store = new PostgresEventStore(svc.service.opened.db);
    const decide = (id: string, command: EffectCommand) =>
      decideAndAppend(store, streams.effect(id), effectDecider, () => command, { actor: { id: null, email: null, kind: 'system' } });
    const request = (id: string, target: string, refusal: { code: string; message: string } | null, withCase: boolean): EffectCommand => ({
      type: 'request',
      effectId: id,
      effectType: 'block',
      targetType: 'ip',
      target,
      ttlSeconds: 600,
      snapshot,
      snapshotDigest: snapshot && snapshotDigest(snapshot),
      refusal,
      origin: { runId: null, stepId: 'block', attempt: 1, caseId: withCase ? caseId : null, by: null },
      now: T0,
    });
    await decide(active, request(active, '203.0.113.7', null, true));
    await decide(active, {
      type: 'record_apply',
      effectId: active,
      outcome: { status: 'applied', enforcementPerformed: true, already: false, handle: 'rule-9' },
      now: T0,
    });
    await decide(degraded, request(degraded, '198.51.100.1', { code: 'adapter_connection_missing', message: 'connection waf does not exist' }, false));
    await decide(failing, request(failing, '192.0.2.44', null, false));
    await decide(failing, {
      type: 'record_apply',
      effectId: failing,
      outcome: { status: 'applied', enforcementPerformed: true, already: false, handle: 'rule-1' },
      now: T0,
    });
    await decide(failing, { type: 'start_reversal', effectId: failing, reason: 'ttl_expired', by: null, now: '2026-11-24T10:10:00.000Z' });
    const last = await decide(failing, {
      type: 'record_reversal',
      effectId: failing,
      outcome: { status: 'failed', code: 'vendor_unavailable', message: '503', retryAt: '2026-11-24T10:11:00.000Z' },
      now: '2026-11-24T10:10:01.000Z',
    });
    await svc.service.projector.waitFor(last.position ?? 0);
  }, 60_000);
  afterAll(async () => svc?.close());

  it('lists what is blocked, by whom and until when, by any spelling of the target', async () => {
    const byTarget = await callAs(svc, root, 'GET', `/effects?target_type=ip&target=${encodeURIComponent('::ffff:203.0.113.7')}`);
    expect(byTarget.status, byTarget.text).toBe(200);
    expect(byTarget.body.items).toEqual([
      expect.objectContaining({
        id: active,
        target: '203.0.113.7',
        status: 'active',
        expires_at: '2026-11-24T10:10:00.000Z',
        adapter_id: 'edge_waf',
        policy_version: 4,
        handle: 'rule-9',
        enforcement_performed: true,
        case_id: caseId,
      }),
    ]);
    const one = await callAs(svc, root, 'GET', `/effects/${failing}`);
    expect(one.body).toMatchObject({ status: 'reversal_failed', last_error: 'vendor_unavailable', reversal_attempts: 1, retry_at: '2026-11-24T10:11:00.000Z' });
    const refused = await callAs(svc, root, 'GET', '/effects?status=degraded');
    expect(refused.body.items.map((e: any) => [e.id, e.last_error, e.expires_at])).toEqual([[degraded, 'adapter_connection_missing', null]]);
    expect((await callAs(svc, root, 'GET', '/effects')).body.items).toHaveLength(3);
    const stuck = await callAs(svc, root, 'GET', '/effects?status=active,reversal_failed&include_total=true&limit=1');
    expect(stuck.body).toMatchObject({ total: 2, total_relation: 'eq', has_more: true, limit: 1, offset: 0 });
    expect((await callAs(svc, root, 'GET', `/effects?case_id=${caseId}`)).body.items.map((e: any) => e.id)).toEqual([active]);
    expect((await callAs(svc, root, 'GET', `/effects?case_id=${randomUUID()}`)).body.items).toEqual([]);
    expect((await callAs(svc, root, 'GET', `/effects?run_id=${randomUUID()}`)).body.items).toEqual([]);
    const badStatus = await callAs(svc, root, 'GET', '/effects?status=active,blocked');
    expect(badStatus.status).toBe(422);
  });

  it('hides an effect of a case the caller cannot see, and refuses a target without its type or that is not one', async () => {
    expect((await callAs(svc, blue, 'GET', `/effects/${active}`)).status).toBe(200);
    expect((await callAs(svc, red, 'GET', `/effects/${active}`)).body.code).toBe('effect_not_found');
    expect((await callAs(svc, red, 'GET', '/effects')).body.items.map((e: any) => e.id).sort()).toEqual([degraded, failing].sort());
    expect((await callAs(svc, root, 'GET', '/effects?target=203.0.113.7')).status).toBe(422);
    expect((await callAs(svc, root, 'GET', '/effects?target_type=ip&target=010.0.0.1')).status).toBe(422);
    expect((await callAs(svc, root, 'GET', `/effects/${randomUUID()}`)).status).toBe(404);
  });
});
