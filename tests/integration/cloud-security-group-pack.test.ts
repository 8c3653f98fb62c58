/**
 * The shipped `cloud_security_group` adapter pack (issue 22: ssh cloud CLI, ip, read
 * declares `ingress_rules` = 0) over the real OpenSSH server on 127.0.0.1, against a
 * stand-in of the AWS CLI v2 that keeps security groups in a file and answers in the
 * CLI's shapes (tests/support/aws-cli-standin.ts, shared/fixtures/vendors/aws_ec2_cli), on
 * the embedded engine (peerEngines). A block revokes the ingress rule that lets the address in, the read-back
 * counts the rules still letting it in, and the release authorizes the rule again; the
 * CLI's own wording decides, never the exit code alone: InvalidPermission.NotFound on a
 * block is already blocked, InvalidPermission.Duplicate on a reversal already undone, the
 * default-VPC exit 0 with UnknownIpPermissions affected nothing, InvalidGroup.NotFound
 * fails with the CLI's line, and another service error with the same exit 254 fails.
 *
 * The registry the service installs from is packs/cloud_security_group.yaml with one
 * change, checked below: `ssh.command` names the stand-in's path instead of
 * /usr/local/bin/aws, where nothing may be written on this machine.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseDocument } from 'yaml';
import { withIntegrity } from '../../domain/integration-packs/integrity.ts';
import { createAwsCliStandIn, type AwsCliStandIn } from '../support/aws-cli-standin.ts';
import { manualClock } from '../support/clock.ts';
import { readFixtureJson } from '../support/fixtures.ts';
import { callAs, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';
import { writeRegistry } from '../support/pack-registry.ts';
import { ipStepRunbookYaml } from '../support/runbook-definitions.ts';
import { peerEngines } from '../support/service-process.ts';
import { installAndBindIpAdapter, runIpStep } from '../support/shipped-adapters.ts';
import { sshdAvailable, startSshd, type TestSshd } from '../support/sshd.ts';

const root = testPerson('root@example.com', [{ team: null, role: 'admin' }]);
const PACK = 'cloud_security_group';
const GROUP = 'sg-0a1b2c3d4e5f60718';
const REGION = 'eu-west-1';
const shippedText = readFileSync(join(import.meta.dirname, '../../packs/cloud_security_group.yaml'), 'utf8');

const runbooks = {
  'block.yml': ipStepRunbookYaml('sg-block', 'response.ip_block', ', ttl_seconds: 600'),
  'short.yml': ipStepRunbookYaml('sg-block-short', 'response.ip_block', ', ttl_seconds: 60'),
  'status.yml': ipStepRunbookYaml('sg-status', 'response.ip_status'),
  'unblock.yml': ipStepRunbookYaml('sg-unblock', 'response.ip_unblock'),
};

/** The shipped pack with every action's command pointed at `command`, rebuilt with its integrity block. */
function packCalling(command: string): string {
  const doc = parseDocument(shippedText);
  const actions = (parse(shippedText) as { actions: unknown[] }).actions;
  for (const i of actions.keys()) doc.setIn(['actions', i, 'spec', 'ssh', 'command'], command);
  const built = withIntegrity(String(doc));
  if (!built.ok) throw new Error(built.msg);
  return built.text;
}

/** A pack document as data, without its integrity block and with every command replaced by `command`. */
function packData(text: string, command: string): unknown {
  const { integrity: _integrity, ...data } = parse(text) as { integrity: unknown; actions: { spec: { ssh: { command: string } } }[] };
  for (const action of data.actions) action.spec.ssh.command = command;
  return data;
}

/** Runs the stand-in here, outside ssh: its exit code, stdout and stderr. */
function runLocally(aws: AwsCliStandIn, args: string[]): { code: number; stdout: string; stderr: string } {
  try {
    return { code: 0, stdout: execFileSync(aws.path, args, { stdio: 'pipe' }).toString(), stderr: '' };
  } catch (error) {
    const e = error as { status: number; stdout: Buffer; stderr: Buffer };
    return { code: e.status, stdout: e.stdout.toString(), stderr: e.stderr.toString() };
  }
}

