/**
 * Custom actions running in runbooks on the real service and worker, on every engine
 * (SPEC.md "Custom action (operator-authored)"; docs/configuration.md "Custom actions"):
 * a custom HTTP action against a local receiver (the request it sends, the outputs it
 * extracts, redaction in the action log), a custom SSH action against the real OpenSSH
 * server (an argument with quotes and `;` arriving as one argument, its admin gate in a
 * manual run, its audit entry), GET /actions listing them, dry-run previews, and
 * runbooks naming an unknown or a disabled custom action refused at save.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver } from '../support/receiver.ts';
import { actionListed, callAs, runWhen, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';
import { e2eEngines } from '../support/service-process.ts';
import { sshdAvailable, startSshd, type TestSshd } from '../support/sshd.ts';
import { oneStepRunbookYaml } from '../support/runbook-definitions.ts';

const root = testPerson('root@example.com', [{ team: null, role: 'admin' }]);

const lookup = {
  name: 'custom.test.lookup',
  title: 'Host lookup',
  transport: 'http',
  default_connection: 'intel',
  inputs: [
    { name: 'ip', type: 'string', required: true },
    { name: 'api_key', type: 'string', secret: true },
    { name: 'count', type: 'integer', required: true },
    { name: 'note', type: 'string' },
  ],
  http: {
    method: 'POST',
    path: '/hosts/{{ inputs.ip }}/scan',
    headers: { 'X-Api-Key': '{{ inputs.api_key }}' },
    query: { limit: '{{ inputs.count }}', note: '{{ inputs.note }}' },
    body: { ip: '{{ inputs.ip }}', count: '{{ inputs.count }}', label: 'n={{ inputs.count }}' },
  },
  outputs: [
    { name: 'org', path: '$.data.org', type: 'string' },
    { name: 'first', path: '$.items[0].name', type: 'string' },
    { name: 'score', path: '$.score', type: 'number' },
    { name: 'missing', path: '$.nope', type: 'string' },
    { name: 'token', path: '$.data.token', type: 'string' },
  ],
  redact: ['$.output.token'],
  effect_type: 'enrich',
  risk: 'read',
};

const SCRIPT = `printf '{"first":"%s","argc":%d}' "$(printf '%s' "$1" | base64 | tr -d '\\n')" "$#"`;
const shell = {
  name: 'custom.test.shell',
  title: 'Echo one argument back',
  transport: 'ssh',
  default_connection: 'jump',
  inputs: [{ name: 'msg', type: 'string', required: true }],
  ssh: { command: '/bin/sh', args: ['-c', SCRIPT, 'sh', '{{ inputs.msg }}'] },
  outputs: [
    { name: 'first', path: '$.first', type: 'string' },
    { name: 'argc', path: '$.argc', type: 'integer' },
  ],
  redact: ['$.input.msg'],
  effect_type: 'arbitrary',
  risk: 'arbitrary',
};

const runbook = oneStepRunbookYaml;

type Run = { id: string; status: string; error: string | null; steps: any[]; action_log: any[] };

describe.each(e2eEngines)('custom actions in runbooks on $name', ({ server }) => {
  let svc: InProcessService;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let sshd: TestSshd | null = null;
  let caseId = '';
  let lookupId = '';

  beforeAll(async () => {
    receiver = await startReceiver((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ data: { org: 'ACME', token: 'tok-from-vendor' }, items: [{ name: 'first-item' }], score: 4.5, raw: 'kept out' }));
    });
    if (sshdAvailable) sshd = await startSshd();
    svc = await startInProcessService({ server });
    const conn = await callAs(svc, root, 'POST', '/connections', { kind: 'http', name: 'intel', base_url: `${receiver.url}/base`, secret: 'conn-secret-1' });
    expect(conn.status, conn.text).toBe(201);
    const created = await callAs(svc, root, 'POST', '/custom-actions', { spec: lookup });
    expect(created.status, created.text).toBe(201);
    lookupId = created.body.id;
    const kase = await callAs(svc, root, 'POST', '/cases', { title: 'Custom actions', severity: 'high', team: null });
    expect(kase.status, kase.text).toBe(201);
    caseId = kase.body.id;
    await listed('custom.test.lookup');
  }, 60_000);
  afterAll(async () => {
    await svc?.close();
    await receiver?.close();
    await sshd?.close();
  });

  const listed = (name: string, present = true) => actionListed(svc, root, name, present);
  const save = (slug: string, yaml: string) => callAs(svc, root, 'POST', `/runbooks/${slug}`, { yaml_text: yaml });
  const start = async (slug: string, body: Record<string, unknown> = {}) => {
    const queued = await callAs(svc, root, 'POST', `/cases/${caseId}/runbooks/${slug}/run`, body);
    expect(queued.status, queued.text).toBe(202);
    return queued.body.id as string;
  };
  const until = (id: string, pattern: RegExp): Promise<Run> => runWhen(svc, root, id, pattern);

  it('lists a created custom action in GET /actions as implemented, with its input schema', async () => {
    const entry = (await callAs(svc, root, 'GET', '/actions')).body.find((a: { name: string }) => a.name === 'custom.test.lookup');
    expect(entry).toMatchObject({ implemented: true, risk: 'read', connection_kind: 'http' });
    expect(entry.input_schema).toMatchObject({ type: 'object', required: ['ip', 'count'], additionalProperties: false });
  });

  it('sends the declared request to the default connection, extracts the outputs and redacts the action log', async () => {
    const saved = await save('lookup', runbook('lookup', 'custom.test.lookup', '{ ip: "10.0.0.1/24", api_key: "k-123", count: 3 }'));
    expect(saved.status, saved.text).toBeLessThan(300);
    const run = await until(await start('lookup'), /^(succeeded|failed)$/);
    expect(run.status, JSON.stringify(run)).toBe('succeeded');

    expect(receiver.received).toHaveLength(1);
    const [request] = receiver.received;
    expect(request?.method).toBe('POST');
    // The path value is one encoded segment; the query field of an absent input is not sent.
    expect(request?.path).toBe('/base/hosts/10.0.0.1%2F24/scan?limit=3');
    expect(request?.headers).toMatchObject({ authorization: 'Bearer conn-secret-1', 'x-api-key': 'k-123', 'content-type': 'application/json' });
    expect(request?.headers['idempotency-key']).toMatch(/^msg_/);
    expect(JSON.parse(request?.body ?? '')).toEqual({ ip: '10.0.0.1/24', count: 3, label: 'n=3' });

    const step = run.steps.find((s) => s.id === 'call');
    expect(step.output).toEqual({ org: 'ACME', first: 'first-item', score: 4.5, missing: null, token: '[redacted]' });
    const log = run.action_log.find((r) => r.step_id === 'call' && r.status === 'ok');
    expect(log.input).toEqual({ ip: '10.0.0.1/24', api_key: '[redacted]', count: 3 });
    expect(log.output.token).toBe('[redacted]');
    const text = JSON.stringify(run);
    for (const secret of ['k-123', 'tok-from-vendor', 'conn-secret-1', 'kept out']) expect(text).not.toContain(secret);
  });

  it('previews the request of a dry run, auth and secret inputs redacted, and sends nothing', async () => {
    const before = receiver.received.length;
    const run = await until(await start('lookup', { dry_run: true }), /^(succeeded|failed)$/);
    expect(run.status, JSON.stringify(run)).toBe('succeeded');
    expect(receiver.received).toHaveLength(before);
    const preview = run.steps.find((s) => s.id === 'call').output;
    expect(preview).toMatchObject({
      method: 'POST',
      url: `${receiver.url}/base/hosts/10.0.0.1%2F24/scan?limit=3`,
      headers: { authorization: '[redacted]', 'x-api-key': '[redacted]' },
      query: { limit: '3' },
      body: { ip: '10.0.0.1/24', count: 3, label: 'n=3' },
    });
    expect(JSON.stringify(run)).not.toContain('conn-secret-1');
    expect(JSON.stringify(run)).not.toContain('k-123');
  });

  it('refuses at save a runbook naming an unknown custom action, or a disabled one, and fails a step calling a disabled one', async () => {
    const unknown = await save('unknown-custom', runbook('unknown-custom', 'custom.test.nope', '{ ip: "x" }'));
    expect(unknown.status).toBe(422);
    expect(unknown.text).toContain('custom.test.nope');

    expect((await callAs(svc, root, 'POST', `/custom-actions/${lookupId}/disable`)).status).toBe(200);
    await listed('custom.test.lookup', false);
    const disabled = await save('disabled-custom', runbook('disabled-custom', 'custom.test.lookup', '{ ip: "x", count: 1 }'));
    expect(disabled.status).toBe(422);
    expect(disabled.text).toContain('disabled');

    const run = await until(await start('lookup'), /^(succeeded|failed)$/);
    expect(run.status).toBe('failed');
    expect(run.steps.find((s) => s.id === 'call').error).toContain("custom action 'custom.test.lookup' is disabled");

    expect((await callAs(svc, root, 'POST', `/custom-actions/${lookupId}/enable`)).status).toBe(200);
    await listed('custom.test.lookup');
  });

  it.skipIf(!sshdAvailable)(
    'runs a custom SSH action after an admin approves it in a manual run: quotes and ; arrive as one argument, audited, redacted',
    async () => {
      if (!sshd) throw new Error('sshd did not start');
      const conn = await callAs(svc, root, 'POST', '/connections', {
        kind: 'ssh',
        name: 'jump',
        secret: sshd.clientKey,
        config: { host: '127.0.0.1', port: sshd.port, username: sshd.username, known_hosts: sshd.knownHosts },
      });
      expect(conn.status, conn.text).toBe(201);
      const created = await callAs(svc, root, 'POST', '/custom-actions', { spec: shell, acknowledge_danger: true });
      expect(created.status, created.text).toBe(201);
      await listed('custom.test.shell');

      const msg = `it's "quoted"; echo pwned $(id) \`id\``;
      const saved = await save('shell', runbook('shell', 'custom.test.shell', `{ msg: ${JSON.stringify(msg)} }`));
      expect(saved.status, saved.text).toBeLessThan(300);

      // Manual, autonomous: an arbitrary-tier custom action still waits for an admin.
      const id = await start('shell');
      const waiting = await until(id, /^(waiting_approval|succeeded|failed)$/);
      expect(waiting.status).toBe('waiting_approval');
      const approved = await callAs(svc, root, 'POST', `/runs/${id}/approve`, { step_id: 'call', note: 'checked' });
      expect(approved.status, approved.text).toBe(200);
      const run = await until(id, /^(succeeded|failed)$/);
      expect(run.status, JSON.stringify(run)).toBe('succeeded');

      const step = run.steps.find((s) => s.id === 'call');
      expect(step.output.exit_code).toBe(0);
      expect(step.output.argc).toBe(1);
      expect(Buffer.from(step.output.first, 'base64').toString('utf8')).toBe(msg);
      const log = run.action_log.find((r) => r.step_id === 'call' && r.status === 'ok');
      expect(log.input).toEqual({ msg: '[redacted]' });

      const audit = await callAs(svc, root, 'GET', '/audit?action=custom_action.execute');
      expect(audit.status, audit.text).toBe(200);
      expect(audit.body.items.filter((e: any) => e.target?.id === id)).toEqual([
        expect.objectContaining({
          action: 'custom_action.execute',
          detail: expect.objectContaining({ action: 'custom.test.shell', step_id: 'call', status: 'ok' }),
        }),
      ]);

      // A dry run previews the command line and opens no gate.
      const dry = await until(await start('shell', { dry_run: true }), /^(waiting_approval|succeeded|failed)$/);
      expect(dry.status).toBe('succeeded');
      expect(dry.steps.find((s) => s.id === 'call').output).toEqual({
        connection: 'jump',
        command_line: `/bin/sh '-c' ${shellQuoted(SCRIPT)} 'sh' '[redacted]'`,
      });
    },
    60_000,
  );
});

const shellQuoted = (arg: string) => `'${arg.replaceAll("'", `'\\''`)}'`;
