/**
 * Effect declarations on a custom action spec (domain/custom-actions/spec.ts
 * `customEffectSchema`, templates.ts `specProblems`, outcome.ts; SPEC.md "Read-back rule",
 * "Exit and verdict handling"): the schema's shape, each problem with its type, the pack
 * rule for an ownership read, and the outcome verdict on 2xx and error answers.
 */
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { outcomeVerdict } from '../../../domain/custom-actions/outcome.ts';
import { type CustomActionSpec, type CustomOutcome, customActionSpecSchema } from '../../../domain/custom-actions/spec.ts';
import { specProblems } from '../../../domain/custom-actions/templates.ts';
import { packProblems } from '../../../domain/integration-packs/pack.ts';
import { parsedPack } from '../../support/pack-documents.ts';

const base = {
  name: 'custom.fw.block',
  title: 'Block an address',
  transport: 'http',
  inputs: [{ name: 'ip', type: 'string', required: true }],
  http: { method: 'POST', path: '/blocks', body: { ip: '{{ inputs.ip }}' } },
  outputs: [
    { name: 'status', path: '$.status', type: 'string' },
    { name: 'message', path: '$.message', type: 'string' },
    { name: 'mode', path: '$.rule.mode', type: 'string' },
  ],
  effect_type: 'none',
  risk: 'write',
};
const outcome = { output: 'status', success: ['ok'], message: 'message', already_present: ['already exists'], already_absent: ['not found'] };
const specOf = (over: Record<string, unknown>): CustomActionSpec => v.parse(customActionSpecSchema, { ...base, ...over });
const problemsOf = (over: Record<string, unknown>) => specProblems(specOf(over)).map((p) => [p.loc.join('.'), p.type]);

describe('the effect schema', () => {
  it('is absent unless declared, so a spec saved before it compares equal', () => {
    expect('effect' in specOf({})).toBe(false);
    expect(specOf({ effect: { outcome } }).effect?.outcome).toEqual(outcome);
  });

  it('fills empty already lists, trims every value and refuses unknown keys, empty or blank values', () => {
    const parsed = specOf({
      effect: { outcome: { output: 'status', success: ['  ok '], message: 'message' }, ownership: { read: 'custom.fw.read', refusal: ' not ours ' } },
    });
    expect(parsed.effect).toEqual({
      outcome: { output: 'status', success: ['ok'], message: 'message', already_present: [], already_absent: [] },
      ownership: { read: 'custom.fw.read', refusal: 'not ours' },
    });
    const refused = (effect: unknown) => v.safeParse(customActionSpecSchema, { ...base, effect }).success === false;
    expect(refused({ enforced_value: ['block'] })).toBe(true);
    expect(refused({ outcome: { ...outcome, verdict: 'x' } })).toBe(true);
    expect(refused({ outcome: { ...outcome, already_present: ['  '] } })).toBe(true);
    expect(refused({ outcome: { ...outcome, message: undefined } })).toBe(true);
    expect(refused({ ownership: { read: 'not.custom', refusal: 'x' } })).toBe(true);
    expect(refused({ enforced_values: Array.from({ length: 21 }, (_, i) => `v${i}`) })).toBe(true);
  });
});