const permissions = (ip: string) => JSON.stringify([{ IpProtocol: 'tcp', FromPort: 22, ToPort: 22, IpRanges: [{ CidrIp: `${ip}/32` }] }]);

describe('the AWS CLI stand-in', () => {
  let aws: AwsCliStandIn;
  beforeAll(() => {
    aws = createAwsCliStandIn([{ id: GROUP, rules: [{ protocol: 'tcp', port: 22, cidr: '203.0.113.7/32' }] }]);
  });
  afterAll(() => aws?.close());
  const call = (verb: string, ...more: string[]) => runLocally(aws, ['ec2', verb, '--region', REGION, ...more]);

  it('answers the edge cases of the fixture with their exit codes and the botocore error line', () => {
    const fixture = readFixtureJson<{ cases: { cmd: string; exit: number; stderr_contains?: string; stdout_shape?: Record<string, unknown> }[] }>(
      'vendors/aws_ec2_cli/cli_edge_behaviour.json',
    );
    const [duplicate, notFound, defaultVpc, missingGroup] = fixture.cases;
    const authorize = call('authorize-security-group-ingress', '--group-id', GROUP, '--ip-permissions', permissions('203.0.113.7'));
    expect(authorize).toMatchObject({ code: duplicate?.exit, stdout: '' });
    expect(authorize.stderr).toContain(duplicate?.stderr_contains);
    expect(authorize.stderr).toMatch(/^\nAn error occurred \(InvalidPermission\.Duplicate\) when calling the AuthorizeSecurityGroupIngress operation: .+\n$/);
    const revoke = call('revoke-security-group-ingress', '--group-id', GROUP, '--ip-permissions', permissions('198.51.100.1'));
    expect(revoke.code).toBe(notFound?.exit);
    expect(revoke.stderr).toContain(notFound?.stderr_contains);
    aws.defaultVpc(GROUP, true);
    const unknown = call('revoke-security-group-ingress', '--group-id', GROUP, '--ip-permissions', permissions('198.51.100.1'));
    expect(unknown.code).toBe(defaultVpc?.exit);
    const answer = JSON.parse(unknown.stdout);
    expect(Object.keys(answer)).toEqual(Object.keys(defaultVpc?.stdout_shape ?? {}));
    expect(answer).toEqual({
      Return: true,
      UnknownIpPermissions: [
        { IpProtocol: 'tcp', FromPort: 22, ToPort: 22, UserIdGroupPairs: [], IpRanges: [{ CidrIp: '198.51.100.1/32' }], Ipv6Ranges: [], PrefixListIds: [] },
      ],
    });
    aws.defaultVpc(GROUP, false);
    const missing = call('describe-security-groups', '--group-ids', 'sg-0ffffffffffffffff');
    expect(missing.code).toBe(missingGroup?.exit);
    expect(missing.stderr).toContain(missingGroup?.stderr_contains);
    expect(call('describe-security-groups', '--group-ids', GROUP, '--no-such-flag', 'x').code).toBe(252);
    expect(runLocally(aws, ['ec2', 'describe-security-groups', '--group-ids', GROUP]).code).toBe(253);
    expect(aws.rules(GROUP)).toHaveLength(1);
    expect(aws.invocations()).toHaveLength(6);
  });
});

