/**
 * The action registry without a database (SPEC.md "Action registry entry"): the 34
 * built-ins of SPEC.md and the three managed identity actions, risks, products, and the
 * literal-input check runbook validation uses.
 */
import { describe, expect, it } from 'vitest';
import { builtinActions, createActionRegistry } from '../../../adapters/action-registry/registry.ts';

/** Every action name of SPEC.md's "Action registry entry" table, in its order. */
const SPEC_ACTIONS = [
  'ai.agent',
  'ai.triage',
  'case.update',
  'detector.add_exception',
  'detector.comment_alert',
  'detector.get_alert',
  'detector.snooze_rule',
  'banlist.block',
  'banlist.status',
  'banlist.unblock',
  'enrich.reputation_a',
  'enrich.reputation_b',
  'http.request',
  'mcp.call',
  'notify.email',
  'notify.ticket_a',
  'notify.chat_b',
  'notify.pager_b',
  'notify.pager_a',
  'notify.ticket_b',
  'notify.chat_a',
  'notify.webhook',
  'response.domain_block',
  'response.domain_unblock',
  'response.domain_status',
  'response.host_isolate',
  'response.host_release',
  'response.host_status',
  'response.ip_block',
  'response.ip_unblock',
  'response.ip_status',
  'ssh.command',
  'pipeline.await_confirmation',
  'pipeline.deploy_request',
];

/** The managed identity actions: ours, for SPEC.md's `disable_identity` effect (docs/containment.md). */
const IDENTITY_ACTIONS = ['response.identity_disable', 'response.identity_enable', 'response.identity_status'];