describe('specProblems of effect', () => {
  it('accepts a read declaring its enforced output, an http outcome and an ownership read', () => {
    expect(problemsOf({ risk: 'read', effect: { enforced_output: 'mode', enforced_values: ['block', 'challenge'] } })).toEqual([]);
    expect(problemsOf({ effect: { outcome, ownership: { read: 'custom.fw.read', refusal: 'the address is in the alias by hand' } } })).toEqual([]);
    // An ssh read may declare its exit code as the enforced output.
    const sshRead = v.parse(customActionSpecSchema, {
      ...base,
      transport: 'ssh',
      http: null,
      ssh: { command: 'nft', args: ['list', 'set'] },
      risk: 'read',
      effect: { enforced_output: 'exit_code', enforced_values: ['0'] },
    });
    expect(specProblems(sshRead)).toEqual([]);
  });

  it('names every output the effect names that the spec does not declare', () => {
    expect(problemsOf({ risk: 'read', effect: { enforced_output: 'state', enforced_values: ['on'] } })).toEqual([['effect.enforced_output', 'unknown_output']]);
    expect(problemsOf({ effect: { outcome: { ...outcome, output: 'verdict', message: 'detail' } } })).toEqual([
      ['effect.outcome.output', 'unknown_output'],
      ['effect.outcome.message', 'unknown_output'],
    ]);
    // exit_code is an output of ssh actions only.
    expect(problemsOf({ risk: 'read', effect: { enforced_output: 'exit_code', enforced_values: ['0'] } })).toEqual([
      ['effect.enforced_output', 'unknown_output'],
    ]);
  });

  it('wants enforced_output and a non-empty enforced_values together, and a success value', () => {
    expect(problemsOf({ risk: 'read', effect: { enforced_output: 'mode' } })).toEqual([['effect.enforced_values', 'effect_incomplete']]);
    expect(problemsOf({ risk: 'read', effect: { enforced_output: 'mode', enforced_values: [] } })).toEqual([['effect.enforced_values', 'effect_incomplete']]);
    expect(problemsOf({ risk: 'read', effect: { enforced_values: ['block'] } })).toEqual([['effect.enforced_output', 'effect_incomplete']]);
    expect(problemsOf({ effect: { outcome: { ...outcome, success: [] } } })).toEqual([['effect.outcome.success', 'effect_incomplete']]);
  });

  it('puts each part only where it applies: enforced on a read, outcome on http, ownership naming another action', () => {
    expect(problemsOf({ effect: { enforced_output: 'mode', enforced_values: ['block'] } })).toEqual([['effect.enforced_output', 'effect_not_applicable']]);
    const sshOutcome = v.parse(customActionSpecSchema, {
      ...base,
      transport: 'ssh',
      http: null,
      ssh: { command: 'ban', args: [] },
      outputs: [
        { name: 'status', path: '$.status', type: 'string' },
        { name: 'message', path: '$.message', type: 'string' },
      ],
      effect: { outcome },
    });
    expect(specProblems(sshOutcome).map((p) => [p.loc.join('.'), p.type])).toEqual([['effect.outcome', 'effect_not_applicable']]);
    expect(problemsOf({ effect: { ownership: { read: 'custom.fw.block', refusal: 'x' } } })).toEqual([['effect.ownership.read', 'effect_not_applicable']]);
  });

  it('refuses a message fragment meaning both already present and already absent', () => {
    expect(problemsOf({ effect: { outcome: { ...outcome, already_present: ['Gone?', 'exists'], already_absent: ['gone?'] } } })).toEqual([
      ['effect.outcome.already_absent.0', 'effect_ambiguous'],
    ]);
  });
});

describe('packProblems of an ownership read', () => {
  const read = { ...base, name: 'custom.fw.read', http: { method: 'GET', path: '/blocks' }, risk: 'read' };
  const owned = (name: string) => ({ spec: { ...base, effect: { ownership: { read: name, refusal: 'the entry is not ours' } } } });
  const types = (actions: unknown[]) => packProblems(parsedPack(actions)).map((p) => [p.loc.join('.'), p.type]);

  it('wants the ownership read to be a read action of the same pack', () => {
    expect(types([owned('custom.fw.read'), { spec: read }])).toEqual([]);
    expect(types([owned('custom.fw.other')])).toEqual([['actions.0.spec.effect.ownership.read', 'ownership_read_unknown']]);
    expect(types([owned('custom.fw.read'), { spec: { ...read, risk: 'write' } }])).toEqual([
      ['actions.0.spec.effect.ownership.read', 'ownership_read_unknown'],
    ]);
  });
});

