/**
 * A managed block is idempotent per attempt and across the attempts of one delivery, on
 * every engine (SPEC.md "Managed containment actions": "idempotent per attempt";
 * adapters/effects/response-actions.ts): the effect is in the store before the vendor call, so a
 * worker that dies mid-call leaves a `pending` effect, and the next attempt the crash leads
 * to (same delivery id) continues that effect (one more call with the same idempotency key,
 * one verdict) instead of requesting a second one; an attempt that already applied answers
 * its effect without calling again; a failed try leads to a new effect; another delivery (a
 * `for_each` item, a goto pass) is another effect. The bound adapter action here is a
 * stand-in that counts its calls.
 */
import { randomUUID } from 'node:crypto';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActionFailure, type ActionContext, type ActionDefinition } from '../../adapters/actions/action.ts';
import { createActionRegistry } from '../../adapters/action-registry/registry.ts';
import { effectIdOf, responseActions } from '../../adapters/effects/response-actions.ts';
import { createAuditLog } from '../../adapters/commands/audit.ts';
import { createEffectCommands } from '../../adapters/commands/effects.ts';
import { PostgresEventStore } from '../../adapters/event-store/postgres.ts';
import { createEffectReverser } from '../../adapters/effects/reversal.ts';
import { defaultResponsePolicy, type ResponsePolicy } from '../../domain/response-policy/policy.ts';
import { engines } from '../support/engines.ts';
import { standInBinding, standInGrant, standInWaf } from '../support/stand-in-block.ts';

describe.each(engines)('managed block idempotency on $name', (engine) => {
  let opened: Awaited<ReturnType<typeof engine.open>>;
  const calls: { key: string; ip: string }[] = [];
  let answer: 'ok' | 'fail' = 'ok';

  const vendorBlock: ActionDefinition<{ ip: string }, { rule_id: string }> = {
    name: 'custom.stand_in.block',
    connectionKind: 'http',
    risk: 'write',
    input: v.strictObject({ ip: v.string() }),
    output: v.object({ rule_id: v.string() }),
    async execute(input, context) {
      calls.push({ key: `${context.runId}/${context.stepId}/${context.attempt}`, ip: input.ip });
      if (answer === 'fail') throw new ActionFailure('vendor_refused', 'zone locked', false);
      return { rule_id: `r-${calls.length}` };
    },
    preview: async () => ({}),
  };
  const policy: ResponsePolicy = {
    ...defaultResponsePolicy(),
    // Covered by an automatic grant: idempotency is the point here, not the gate.
    automatic_grants: [standInGrant],
    adapters: [standInBinding],
  };
  const connection = standInWaf;

  let block: ActionDefinition;
  let effects: ReturnType<typeof createEffectCommands>;
  beforeAll(async () => {
    opened = await engine.open();
    const store = new PostgresEventStore(opened.db);
    effects = createEffectCommands({ store });
    const now = () => new Date('2026-11-24T10:00:00.000Z');
    const registry = createActionRegistry([
      vendorBlock,
      ...responseActions({
        registry: () => registry,
        policy: async () => ({ policy, version: 1 }),
        effects,
        reverser: () =>
          createEffectReverser({
            effects,
            audit: createAuditLog({ store, ids: randomUUID, now }),
            actions: registry,
            resolveConnection: async () => connection,
            now,
          }),
        resolveConnection: async () => connection,
        caseSeverity: async () => null,
        openEffects: async () => [],
        waitFor: async () => {},
        now,
      }),
    ]);
    block = registry.implementation('response.ip_block')!;
  });
  afterAll(async () => {
    await opened?.close();
  });

  const context = (attempt: number, deliveryId = `delivery-${attempt}`): ActionContext => ({
    runId: 'run-1',
    stepId: 'contain',
    attempt,
    deliveryId,
    caseId: null,
    connection: null,
    signal: AbortSignal.timeout(5_000),
    cases: null,
    approval: null,
    resume: null,
    now: () => new Date(),
  });
  const input = { ip: '203.0.113.7', ttl_seconds: 600 };

  it('answers an attempt that already applied its effect without calling the vendor again', async () => {
    answer = 'ok';
    calls.length = 0;
    const first = await block.execute(input, context(2));
    expect(first).toMatchObject({ enforced: true, enforcement_performed: true });
    const repeated = await block.execute(input, context(2));
    expect(repeated).toEqual(first);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.key).toBe(`effect-${(first as { effect_id: string }).effect_id}/apply/1`);
    expect(await effects.read((first as { effect_id: string }).effect_id)).toMatchObject({ status: 'active', handle: 'r-1' });
  });

  it('continues, in the next attempt, the pending effect a worker left when it died mid-call: one more call with the same idempotency key, one verdict', async () => {
    const ctx = context(8, 'delivery-7');
    const id = effectIdOf(context(7, 'delivery-7'), 1);
    await effects.decide({
      type: 'request',
      effectId: id,
      effectType: 'block',
      targetType: 'ip',
      target: '203.0.113.8',
      ttlSeconds: 600,
      snapshot: { policy_version: 1, binding: policy.adapters[0]! },
      snapshotDigest: null,
      refusal: null,
      origin: { runId: 'run-1', stepId: 'contain', attempt: 7, caseId: null, by: null },
      now: '2026-11-24T10:00:00.000Z',
    });
    calls.length = 0;
    const out = await block.execute({ ip: '203.0.113.8', ttl_seconds: 600 }, ctx);
    expect(out).toMatchObject({ effect_id: id, enforced: true });
    expect(calls).toEqual([{ key: `effect-${id}/apply/1`, ip: '203.0.113.8' }]);
    const history = await new PostgresEventStore(opened.db).readStream(`effect-${id}`);
    expect(history.map((e) => e.type)).toEqual(['effect.requested', 'effect.applied']);
  });

  it('makes another delivery of the same step (a for_each item, a goto pass) its own effect', async () => {
    answer = 'ok';
    calls.length = 0;
    const first = (await block.execute({ ip: '203.0.113.21', ttl_seconds: 600 }, context(1, 'item-0'))) as { effect_id: string };
    const second = (await block.execute({ ip: '203.0.113.22', ttl_seconds: 600 }, context(1, 'item-1'))) as { effect_id: string };
    expect(second.effect_id).not.toBe(first.effect_id);
    expect(calls.map((c) => c.ip)).toEqual(['203.0.113.21', '203.0.113.22']);
    expect(await effects.read(second.effect_id)).toMatchObject({ status: 'active', target: '203.0.113.22' });
  });

  it('starts a new effect for the next try after a failed one', async () => {
    answer = 'fail';
    const ctx = context(9);
    await expect(block.execute(input, ctx)).rejects.toThrow(/zone locked/);
    expect(await effects.read(effectIdOf(ctx, 1))).toMatchObject({ status: 'failed', lastError: 'vendor_refused' });
    answer = 'ok';
    const out = await block.execute(input, ctx);
    expect(out).toMatchObject({ effect_id: effectIdOf(ctx, 2), enforced: true });
  });
});