describe('action registry', () => {
  const registry = createActionRegistry(builtinActions(fetch));

  it('lists the 34 built-ins of SPEC.md and the three identity actions, each with schemas, connection kind, risk and implemented', () => {
    expect(SPEC_ACTIONS).toHaveLength(34);
    const entries = registry.entries();
    expect(entries.map((e) => e.name)).toEqual([...SPEC_ACTIONS, ...IDENTITY_ACTIONS].sort());
    for (const entry of entries) {
      expect(entry.input_schema, entry.name).toMatchObject({ type: 'object' });
      expect(entry.output_schema, entry.name).toMatchObject({ type: 'object' });
      expect(['read', 'write', 'notify', 'arbitrary']).toContain(entry.risk);
    }
    expect(entries.filter((e) => e.implemented).map((e) => e.name)).toEqual([
      'banlist.block',
      'banlist.status',
      'banlist.unblock',
      'case.update',
      'enrich.reputation_a',
      'enrich.reputation_b',
      'http.request',
      'notify.chat_a',
      'notify.chat_b',
      'notify.email',
      'notify.pager_a',
      'notify.pager_b',
      'notify.ticket_a',
      'notify.ticket_b',
      'notify.webhook',
      'pipeline.await_confirmation',
      'pipeline.deploy_request',
      'ssh.command',
    ]);
    const byName = new Map(entries.map((e) => [e.name, e]));
    expect(byName.get('ssh.command')).toMatchObject({ connection_kind: 'ssh', risk: 'arbitrary', implemented: true });
    expect(byName.get('banlist.block')).toMatchObject({ connection_kind: 'ssh', implemented: true });
    expect(byName.get('response.host_status')).toMatchObject({ connection_kind: 'internal', risk: 'read' });
    expect(IDENTITY_ACTIONS.map((name) => byName.get(name)?.risk)).toEqual(['write', 'write', 'read']);
    expect(byName.get('notify.email')).toMatchObject({ connection_kind: 'email_smtp', risk: 'notify' });
    expect(byName.get('ssh.command')?.input_schema).toMatchObject({ properties: { command: { pattern: '^[A-Za-z0-9_./-]+$' } }, required: ['command'] });
  });

  it('refuses unknown actions, and product actions unless the product is installed', () => {
    expect(registry.actionProblem('case.update')).toBeNull();
    expect(registry.actionProblem('case.delete')).toBe("unknown action 'case.delete'");
    expect(registry.actionProblem('detector.get_alert')).toMatch(/needs the detector product, which is not installed/);
    expect(registry.actionProblem('pipeline.deploy_request')).toMatch(/needs the pipeline product/);
    expect(registry.actionProblem('detector.get_alert', true)).toBeNull();
    const withDetector = createActionRegistry(builtinActions(fetch), ['detector']);
    expect(withDetector.actionProblem('detector.get_alert')).toBeNull();
    expect(withDetector.actionProblem('pipeline.deploy_request')).not.toBeNull();
  });

  it('checks literal inputs and leaves templated values to run time', () => {
    expect(registry.checkInput('case.update', { tags_add: ['a'], comment: 'hi' })).toEqual([]);
    expect(registry.checkInput('case.update', { colour: 'red' })).toEqual([{ path: ['colour'], msg: expect.any(String) }]);
    expect(registry.checkInput('case.update', { tags_add: 'not-a-list' })).toEqual([{ path: ['tags_add'], msg: expect.stringMatching(/Array/) }]);
    expect(registry.checkInput('case.update', { tags_add: '{{ trigger.tags }}' })).toEqual([]);
    expect(registry.checkInput('ssh.command', { command: 'rm -rf /' })).toEqual([{ path: ['command'], msg: 'must match ^[A-Za-z0-9_./-]+$' }]);
    expect(registry.checkInput('ssh.command', { command: '{{ inputs.cmd }}' })).toEqual([]);
    expect(registry.checkInput('ssh.command', {}).map((p) => p.path)).toEqual([['command']]);
    // The reserved `connection` key picks the connection and is no input.
    expect(registry.checkInput('http.request', { connection: 'api', method: 'GET' })).toEqual([]);
    expect(registry.checkInput('http.request', { method: 'FETCH' }).map((p) => p.path)).toEqual([['method']]);
    expect(registry.checkInput('banlist.block', { ip: '1.2.3.4', ttl: '0s', reason: 'x' }).map((p) => p.path)).toEqual([['ttl']]);
    expect(registry.checkInput('banlist.block', { ip: '1.2.3.4', ttl: '31d', reason: 'x' }).map((p) => p.path)).toEqual([['ttl']]);
    expect(registry.checkInput('banlist.block', { ip: '1.2.3.4', ttl: '3600s', reason: 'x' })).toEqual([]);
    expect(registry.checkInput('pipeline.deploy_request', { pipeline: 'p', source: 's', kind: 'sample_source' }).map((p) => p.path)).toEqual([['sample_rate']]);
    expect(registry.checkInput('no.such', { anything: 1 })).toEqual([]);
  });

  it('takes an identity of up to 320 characters under `identity`, and a whole TTL for a suspension only', () => {
    const email = `${'a'.repeat(64)}@${'b'.repeat(251)}.com`;
    expect(email).toHaveLength(320);
    expect(registry.checkInput('response.identity_disable', { identity: email, ttl_seconds: 600, reason: 'SVC-9' })).toEqual([]);
    expect(registry.checkInput('response.identity_disable', { identity: `${email}x`, ttl_seconds: 600 }).map((p) => p.path)).toEqual([['identity']]);
    expect(registry.checkInput('response.identity_disable', { identity: 'mallory@example.com' }).map((p) => p.path)).toEqual([['ttl_seconds']]);
    expect(registry.checkInput('response.identity_disable', { identity: 'mallory@example.com', ttl_seconds: 0 }).map((p) => p.path)).toEqual([['ttl_seconds']]);
    expect(registry.checkInput('response.identity_enable', { identity: 'mallory@example.com' })).toEqual([]);
    expect(registry.checkInput('response.identity_status', { identity: 'mallory@example.com', ttl_seconds: 600 }).map((p) => p.path)).toEqual([
      ['ttl_seconds'],
    ]);
    expect(registry.checkInput('response.identity_status', { user: 'mallory@example.com' }).map((p) => p.path)).toEqual([['identity'], ['user']]);
  });
});