describe('outcomeVerdict', () => {
  const declared: CustomOutcome = {
    output: 'status',
    success: ['OK', 'done'],
    message: 'message',
    already_present: ['already exists', 'duplicate_of_existing'],
    already_absent: ['not found'],
  };
  const on = (status: number, outputs: Record<string, string | number | boolean | null>) => outcomeVerdict(declared, status, outputs, {});

  it('is a success when the verdict equals a success value, trimmed and ignoring case, whatever the message says', () => {
    expect(on(200, { status: ' ok ', message: 'already exists' })).toEqual({ ok: true });
    expect(on(201, { status: 'DONE', message: null })).toEqual({ ok: true });
    expect(outcomeVerdict({ ...declared, success: ['0'] }, 200, { status: 0, message: null }, {})).toEqual({ ok: true });
  });

  it('renders a success value naming an input, so success means the answer names the very object acted on', () => {
    const named = { ...declared, success: ['{{ inputs.target }}'] };
    const device = '4c8f1a2b3c4d5e6f7a8b9c0d1e2f3a4b';
    expect(outcomeVerdict(named, 202, { status: device, message: null }, { target: device })).toEqual({ ok: true });
    expect(outcomeVerdict(named, 202, { status: null, message: null }, { target: device })).toMatchObject({ ok: false, type: 'vendor_refused' });
    expect(outcomeVerdict(named, 202, { status: '{{ inputs.target }}', message: null }, { target: device })).toMatchObject({ ok: false });
  });

  it('fails a 2xx with another verdict as refused, carrying the vendor message or saying what the verdict was', () => {
    expect(on(200, { status: 'error', message: ' Address is invalid ' })).toEqual({ ok: false, type: 'vendor_refused', detail: 'Address is invalid' });
    expect(on(200, { status: 'failed', message: null })).toEqual({ ok: false, type: 'vendor_refused', detail: 'status is "failed", not a success value' });
    expect(on(200, { status: null, message: '' })).toEqual({ ok: false, type: 'vendor_refused', detail: 'no status in the answer' });
    expect(on(200, { message: 'x' })).toMatchObject({ type: 'vendor_refused' });
    const long = 'x'.repeat(400);
    expect(on(200, { status: 'error', message: long })).toMatchObject({ detail: `${'x'.repeat(300)}…` });
  });

  it('lets the message tell already present from already absent, literally and ignoring case, and an ambiguous one from neither', () => {
    expect(on(200, { status: 'error', message: 'Object ALREADY EXISTS in alias' })).toEqual({
      ok: false,
      type: 'vendor_already_present',
      detail: 'Object ALREADY EXISTS in alias',
    });
    expect(on(200, { status: 'error', message: 'rule not found' })).toMatchObject({ type: 'vendor_already_absent' });
    expect(on(200, { status: 'error', message: 'already exists? not found' })).toMatchObject({ type: 'vendor_refused' });
    // A fragment is text, not a pattern.
    expect(outcomeVerdict({ ...declared, already_present: ['a.c'] }, 200, { status: 'error', message: 'abc' }, {})).toMatchObject({ type: 'vendor_refused' });
  });

  it('on a final 4xx reads only already present or absent from the message, leaving anything else to the status', () => {
    expect(on(400, { status: null, message: 'firewallaccessrules.api.duplicate_of_existing' })).toMatchObject({ type: 'vendor_already_present' });
    expect(on(404, { status: null, message: 'Not found' })).toMatchObject({ type: 'vendor_already_absent' });
    expect(on(409, { status: 'ok', message: 'conflict' })).toBeNull();
    expect(on(403, { status: null, message: null })).toBeNull();
    // 429 and 5xx are retried as they are: the message never decides them.
    expect(on(429, { status: null, message: 'already exists' })).toBeNull();
    expect(on(503, { status: null, message: 'not found' })).toBeNull();
  });
});
