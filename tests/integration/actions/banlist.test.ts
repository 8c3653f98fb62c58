/**
 * The ban-list actions over a real OpenSSH server on 127.0.0.1 against a `cscli`
 * stand-in that keeps decisions in a file and prints CrowdSec's JSON (SPEC.md "Ban-list
 * built-in actions (ssh)"): block adds a ban whose reason carries a per-invocation marker
 * and reads its exact id back; the TTL is explicit and refused before any egress when
 * blank, zero, malformed or over 30 days; `--bypass-allowlist` is never sent; status reads
 * one id and reports an absent one as `not_found`; unblock deletes that id only, proves it
 * gone, and is a clean no-op for an absent id.
 */
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActionContext, ActionDefinition, ActionFailure, ResolvedConnection } from '../../../adapters/actions/action.ts';
import { banlistBlock, banlistStatus, banlistUnblock, ttlSeconds } from '../../../adapters/actions/banlist.ts';
import { createCscliStandIn, type CscliStandIn } from '../../support/cscli-standin.ts';
import { sshdAvailable, startSshd, type TestSshd } from '../../support/sshd.ts';

describe('ban-list TTL', () => {
  it('takes whole seconds and durations, and nothing blank, zero, fractional or malformed', () => {
    expect([3600, '3600', '90m', '1h30m', '7d', '30d'].map(ttlSeconds)).toEqual([3600, 3600, 5400, 5400, 604_800, 2_592_000]);
    for (const bad of ['', ' ', 0, '0', '0s', -5, 1.5, '1.5h', 'soon', '1w', null, undefined, '1h 30m']) expect(ttlSeconds(bad), String(bad)).toBeNull();
  });
});