describe.skipIf(!sshdAvailable).each(peerEngines)('the shipped cloud_security_group pack over ssh on $name', ({ server }) => {
  const clock = manualClock(new Date());
  let svc: InProcessService;
  let sshd: TestSshd;
  let aws: AwsCliStandIn;
  let registry: string;

  beforeAll(async () => {
    sshd = await startSshd();
    aws = createAwsCliStandIn([
      {
        id: GROUP,
        rules: ['203.0.113.7', '203.0.113.8', '203.0.113.9', '203.0.113.10', '203.0.113.11', '198.51.100.77']
          .map((ip) => ({ protocol: 'tcp', port: 22, cidr: `${ip}/32`, description: 'partner bastion' }))
          .concat([{ protocol: 'tcp', port: 443, cidr: '203.0.113.7/32', description: 'partner portal' }]),
      },
    ]);
    registry = mkdtempSync(join(tmpdir(), 'svc-sg-registry-'));
    writeRegistry(registry, [{ id: PACK, version: '1.0.0', text: packCalling(aws.path) }]);
    svc = await startInProcessService({ server }, { runbooks, clock: clock.now, extraEnv: { SVC_PACKS_DIR: registry } });
    const conn = await callAs(svc, root, 'POST', '/connections', {
      kind: 'ssh',
      name: 'aws-mgmt',
      secret: sshd.clientKey,
      config: { host: '127.0.0.1', port: sshd.port, username: sshd.username, known_hosts: sshd.knownHosts },
    });
    expect(conn.status, conn.text).toBe(201);
    await installAndBindIpAdapter(svc, root, PACK, 'aws-mgmt', { group_id: GROUP, region: REGION, protocol: 'tcp', port: '22' });
  }, 60_000);
  afterAll(async () => {
    await svc?.close();
    await sshd?.close();
    aws?.close();
    if (registry) rmSync(registry, { recursive: true, force: true });
  });

  const run = async (slug: string, ip: string) => (await runIpStep(svc, root, slug, ip)).step;
  const effect = async (id: string) => (await callAs(svc, root, 'GET', `/effects/${id}`)).body;
  /** The group's port-22 rules for `ip`. */
  const allowing = (ip: string) => aws.rules(GROUP).filter((r) => r.cidr === `${ip}/32` && r.port === 22);
  const newestEffectOn = async (ip: string): Promise<string> => (await callAs(svc, root, 'GET', `/effects?target_type=ip&target=${ip}`)).body.items[0].id;
  const lastCall = () => aws.invocations().at(-1) ?? [];
  const reversalOf = async (id: string) =>
    ((await callAs(svc, root, 'GET', '/audit?action=effect.reverse')).body.items as any[]).find((e) => e.target.id === id)?.detail;

  it('is the shipped pack with only the command changed, and passes its own fixtures', async () => {
    expect(packData(packCalling(aws.path), 'aws')).toEqual(packData(shippedText, 'aws'));
    expect((parse(shippedText) as { actions: { spec: { ssh: { command: string } } }[] }).actions.map((a) => a.spec.ssh.command)).toEqual(
      Array(3).fill('/usr/local/bin/aws'),
    );
    const tested = await callAs(svc, root, 'POST', `/integration-packs/registry/${PACK}/test`, {});
    expect(tested.status, tested.text).toBe(200);
    expect(tested.body.summary.fail, JSON.stringify(tested.body.rows)).toBe(0);
    expect(tested.body.rows.filter((r: any) => r.check === 'fixtures').map((r: any) => r.status)).toEqual(Array(4).fill('pass'));
  });

  it('blocks by revoking the rule that lets the address in, reads back by count, and releases by authorizing it again', async () => {
    expect(await run('sg-status', '203.0.113.7')).toMatchObject({
      status: 'ok',
      output: { target: '203.0.113.7', enforced: false, enforcement_performed: false, state: 'not_enforced' },
    });
    const [allowed] = allowing('203.0.113.7');
    const blocked = await run('sg-block', '203.0.113.7');
    expect(blocked.status, JSON.stringify(blocked)).toBe('ok');
    expect(blocked.output).toMatchObject({ target: '203.0.113.7', enforced: true, enforcement_performed: true });
    expect(lastCall()).toEqual([
      'ec2',
      'revoke-security-group-ingress',
      '--region',
      REGION,
      '--group-id',
      GROUP,
      '--ip-permissions',
      permissions('203.0.113.7'),
      '--output',
      'json',
      '--no-cli-pager',
      '--query',
      '{affected: UnknownIpPermissions && `0` || `1`, rule_id: RevokedSecurityGroupRules[0].SecurityGroupRuleId}',
    ]);
    expect(allowing('203.0.113.7')).toEqual([]);
    expect(
      aws
        .rules(GROUP)
        .filter((r) => r.cidr === '203.0.113.7/32')
        .map((r) => r.port),
    ).toEqual([443]);
    const id = blocked.output.effect_id;
    expect(await effect(id)).toMatchObject({ status: 'active', adapter_id: PACK, handle: allowed?.id, already_enforced: false, enforcement_performed: true });
    expect((await run('sg-status', '203.0.113.7')).output).toEqual({ target: '203.0.113.7', enforced: true, enforcement_performed: false, state: 'enforced' });
    expect(lastCall().slice(0, 7)).toEqual(['ec2', 'describe-security-groups', '--region', REGION, '--group-ids', GROUP, '--output']);

    const released = await callAs(svc, root, 'POST', `/effects/${id}/release`);
    expect(released.status, released.text).toBe(200);
    expect(released.body).toMatchObject({ id, status: 'reversed' });
    expect(lastCall().slice(0, 2)).toEqual(['ec2', 'authorize-security-group-ingress']);
    expect(allowing('203.0.113.7')).toEqual([
      { id: expect.stringMatching(/^sgr-/), protocol: 'tcp', port: 22, cidr: '203.0.113.7/32', description: `svc: restores ${allowed?.id}` },
    ]);
    expect(await reversalOf(id)).toMatchObject({ reason: 'released', outcome: 'reversed' });
    expect((await run('sg-status', '203.0.113.7')).output).toMatchObject({ enforced: false, state: 'not_enforced' });
  });

  it('reads InvalidPermission.NotFound on a block as already blocked, and its release adds no rule', async () => {
    const blocked = await run('sg-block', '198.51.100.20');
    expect(blocked.status, JSON.stringify(blocked)).toBe('ok');
    expect(blocked.output).toMatchObject({ enforced: true, enforcement_performed: false });
    expect(await effect(blocked.output.effect_id)).toMatchObject({ status: 'active', already_enforced: true, handle: null });
    const calls = aws.invocations().length;
    const released = await run('sg-unblock', '198.51.100.20');
    expect(released.status, JSON.stringify(released)).toBe('ok');
    expect(await effect(blocked.output.effect_id)).toMatchObject({ status: 'reversed' });
    expect(await reversalOf(blocked.output.effect_id)).toMatchObject({ outcome: 'already_reversed' });
    expect(aws.invocations()).toHaveLength(calls);
    expect(allowing('198.51.100.20')).toEqual([]);
  });

  it('reads InvalidPermission.Duplicate on a reversal as already undone: the rule put back by hand stays the only one', async () => {
    const blocked = await run('sg-block', '203.0.113.8');
    expect(blocked.output).toMatchObject({ enforced: true, enforcement_performed: true });
    aws.allow(GROUP, { protocol: 'tcp', port: 22, cidr: '203.0.113.8/32', description: 'put back by hand' });
    const released = await run('sg-unblock', '203.0.113.8');
    expect(released.status, JSON.stringify(released)).toBe('ok');
    expect(lastCall().slice(0, 2)).toEqual(['ec2', 'authorize-security-group-ingress']);
    expect(await effect(blocked.output.effect_id)).toMatchObject({ status: 'reversed' });
    expect(await reversalOf(blocked.output.effect_id)).toMatchObject({ outcome: 'already_reversed' });
    expect(allowing('203.0.113.8').map((r) => r.description)).toEqual(['put back by hand']);
  });

  it('refuses an unblock with no effect of ours behind it before any CLI call, so it never lets an address in', async () => {
    const calls = aws.invocations().length;
    const refused = await run('sg-unblock', '192.0.2.50');
    expect(refused.status).toBe('error');
    expect(refused.error).toMatch(/^adapter_input_unsatisfied:rule_id/);
    expect(aws.invocations()).toHaveLength(calls);
    expect(allowing('192.0.2.50')).toEqual([]);
  });

  it('never reads the default-VPC exit 0 with UnknownIpPermissions as a block that happened', async () => {
    aws.defaultVpc(GROUP, true);
    try {
      const blocked = await run('sg-block', '198.51.100.30');
      expect(blocked.status).toBe('error');
      expect(blocked.error).toBe('adapter_affected_nothing: the vendor reports that no target was affected');
      // What the CLI answered: exit 0, the rule listed as unknown, nothing revoked.
      const revoke = lastCall();
      expect(revoke[1]).toBe('revoke-security-group-ingress');
      expect(runLocally(aws, revoke)).toEqual({ code: 0, stdout: '{\n    "affected": 0,\n    "rule_id": null\n}\n', stderr: '' });
      expect(JSON.parse(runLocally(aws, revoke.slice(0, -2)).stdout)).toMatchObject({
        Return: true,
        UnknownIpPermissions: [{ IpRanges: [{ CidrIp: '198.51.100.30/32' }] }],
      });
      const effects = (await callAs(svc, root, 'GET', '/effects?target_type=ip&target=198.51.100.30')).body.items;
      expect(effects).toMatchObject([{ status: 'failed', enforcement_performed: false, handle: null }]);
      expect(effects[0].last_error).toContain('adapter_affected_nothing');
      expect((await run('sg-unblock', '198.51.100.30')).error).toMatch(/^adapter_input_unsatisfied:rule_id/);

      // A rule the default-VPC group does hold is revoked as anywhere else.
      const present = await run('sg-block', '203.0.113.9');
      expect(present.output).toMatchObject({ enforced: true, enforcement_performed: true });
      expect(allowing('203.0.113.9')).toEqual([]);
      expect((await run('sg-unblock', '203.0.113.9')).status).toBe('ok');
      expect(allowing('203.0.113.9')).toHaveLength(1);
    } finally {
      aws.defaultVpc(GROUP, false);
    }
  });

  it('fails a block on any other service error with the same exit 254: the wording decides, not the exit code', async () => {
    aws.failNext('UnauthorizedOperation', 'You are not authorized to perform this operation.');
    const unauthorized = await run('sg-block', '203.0.113.10');
    expect(unauthorized.status).toBe('error');
    expect(unauthorized.error).toBe(
      'vendor_refused: custom.cloud_security_group.block: An error occurred (UnauthorizedOperation) when calling the RevokeSecurityGroupIngress operation: You are not authorized to perform this operation.',
    );
    expect(await effect(await newestEffectOn('203.0.113.10'))).toMatchObject({ status: 'failed', enforcement_performed: false });
    aws.failNext('RequestLimitExceeded', 'Request limit exceeded.');
    const throttled = await run('sg-block', '203.0.113.10');
    expect(throttled.error).toBe(
      'command_failed: custom.cloud_security_group.block: exited with 254: An error occurred (RequestLimitExceeded) when calling the RevokeSecurityGroupIngress operation: Request limit exceeded.',
    );
    expect(allowing('203.0.113.10')).toHaveLength(1);
  });

  it('authorizes the rule again when the TTL ends, through the worker and the injected clock', async () => {
    const blocked = await run('sg-block-short', '198.51.100.77');
    expect(blocked.output).toMatchObject({ enforced: true, enforcement_performed: true });
    expect(allowing('198.51.100.77')).toEqual([]);
    clock.advance(61_000);
    await expect.poll(async () => (await effect(blocked.output.effect_id)).status, { timeout: 15_000 }).toBe('reversed');
    expect(allowing('198.51.100.77')).toHaveLength(1);
  });

  it('fails every action on a missing group with the CLI line InvalidGroup.NotFound, and reverses nothing as if it were gone', async () => {
    const blocked = await run('sg-block', '203.0.113.11');
    expect(blocked.output).toMatchObject({ enforced: true, enforcement_performed: true });
    aws.deleteGroup(GROUP);
    const read = await run('sg-status', '203.0.113.11');
    expect(read.status).toBe('error');
    expect(read.error).toBe(
      `vendor_refused: custom.cloud_security_group.status: An error occurred (InvalidGroup.NotFound) when calling the DescribeSecurityGroups operation: The security group '${GROUP}' does not exist`,
    );
    const block = await run('sg-block', '203.0.113.7');
    expect(block.error).toBe(
      `vendor_refused: custom.cloud_security_group.block: An error occurred (InvalidGroup.NotFound) when calling the RevokeSecurityGroupIngress operation: The security group '${GROUP}' does not exist`,
    );
    const released = await callAs(svc, root, 'POST', `/effects/${blocked.output.effect_id}/release`);
    expect(released.status, released.text).toBe(200);
    expect(released.body).toMatchObject({ status: 'reversal_failed', reversal_attempts: 1 });
    expect(released.body.last_error).toContain('vendor_refused');
  });
});
