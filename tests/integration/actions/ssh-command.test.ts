/**
 * ssh.command against a real OpenSSH server on 127.0.0.1 (own config, high port, key
 * auth; SPEC.md "Generic actions"): arguments with spaces, quotes, `;` and `$(...)`
 * arrive as one literal argument each; a non-zero exit is a step error; the host key is
 * pinned or explicitly not checked; the command shape is refused before anything runs;
 * previews and errors never show the private key.
 */
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActionContext, ActionFailure, ResolvedConnection } from '../../../adapters/actions/action.ts';
import { sshCommand } from '../../../adapters/actions/ssh-command.ts';
import { sshdAvailable, startSshd, type TestSshd } from '../../support/sshd.ts';

describe.skipIf(!sshdAvailable)('ssh.command', () => {
  let sshd: TestSshd;
  beforeAll(async () => {
    sshd = await startSshd();
  });
  afterAll(async () => sshd?.close());

  const connection = (config: Record<string, unknown>, secret?: string): ResolvedConnection => ({
    id: 'c1',
    kind: 'ssh',
    name: 'bastion',
    base_url: null,
    config: { host: '127.0.0.1', port: sshd.port, username: sshd.username, ...config },
    secret: secret ?? sshd.clientKey,
    previous_secret: null,
    bot_token: null,
  });
  const context = (conn: ResolvedConnection): ActionContext => ({
    runId: 'run-1',
    stepId: 'ssh',
    attempt: 1,
    deliveryId: 'delivery-1',
    caseId: null,
    connection: conn,
    signal: AbortSignal.timeout(20_000),
    cases: null,
    approval: null,
    resume: null,
    now: () => new Date(),
  });
  const run = (input: unknown, conn: ResolvedConnection) => sshCommand.execute(v.parse(sshCommand.input, input), context(conn));
  const failure = (p: Promise<unknown>) =>
    p.then(
      () => null,
      (e: unknown) => e as ActionFailure,
    );

  it('passes each argument as one literal word, with a pinned host key', async () => {
    const args = ['one two', "it's", 'a;b && echo pwned', '$(id)', '`uname`', '"quoted"', ''];
    const out = await run({ command: 'printf', args: ['%s\\n', ...args] }, connection({ known_hosts: sshd.knownHosts }));
    expect(out.exit_code).toBe(0);
    expect(out.stdout).toBe(args.map((a) => `${a}\n`).join(''));
    expect(out.stdout.split('\n')).not.toContain('pwned');
  });

  it('makes a non-zero exit a step error, not retried', async () => {
    const error = await failure(run({ command: 'false' }, connection({ accept_unknown_host_key: true })));
    expect(error).toMatchObject({ type: 'command_failed', retryable: false, message: `ssh.command: false on 127.0.0.1:${sshd.port} exited with 1` });
  });

  it('refuses a host key other than the pinned one, and a connection without a host-key policy', async () => {
    expect(await failure(run({ command: 'true' }, connection({ known_hosts: sshd.otherKnownHosts })))).toMatchObject({
      type: 'host_key_mismatch',
      retryable: false,
    });
    expect(await failure(run({ command: 'true' }, connection({})))).toMatchObject({ type: 'connection_invalid' });
  });

  it('refuses a key the server does not know, never quoting it', async () => {
    const error = await failure(run({ command: 'true' }, connection({ accept_unknown_host_key: true }, sshd.unauthorizedKey)));
    expect(error).toMatchObject({
      type: 'auth_failed',
      retryable: false,
      message: `ssh.command: 127.0.0.1:${sshd.port} refused the key of '${sshd.username}'`,
    });
    expect(JSON.stringify(error)).not.toContain('PRIVATE KEY');
  });

  it('refuses a command that is not a bare name before anything runs, also in a dry run', () => {
    for (const command of ['rm -rf /', 'ls;id', '$(id)', 'a b']) {
      expect(v.safeParse(sshCommand.input, { command }).success, command).toBe(false);
    }
  });

  it('previews host, command and the quoted line, never the key', async () => {
    const preview = await sshCommand.preview(
      v.parse(sshCommand.input, { command: 'logger', args: ["it's blocked"] }),
      context(connection({ known_hosts: sshd.knownHosts })),
    );
    expect(preview).toEqual({
      host: '127.0.0.1',
      port: sshd.port,
      username: sshd.username,
      host_key: 'pinned',
      command: 'logger',
      args: ["it's blocked"],
      command_line: "logger 'it'\\''s blocked'",
    });
    expect(JSON.stringify(preview)).not.toContain('PRIVATE KEY');
  });
});
