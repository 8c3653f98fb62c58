/**
 * The SSRF guard through the real service and worker, on every engine (SPEC.md
 * "Authentication", secrets paragraph): with SVC_ALLOW_PRIVATE_TARGETS off, a runbook's
 * notify.webhook to a loopback connection fails at once with `target_refused` (final:
 * `retries` does not repeat it) and the receiver sees nothing; the configured suite peer
 * host (SVC_SUITE_PEER_HOSTS) is reached, but not under another name.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver } from '../support/receiver.ts';
import { callAs, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';
import { e2eEngines } from '../support/service-process.ts';

const notify = (id: string, connection: string) => `
id: ${id}
name: Notify through ${connection}
version: 1
trigger: { type: manual }
steps:
  - id: notify
    action: notify.webhook
    retries: 2
    with: { connection: ${connection}, path: /${id}, body: { case: "{{ case.key }}" } }
`;

const runbooks = {
  'literal.yml': notify('to-literal', 'loopback-literal'),
  'name.yml': notify('to-name', 'loopback-name'),
  'peer.yml': notify('to-peer', 'peer'),
};

const admin = testPerson('root@example.com', [{ team: null, role: 'admin' }]);
const ana = testPerson('ana@example.com', [{ team: 'blue', role: 'analyst' }]);
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

type Run = {
  status: string;
  steps: { id: string; status: string; attempt: number; error: string | null }[];
  action_log: Record<string, unknown>[];
  chain: { valid: boolean };
};

describe.each(e2eEngines)('outbound SSRF guard on $name', ({ server }) => {
  let svc: InProcessService;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let peer: Awaited<ReturnType<typeof startReceiver>>;
  let caseId = '';

  beforeAll(async () => {
    receiver = await startReceiver();
    peer = await startReceiver();
    const peerHost = new URL(peer.url).host;
    svc = await startInProcessService(
      { server },
      {
        runbooks,
        extraEnv: { SVC_ALLOW_PRIVATE_TARGETS: 'false', SVC_SUITE_PEER_HOSTS: `peer.invalid, ${peerHost}`, SVC_STEP_BACKOFF_BASE_MS: '5' },
      },
    );
    const port = new URL(receiver.url).port;
    for (const [name, baseUrl] of [
      ['loopback-literal', receiver.url],
      ['loopback-name', `http://localhost:${port}`],
      ['peer', peer.url],
    ] as const) {
      const conn = await callAs(svc, admin, 'POST', '/connections', { kind: 'webhook', name, base_url: baseUrl, secret: SECRET });
      expect(conn.status, conn.text).toBe(201);
    }
    const created = await callAs(svc, ana, 'POST', '/cases', { title: 'Outbound guard', severity: 'high', team: 'blue' });
    expect(created.status, created.text).toBe(201);
    caseId = created.body.id;
  });
  afterAll(async () => {
    await svc?.close();
    await receiver?.close();
    await peer?.close();
  });

  const runToEnd = async (slug: string): Promise<Run> => {
    const queued = await callAs(svc, ana, 'POST', `/cases/${caseId}/runbooks/${slug}/run`, {});
    expect(queued.status, queued.text).toBe(202);
    let run = { status: 'queued' } as Run;
    await expect
      .poll(
        async () => {
          run = (await callAs(svc, ana, 'GET', `/runs/${queued.body.id}`)).body;
          return run.status;
        },
        { timeout: 20_000, interval: 50 },
      )
      .toMatch(/^(succeeded|failed)$/);
    return run;
  };

  it.each([
    ['to-literal', '127.0.0.1 is a non-public address (loopback)'],
    ['to-name', 'localhost resolves to a non-public address (loopback)'],
  ])('fails %s with a final target_refused in the action log; the receiver sees nothing', async (slug, why) => {
    const run = await runToEnd(slug);
    expect(run.status).toBe('failed');
    const step = run.steps.find((s) => s.id === 'notify');
    expect(step).toMatchObject({ status: 'error', attempt: 1 });
    expect(step?.error).toBe(`target_refused: notify.webhook: request refused: ${why}`);
    expect(run.action_log).toHaveLength(1);
    expect(run.action_log[0]).toMatchObject({ step_id: 'notify', status: 'error' });
    expect(JSON.stringify(run.action_log)).toContain('target_refused');
    expect(JSON.stringify(run)).not.toContain(SECRET);
    expect(run.chain.valid).toBe(true);
    expect(receiver.received).toEqual([]);
  });

  it('reaches a configured suite peer host', async () => {
    const run = await runToEnd('to-peer');
    expect(run.status).toBe('succeeded');
    expect(peer.received.map((r) => r.path)).toEqual(['/to-peer']);
    expect(receiver.received).toEqual([]);
  });
});
