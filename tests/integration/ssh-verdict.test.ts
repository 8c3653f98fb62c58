/**
 * An ssh custom action's `effect.exit` over the real OpenSSH server (SPEC.md "Exit and
 * verdict handling": for ssh transports the exit code alone never decides): a stand-in of
 * `nft delete element` on the server answers like nft (exit 1 with "Could not process
 * rule: No such file or directory" for an element already gone, exit 1 with a syntax
 * error otherwise). The same exit code reads as already absent only with that wording.
 */
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actionListed, callAs, runWhen, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';
import { oneStepRunbookYaml } from '../support/runbook-definitions.ts';
import { sshdAvailable, startSshd, type TestSshd } from '../support/sshd.ts';

const root = testPerson('root@example.com', [{ team: null, role: 'admin' }]);

describe.skipIf(!sshdAvailable)('ssh exit wording over the real OpenSSH server', () => {
  let svc: InProcessService;
  let sshd: TestSshd;
  const dir = mkdtempSync(join(tmpdir(), 'svc-fake-nft-'));
  const state = join(dir, 'blocklist');
  const script = join(dir, 'nft');

  beforeAll(async () => {
    chmodSync(dir, 0o755);
    writeFileSync(state, '203.0.113.7\n', { mode: 0o666 });
    writeFileSync(
      script,
      [
        '#!/bin/sh',
        `state=${state}`,
        'if grep -qx "$1" "$state"; then grep -vx "$1" "$state" > "$state.new"; mv "$state.new" "$state"; exit 0; fi',
        'case "$1" in *bad*) echo "Error: syntax error, unexpected newline" >&2; exit 1;; esac',
        'echo "Error: Could not process rule: No such file or directory" >&2',
        'echo "delete element inet svc blocklist { $1 }" >&2',
        'exit 1',
        '',
      ].join('\n'),
      { mode: 0o755 },
    );
    sshd = await startSshd();
    svc = await startInProcessService(
      { server: false },
      {
        runbooks: {
          'unban.yml': oneStepRunbookYaml('unban', 'custom.fake_nft.delete', '{ ip: "{{ inputs.ip }}" }').replace(
            'steps:',
            'inputs:\n  - { name: ip, type: string, required: true }\nsteps:',
          ),
        },
      },
    );
    const conn = await callAs(svc, root, 'POST', '/connections', {
      kind: 'ssh',
      name: 'fw',
      secret: sshd.clientKey,
      config: { host: '127.0.0.1', port: sshd.port, username: sshd.username, known_hosts: sshd.knownHosts },
    });
    expect(conn.status, conn.text).toBe(201);
  }, 60_000);
  afterAll(async () => {
    await svc?.close();
    await sshd?.close();
  });

  it('reads exit 1 as already absent only with the absent-rule wording, and fails any other exit', async () => {
    const spec = {
      name: 'custom.fake_nft.delete',
      title: 'Delete a blocklist element',
      transport: 'ssh',
      default_connection: 'fw',
      inputs: [{ name: 'ip', type: 'string', required: true }],
      ssh: { command: script, args: ['{{ inputs.ip }}'] },
      effect: { exit: { already_absent: [{ exit_code: 1, wording: ['No such file or directory'] }] } },
      effect_type: 'notify',
      risk: 'write',
    };
    const created = await callAs(svc, root, 'POST', '/custom-actions', { spec });
    expect(created.status, created.text).toBe(201);
    await actionListed(svc, root, 'custom.fake_nft.delete');
    const yaml = oneStepRunbookYaml('unban', 'custom.fake_nft.delete', '{ ip: "{{ inputs.ip }}" }').replace(
      'steps:',
      'inputs:\n  - { name: ip, type: string, required: true }\nsteps:',
    );
    const saved = await callAs(svc, root, 'POST', '/runbooks/unban', { yaml_text: yaml });
    expect(saved.status, saved.text).toBeLessThan(300);
    const run = async (ip: string) => {
      const c = await callAs(svc, root, 'POST', '/cases', { title: `unban ${ip}`, severity: 'low' });
      const queued = await callAs(svc, root, 'POST', `/cases/${c.body.id}/runbooks/unban/run`, { inputs: { ip } });
      expect(queued.status, queued.text).toBe(202);
      const done = await runWhen(svc, root, queued.body.id, /^(succeeded|failed)$/);
      return done.action_log.find((row: any) => row.step_id === 'call');
    };
    expect((await run('203.0.113.7')).status).toBe('ok');
    expect(readFileSync(state, 'utf8')).toBe('');
    expect((await run('203.0.113.7')).error).toBe('vendor_already_absent: custom.fake_nft.delete: Error: Could not process rule: No such file or directory');
    expect((await run('bad-element')).error).toBe('command_failed: custom.fake_nft.delete: exited with 1: Error: syntax error, unexpected newline');
  });
});
