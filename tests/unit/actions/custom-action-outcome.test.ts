/**
 * A custom HTTP action's `effect.outcome` applied by the runnable action
 * (adapters/actions/custom-action.ts with domain/custom-actions/outcome.ts;
 * docs/configuration.md "Custom actions", "Effect declarations"): a success verdict
 * returns the outputs, any other fails final with the vendor's message and a type the
 * message decides, on 2xx JSON or XML answers and on a final 4xx; without an outcome
 * nothing changes.
 */
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import type { ActionContext, ResolvedConnection } from '../../../adapters/actions/action.ts';
import { customActionDefinition } from '../../../adapters/actions/custom-action.ts';
import { customActionSpecSchema, type StoredCustomActionSpec } from '../../../domain/custom-actions/spec.ts';

const specOf = (over: Record<string, unknown> = {}): StoredCustomActionSpec => {
  const { enabled: _enabled, ...spec } = v.parse(customActionSpecSchema, {
    name: 'custom.fw.block',
    title: 'Block an address',
    transport: 'http',
    inputs: [{ name: 'ip', type: 'string', required: true }],
    http: { method: 'POST', path: '/alias/add', body: { address: '{{ inputs.ip }}' } },
    outputs: [
      { name: 'status', path: '$.status', type: 'string' },
      { name: 'message', path: '$.message', type: 'string' },
    ],
    effect_type: 'none',
    risk: 'write',
    max_attempts: 3,
    effect: { outcome: { output: 'status', success: ['done'], message: 'message', already_present: ['already in'], already_absent: ['not in'] } },
    ...over,
  });
  return spec;
};

const connection: ResolvedConnection = {
  id: 'c1',
  kind: 'http',
  name: 'firewall',
  base_url: 'https://fw.example/api',
  config: {},
  secret: 'key',
  previous_secret: null,
  bot_token: null,
};
const context: ActionContext = {
  runId: 'r1',
  stepId: 's1',
  attempt: 1,
  deliveryId: 'delivery-1',
  caseId: null,
  connection,
  signal: new AbortController().signal,
  cases: null,
  approval: null,
  resume: null,
  now: () => new Date(0),
};

/** An action whose every call is answered by `answer`, counting the calls. */
const answering = (spec: StoredCustomActionSpec, answer: () => Response) => {
  const calls = { count: 0 };
  const action = customActionDefinition(spec, {
    fetch: async () => {
      calls.count++;
      return answer();
    },
    sleep: async () => undefined,
  });
  return { action, calls };
};
const json =
  (body: unknown, status = 200) =>
  () =>
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

describe('effect.outcome in a run', () => {
  it('returns the outputs on a success verdict', async () => {
    const { action } = answering(specOf(), json({ status: 'Done', message: 'added' }));
    expect(await action.execute({ ip: '10.0.0.1' }, context)).toEqual({ status: 'Done', message: 'added' });
  });

  it('fails a 2xx refusal final, once, with the vendor message as the error', async () => {
    const { action, calls } = answering(specOf(), json({ status: 'failed', message: 'address 10.0.0.x is not an address' }));
    await expect(action.execute({ ip: '10.0.0.1' }, context)).rejects.toMatchObject({
      name: 'ActionFailure',
      type: 'vendor_refused',
      message: 'custom.fw.block: address 10.0.0.x is not an address',
      retryable: false,
    });
    expect(calls.count).toBe(1);
  });

  it('tells already present from already absent by the message, on a 2xx or a final 4xx', async () => {
    const present = answering(specOf(), json({ status: 'failed', message: 'Address already in alias' }));
    await expect(present.action.execute({ ip: '10.0.0.1' }, context)).rejects.toMatchObject({
      type: 'vendor_already_present',
      message: 'custom.fw.block: Address already in alias',
    });
    const absent = answering(specOf(), json({ message: 'address not in alias' }, 404));
    await expect(absent.action.execute({ ip: '10.0.0.1' }, context)).rejects.toMatchObject({ type: 'vendor_already_absent', retryable: false });
    // Any other 4xx, and a 5xx whatever it says, stay status failures (the 5xx retried).
    const conflict = answering(specOf(), json({ message: 'locked' }, 409));
    await expect(conflict.action.execute({ ip: '10.0.0.1' }, context)).rejects.toMatchObject({ type: 'http_status', retryable: false });
    const outage = answering(specOf(), json({ message: 'already in' }, 503));
    await expect(outage.action.execute({ ip: '10.0.0.1' }, context)).rejects.toMatchObject({ type: 'http_status', retryable: true });
    expect(outage.calls.count).toBe(3);
  });

  it('judges an XML answer the same way', async () => {
    const spec = specOf({
      outputs: [
        { name: 'status', path: '$.response.@status', type: 'string' },
        { name: 'message', path: '$.response.msg', type: 'string' },
      ],
    });
    const xml = (body: string) => () => new Response(body, { status: 200, headers: { 'content-type': 'application/xml' } });
    const ok = answering(spec, xml('<response status="done"><msg>command succeeded</msg></response>'));
    expect(await ok.action.execute({ ip: '10.0.0.1' }, context)).toEqual({ status: 'done', message: 'command succeeded' });
    const refused = answering(spec, xml('<response status="error"><msg>Object already in group</msg></response>'));
    await expect(refused.action.execute({ ip: '10.0.0.1' }, context)).rejects.toMatchObject({ type: 'vendor_already_present' });
  });

  it('keeps a redacted message output out of the error', async () => {
    const { action } = answering(specOf({ redact: ['$.output.message'] }), json({ status: 'failed', message: 'token abc123 expired' }));
    await expect(action.execute({ ip: '10.0.0.1' }, context)).rejects.toMatchObject({ type: 'vendor_refused', message: 'custom.fw.block: [redacted]' });
  });

  it('changes nothing without an outcome: a 2xx is a success whatever it says', async () => {
    const { action } = answering(specOf({ effect: undefined }), json({ status: 'failed', message: 'already in' }));
    expect(await action.execute({ ip: '10.0.0.1' }, context)).toEqual({ status: 'failed', message: 'already in' });
  });
});