describe.skipIf(!sshdAvailable)('ban-list actions over ssh', () => {
  let sshd: TestSshd;
  let cscli: CscliStandIn;
  beforeAll(async () => {
    sshd = await startSshd();
    cscli = createCscliStandIn();
  });
  afterAll(async () => {
    cscli?.close();
    await sshd?.close();
  });

  const connection = (): ResolvedConnection => ({
    id: 'c1',
    kind: 'ssh',
    name: 'edge-fw',
    base_url: null,
    config: { host: '127.0.0.1', port: sshd.port, username: sshd.username, known_hosts: sshd.knownHosts, cscli: cscli.path },
    secret: sshd.clientKey,
    previous_secret: null,
    bot_token: null,
  });
  const context = (): ActionContext => ({
    runId: 'run-1',
    stepId: 'block',
    attempt: 1,
    deliveryId: 'delivery-1',
    caseId: null,
    connection: connection(),
    signal: AbortSignal.timeout(20_000),
    cases: null,
    approval: null,
    resume: null,
    now: () => new Date(),
  });
  const run = (action: ActionDefinition, input: unknown) => action.execute(v.parse(action.input, input), context()) as Promise<Record<string, any>>;
  const failure = (p: Promise<unknown>) =>
    p.then(
      () => null,
      (e: unknown) => e as ActionFailure,
    );

  it('blocks an IP, reading the exact decision id back by its marker, and never bypasses the allowlist', async () => {
    const out = await run(banlistBlock, { ip: '203.0.113.9', ttl: '1h', reason: 'ssh brute force' });
    const [decision] = cscli.decisions();
    expect(out).toMatchObject({ decision_id: decision!.id, value: '203.0.113.9', ttl_seconds: 3600, enforced: true, enforcement_performed: true });
    expect(decision!.scenario).toBe(`ssh brute force [${out.marker}]`);
    expect(out.marker).toMatch(/^svc:[0-9a-f-]{36}$/);
    const [add, list] = cscli.invocations();
    expect(add).toEqual(['decisions', 'add', '--ip', '203.0.113.9', '--duration', '3600s', '--type', 'ban', '--reason', `ssh brute force [${out.marker}]`]);
    expect(list).toEqual(['decisions', 'list', '-o', 'json', '--limit', '0', '--ip', '203.0.113.9']);

    // A second block of the same IP is told apart by its own marker.
    const again = await run(banlistBlock, { range: '198.51.100.0/24', ttl: 600 });
    expect(again.decision_id).not.toBe(out.decision_id);

    cscli.allowlist(['192.0.2.1']);
    const refused = await failure(run(banlistBlock, { ip: '192.0.2.1', ttl: 60 }));
    expect(refused).toMatchObject({ type: 'command_failed', retryable: false });
    expect(refused?.message).toContain('is allowlisted');
    expect(cscli.invocations().flat()).not.toContain('--bypass-allowlist');
  });

  it('fails unless a non-simulated ban carrying its marker is listed', async () => {
    cscli.simulation(true);
    try {
      const error = await failure(run(banlistBlock, { ip: '203.0.113.50', ttl: '1h' }));
      expect(error).toMatchObject({ type: 'ban_not_confirmed', retryable: false });
    } finally {
      cscli.simulation(false);
    }
  });

  it('refuses a blank, zero, malformed or over-30-day TTL and a bad target before anything runs', () => {
    const before = cscli.invocations().length;
    for (const input of [
      { ip: '203.0.113.10' },
      { ip: '203.0.113.10', ttl: '' },
      { ip: '203.0.113.10', ttl: 0 },
      { ip: '203.0.113.10', ttl: 'forever' },
      { ip: '203.0.113.10', ttl: '31d' },
      { ip: '203.0.113.10', ttl: 2_592_001 },
      { ip: 'not-an-ip', ttl: 60 },
      { range: '10.0.0.0/33', ttl: 60 },
      { ip: '203.0.113.10', range: '203.0.113.0/24', ttl: 60 },
      { ttl: 60 },
    ]) {
      expect(v.safeParse(banlistBlock.input, input).success, JSON.stringify(input)).toBe(false);
    }
    expect(cscli.invocations()).toHaveLength(before);
  });

  it('reads a decision by exact id, with an absent id as not_found', async () => {
    const blocked = await run(banlistBlock, { ip: '203.0.113.20', ttl: '30m' });
    expect(await run(banlistStatus, { decision_id: blocked.decision_id })).toMatchObject({
      decision_id: blocked.decision_id,
      state: 'active',
      enforced: true,
      enforcement_performed: false,
      decision: { value: '203.0.113.20' },
    });
    expect(await run(banlistStatus, { decision_id: 99_999 })).toEqual({
      decision_id: 99_999,
      state: 'not_found',
      enforced: false,
      enforcement_performed: false,
      decision: null,
    });
  });

  it('finds an id behind more than the CLI’s default 100 listed alerts', async () => {
    const [oldest] = cscli.seed(150);
    expect(await run(banlistStatus, { decision_id: oldest })).toMatchObject({ state: 'active' });
  });

  it('unblocks only the given id, proves it gone, and is a clean no-op for an absent id', async () => {
    const keep = await run(banlistBlock, { ip: '203.0.113.30', ttl: '2h' });
    const drop = await run(banlistBlock, { ip: '203.0.113.31', ttl: '2h' });
    expect(await run(banlistUnblock, { decision_id: drop.decision_id })).toEqual({
      decision_id: drop.decision_id,
      deleted: true,
      state: 'not_found',
      enforcement_performed: true,
    });
    expect(cscli.decisions().map((d) => d.id)).toContain(keep.decision_id);
    expect(cscli.decisions().map((d) => d.id)).not.toContain(drop.decision_id);
    expect(cscli.invocations().filter((a) => a[1] === 'delete')).toEqual([['decisions', 'delete', '--id', String(drop.decision_id)]]);
    const deletes = cscli.invocations().filter((a) => a[1] === 'delete').length;
    expect(await run(banlistUnblock, { decision_id: drop.decision_id })).toEqual({
      decision_id: drop.decision_id,
      deleted: false,
      state: 'not_found',
      enforcement_performed: false,
    });
    expect(cscli.invocations().filter((a) => a[1] === 'delete')).toHaveLength(deletes);
  });

  it('previews the command without running it or showing the key', async () => {
    const before = cscli.invocations().length;
    const shown = await banlistBlock.preview(v.parse(banlistBlock.input, { ip: '203.0.113.40', ttl: '1h' }), context());
    expect(shown).toMatchObject({
      host: '127.0.0.1',
      command: cscli.path,
      args: ['decisions', 'add', '--ip', '203.0.113.40', '--duration', '3600s', '--type', 'ban', '--reason', expect.stringContaining('[svc:<marker>]')],
    });
    expect(JSON.stringify(shown)).not.toContain('PRIVATE KEY');
    expect(cscli.invocations()).toHaveLength(before);
  });
});
