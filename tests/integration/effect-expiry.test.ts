/**
 * TTL expiry reverses containment effects through their frozen binding, on every engine
 * (SPEC.md "Managed containment effects": automatic compensation at expiry, a failed
 * reversal retried and visible; "an unblock of something already gone is success").
 * Effects are decided and appended as the managed layer will; the worker claims each
 * expiry job by the injected clock and calls the bound custom unblock action on a local
 * stand-in of a firewall API with the handle the apply recorded: a plain reversal, a 503
 * retried after its backoff, a rule the vendor says is gone, and a binding whose
 * connection is missing (refused before any call, kept as a failed reversal).
 */
import { randomUUID } from 'node:crypto';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEffectCommands } from '../../adapters/commands/effects.ts';
import { PostgresEventStore } from '../../adapters/event-store/postgres.ts';
import { snapshotDigest, type ParametersSnapshot } from '../../domain/effects/binding.ts';
import { bindingSchema } from '../../domain/response-policy/policy.ts';
import { manualClock } from '../support/clock.ts';
import { actionListed, callAs, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';
import { startReceiver } from '../support/receiver.ts';
import { e2eEngines } from '../support/service-process.ts';

const root = testPerson('root@example.com', [{ team: null, role: 'admin' }]);
const unblock = {
  name: 'custom.lab_waf.unblock',
  title: 'Delete a firewall rule',
  transport: 'http',
  default_connection: 'waf',
  inputs: [{ name: 'rule_id', type: 'string', required: true }],
  http: { method: 'DELETE', path: '/rules/{{ inputs.rule_id }}' },
  outputs: [
    { name: 'status', path: '$.status', type: 'string' },
    { name: 'message', path: '$.message', type: 'string' },
  ],
  effect: { outcome: { output: 'status', success: ['done'], message: 'message', already_absent: ['not found'] } },
  effect_type: 'notify',
  risk: 'write',
};
const snapshot = (connection: string): ParametersSnapshot => ({
  policy_version: 1,
  binding: v.parse(bindingSchema, {
    effect_type: 'block',
    target_type: 'ip',
    adapter_id: 'lab_waf',
    block_action: 'custom.lab_waf.unblock',
    unblock_action: 'custom.lab_waf.unblock',
    connection_name: connection,
  }),
});

describe.each(e2eEngines)('effect TTL expiry on $name', ({ server }) => {
  const clock = manualClock(new Date());
  let svc: InProcessService;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let flakyDown = true;
  /** The effect another process reverses while this one's unblock call is under way. */
  let raced: string | null = null;

  beforeAll(async () => {
    receiver = await startReceiver((req, res) => {
      if (req.path === '/rules/rule-raced' && raced !== null) {
        const otherProcess = createEffectCommands({ store: new PostgresEventStore(svc.service.opened.db) });
        void otherProcess
          .decide({ type: 'record_reversal', effectId: raced, outcome: { status: 'reversed', already: false }, now: clock.now().toISOString() })
          .then(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"done","message":"deleted"}'));
      } else if (req.path === '/rules/rule-flaky' && flakyDown) {
        res.writeHead(503, { 'content-type': 'application/json' }).end('{"message":"try later"}');
      } else if (req.path === '/rules/rule-gone') {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"status":"failed","message":"rule not found"}');
      } else {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"done","message":"deleted"}');
      }
    });
    svc = await startInProcessService({ server }, { clock: clock.now });
    const conn = await callAs(svc, root, 'POST', '/connections', { kind: 'http', name: 'waf', base_url: receiver.url, secret: 'waf-key-1' });
    expect(conn.status, conn.text).toBe(201);
    const created = await callAs(svc, root, 'POST', '/custom-actions', { spec: unblock });
    expect(created.status, created.text).toBe(201);
    await actionListed(svc, root, 'custom.lab_waf.unblock');
  }, 60_000);
  afterAll(async () => {
    await svc?.close();
    await receiver?.close();
  });

  /** An effect applied now with `handle`, 600 s TTL, bound to `connection`. */
  const applied = async (target: string, handle: string, connection = 'waf') => {
    const effects = createEffectCommands({ store: new PostgresEventStore(svc.service.opened.db) });
    const id = randomUUID();
    const s = snapshot(connection);
    const now = clock.now().toISOString();
    await effects.decide({
      type: 'request',
      effectId: id,
      effectType: 'block',
      targetType: 'ip',
      target,
      ttlSeconds: 600,
      snapshot: s,
      snapshotDigest: snapshotDigest(s),
      refusal: null,
      origin: { runId: null, stepId: null, attempt: null, caseId: null, by: null },
      now,
    });
    const r = await effects.decide({
      type: 'record_apply',
      effectId: id,
      outcome: { status: 'applied', enforcementPerformed: true, already: false, handle },
      now,
    });
    await svc.service.projector.waitFor(r.position ?? 0);
    return id;
  };
  const effect = async (id: string) => (await callAs(svc, root, 'GET', `/effects/${id}`)).body;
  const until = async (id: string, status: string) => {
    for (let i = 0; i < 400; i++) {
      const e = await effect(id);
      if (e.status === status) return e;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`effect ${id} never reached ${status}: ${JSON.stringify(await effect(id))}`);
  };
  const calls = (handle: string) => receiver.received.filter((r) => r.path === `/rules/${handle}`);

  it('reverses each effect when its TTL ends, through the bound unblock action with the recorded handle; retries a failure and keeps it visible', async () => {
    const plain = await applied('203.0.113.7', 'rule-ok');
    const flaky = await applied('203.0.113.8', 'rule-flaky');
    const gone = await applied('203.0.113.9', 'rule-gone');
    const unbound = await applied('203.0.113.10', 'rule-x', 'nowhere');

    clock.advance(599_000);
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.received).toEqual([]);
    expect((await effect(plain)).status).toBe('active');

    clock.advance(2_000);
    expect(await until(plain, 'reversed')).toMatchObject({ last_error: null, reversal_attempts: 0 });
    expect(calls('rule-ok')).toHaveLength(1);
    expect(calls('rule-ok')[0]).toMatchObject({ method: 'DELETE', headers: { authorization: 'Bearer waf-key-1', 'idempotency-key': expect.any(String) } });
    expect(await until(gone, 'reversed')).toMatchObject({ last_error: null });
    const failed = await until(flaky, 'reversal_failed');
    expect(failed).toMatchObject({ last_error: 'http_status', reversal_attempts: 1 });
    expect(Date.parse(failed.retry_at) - clock.now().getTime()).toBe(60_000);
    const refused = await until(unbound, 'reversal_failed');
    expect(refused).toMatchObject({ last_error: 'adapter_connection_missing' });
    expect(calls('rule-x')).toEqual([]);

    flakyDown = false;
    clock.advance(60_000);
    expect(await until(flaky, 'reversed')).toMatchObject({ reversal_attempts: 1 });
    expect(calls('rule-flaky')).toHaveLength(2);
    expect(calls('rule-ok')).toHaveLength(1);
    // It is already reversal_failed from its first try: wait for the retry itself, which a loaded worker may take a moment to reach.
    await expect.poll(async () => (await effect(unbound)).reversal_attempts, { timeout: 10_000, interval: 25 }).toBeGreaterThanOrEqual(2);
    expect((await effect(unbound)).status).toBe('reversal_failed');
    const rows = await svc.service.opened.db.selectFrom('jobs').select(['key']).where('kind', '=', 'effect_expiry').execute();
    expect(rows.map((r) => r.key)).toEqual([unbound]);
  });

  it('records a reversal once when another process recorded it during the unblock call: the stale state is a conflict, decided again', async () => {
    raced = await applied('203.0.113.11', 'rule-raced');
    clock.advance(601_000);
    expect(await until(raced, 'reversed')).toMatchObject({ last_error: null, reversal_attempts: 0 });
    expect(calls('rule-raced')).toHaveLength(1);
    const events = await new PostgresEventStore(svc.service.opened.db).readStream(`effect-${raced}`);
    expect(events.map((e) => e.type)).toEqual(['effect.requested', 'effect.applied', 'effect.reversal_started', 'effect.reversed']);
    await expect
      .poll(
        async () =>
          (
            await svc.service.opened.db
              .selectFrom('jobs')
              .select('key')
              .where('key', '=', raced ?? '')
              .execute()
          ).length,
      )
      .toBe(0);
  });
});
