/**
 * Step semantics of the runbook engine on the real service and worker, on every engine
 * (SPEC.md "Runbook" step object, "Runs, steps and gates", "Limits"): branches and
 * `when_branch` skipping, `needs`, `for_each`, `timeout_s`, `retries`, and `on_error`
 * continue / goto with the visit cap. Side effects are counted on a real receiver.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver } from '../support/receiver.ts';
import { callAs, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';
import { e2eEngines } from '../support/service-process.ts';
import { recordedEvents } from '../support/events.ts';

const hook = (path: string, extra = '') => `action: notify.webhook\n    ${extra}with: { connection: hook, path: ${path}, body: { case: "{{ case.key }}" } }`;

const runbooks: Record<string, string> = {
  'branching.yml': `
id: branching
name: Branching
version: 1
trigger: { type: manual }
inputs: [{ name: flag, type: string, required: true }]
steps:
  - id: decide
    type: branch
    when: inputs.flag == "yes"
  - id: taken
    needs: [decide]
    when_branch: "true"
    ${hook('/taken')}
  - id: not-taken
    needs: [decide]
    when_branch: "false"
    ${hook('/not-taken')}
  - id: after
    needs: [taken, not-taken]
    ${hook('/after')}
`,
  'looping.yml': `
id: looping
name: For each
version: 1
trigger: { type: manual }
inputs: [{ name: hosts, type: list, required: true }]
steps:
  - id: each
    action: notify.webhook
    for_each: "{{ inputs.hosts }}"
    on_error: continue
    with: { connection: hook, path: "/each/{{ loop.index }}", body: { host: "{{ item }}", count: "{{ loop.count }}" } }
  - id: after
    ${hook('/after-each')}
`,
  'flaky.yml': `
id: flaky
name: Retries and timeout
version: 1
trigger: { type: manual }
steps:
  - id: flaky
    retries: 2
    ${hook('/flaky')}
  - id: slow
    timeout_s: 1
    on_error: continue
    ${hook('/slow')}
  - id: needs-slow
    needs: [slow]
    ${hook('/needs-slow')}
  - id: last
    ${hook('/last')}
`,
  'goto.yml': `
id: goto-retry
name: Goto
version: 1
trigger: { type: manual }
steps:
  - id: fetch
    ${hook('/fetch')}
  - id: side
    ${hook('/side')}
  - id: check
    needs: [fetch]
    on_error: goto:fetch
    ${hook('/check')}
  - id: report
    needs: [check]
    ${hook('/report')}
`,
  'loop-cap.yml': `
id: loop-cap
name: Loop cap
version: 1
trigger: { type: manual }
steps:
  - id: fetch
    ${hook('/cap-fetch')}
  - id: check
    needs: [fetch]
    on_error: goto:fetch
    ${hook('/cap-check')}
  - id: report
    needs: [check]
    ${hook('/cap-report')}
`,
};

const admin = testPerson('root@example.com', [{ team: null, role: 'admin' }]);
const ana = testPerson('ana@example.com', [{ team: 'blue', role: 'analyst' }]);
const eve = testPerson('eve@example.com', [{ team: 'red', role: 'analyst' }]);

type Step = { id: string; status: string; attempt: number; output: any; error: string | null };
type Run = {
  status: string;
  error: string | null;
  steps: Step[];
  action_log: { step_id: string; status: string; attempt: number }[];
  chain: { valid: boolean };
};

describe.each(e2eEngines)('runbook step semantics on $name', ({ server }) => {
  let svc: InProcessService;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let caseId = '';
  let checkCalls = 0;
  let flakyCalls = 0;
  const paths = (prefix: string) => receiver.received.filter((r) => r.path === prefix || r.path.startsWith(`${prefix}/`));

  beforeAll(async () => {
    receiver = await startReceiver((req, res) => {
      if (req.path === '/slow') return; // never answers: the step deadline must end it
      if (req.path === '/flaky' && ++flakyCalls <= 2) return void res.writeHead(503).end();
      if (req.path === '/check' && ++checkCalls <= 2) return void res.writeHead(400).end();
      if (req.path === '/cap-check' || req.path === '/each/1') return void res.writeHead(400).end();
      res.writeHead(204).end();
    });
    svc = await startInProcessService({ server }, { runbooks, extraEnv: { SVC_STEP_BACKOFF_BASE_MS: '5', SVC_MAX_STEP_VISITS: '2' } });
    const conn = await callAs(svc, admin, 'POST', '/connections', {
      kind: 'webhook',
      name: 'hook',
      base_url: receiver.url,
      secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    });
    expect(conn.status, conn.text).toBe(201);
    const created = await callAs(svc, ana, 'POST', '/cases', { title: 'Runbook target', severity: 'high', team: 'blue' });
    expect(created.status, created.text).toBe(201);
    caseId = created.body.id;
  });
  afterAll(async () => {
    await svc?.close();
    await receiver?.close();
  });

  const runToEnd = async (slug: string, inputs: Record<string, unknown> = {}): Promise<Run & { id: string }> => {
    const queued = await callAs(svc, ana, 'POST', `/cases/${caseId}/runbooks/${slug}/run`, { inputs });
    expect(queued.status, queued.text).toBe(202);
    const id = queued.body.id as string;
    let run: Run = { status: 'queued' } as Run;
    await expect
      .poll(
        async () => {
          run = (await callAs(svc, ana, 'GET', `/runs/${id}`)).body;
          return run.status;
        },
        { timeout: 20_000, interval: 50 },
      )
      .toMatch(/^(succeeded|failed)$/);
    return { ...run, id };
  };
  const stepOf = (run: Run, id: string) => run.steps.find((s) => s.id === id);

  it('runs the taken edge of a branch, logs the other as skipped, and runs a step whose needs are ok or skipped', async () => {
    const run = await runToEnd('branching', { flag: 'yes' });
    expect(run.status).toBe('succeeded');
    expect(stepOf(run, 'decide')).toMatchObject({ status: 'ok', output: { result: true } });
    expect(stepOf(run, 'not-taken')?.status).toBe('skipped');
    expect(run.action_log.find((r) => r.step_id === 'not-taken')?.status).toBe('skipped');
    expect(stepOf(run, 'after')?.status).toBe('ok');
    expect(paths('/taken')).toHaveLength(1);
    expect(paths('/not-taken')).toHaveLength(0);
    expect(paths('/after')).toHaveLength(1);

    const other = await runToEnd('branching', { flag: 'no' });
    expect(stepOf(other, 'taken')?.status).toBe('skipped');
    expect(stepOf(other, 'not-taken')?.status).toBe('ok');
    expect(paths('/taken')).toHaveLength(1);
    expect(paths('/not-taken')).toHaveLength(1);
    expect(other.chain.valid).toBe(true);
  });

  it('runs a for_each step once per item with item and loop, output {items, count, errors}', async () => {
    const run = await runToEnd('looping', { hosts: ['alpha', 'beta', 'gamma'] });
    const each = paths('/each');
    expect(each.map((r) => [r.path, JSON.parse(r.body)])).toEqual([
      ['/each/0', { host: 'alpha', count: 3 }],
      ['/each/1', { host: 'beta', count: 3 }],
      ['/each/2', { host: 'gamma', count: 3 }],
    ]);
    const step = stepOf(run, 'each');
    expect(step?.status).toBe('error');
    expect(step?.output.count).toBe(3);
    expect(step?.output.items).toHaveLength(3);
    expect(step?.output.items[0]).toMatchObject({ delivered: true });
    expect(step?.output.items[1]).toBeNull();
    expect(step?.output.errors).toEqual([{ index: 1, error: expect.stringContaining('HTTP 400') }]);
    // on_error continue: the step is recorded error and the run proceeds.
    expect(run.status).toBe('succeeded');
    expect(paths('/after-each')).toHaveLength(1);
    // Each item is its own message: its own webhook-id (a receiver deduplicating on it keeps all three), the one its output names.
    const ids = each.map((r) => r.headers['webhook-id']);
    expect(ids).toEqual([expect.stringMatching(/^msg_[A-Za-z0-9_-]{32}$/), expect.any(String), expect.any(String)]);
    expect(new Set(ids).size).toBe(3);
    expect(step?.output.items[0].webhook_id).toBe(ids[0]);
    expect(ids).not.toContain(paths('/after-each')[0]?.headers['webhook-id']);
  });

  it('fails a for_each step whose template does not yield a list', async () => {
    const run = await runToEnd('looping', { hosts: 'not-a-list' });
    expect(stepOf(run, 'each')).toMatchObject({ status: 'error', error: expect.stringContaining('for_each must yield a list') });
    expect(paths('/each')).toHaveLength(3);
  });

  it('retries a retryable failure with backoff, and ends an action at timeout_s', async () => {
    const run = await runToEnd('flaky');
    expect(paths('/flaky')).toHaveLength(3);
    // A retry sends the same message again: one webhook-id for the three tries.
    expect(new Set(paths('/flaky').map((r) => r.headers['webhook-id'])).size).toBe(1);
    expect(stepOf(run, 'flaky')).toMatchObject({ status: 'ok', attempt: 1 });
    expect(stepOf(run, 'slow')).toMatchObject({ status: 'error', error: expect.stringContaining('timeout') });
    expect(stepOf(run, 'needs-slow')?.status).toBe('skipped');
    expect(paths('/needs-slow')).toHaveLength(0);
    expect(stepOf(run, 'last')?.status).toBe('ok');
    expect(run.status).toBe('succeeded');
  });

  it('on goto resets the target and its downstream steps and reruns them until the step succeeds', async () => {
    const run = await runToEnd('goto-retry');
    expect(run.status).toBe('succeeded');
    expect(paths('/fetch')).toHaveLength(3);
    expect(paths('/check')).toHaveLength(3);
    expect(paths('/side')).toHaveLength(1);
    expect(paths('/report')).toHaveLength(1);
    // Every pass stays in the action log; the steps show the last one.
    expect(run.action_log.filter((r) => r.step_id === 'check').map((r) => [r.status, r.attempt])).toEqual([
      ['error', 1],
      ['error', 2],
      ['ok', 3],
    ]);
    expect(stepOf(run, 'fetch')).toMatchObject({ status: 'ok', attempt: 3 });
    // Each goto pass re-entering a step is a new message: a new webhook-id per pass.
    expect(new Set(paths('/check').map((r) => r.headers['webhook-id'])).size).toBe(3);
    expect(new Set(paths('/fetch').map((r) => r.headers['webhook-id'])).size).toBe(3);
    expect(run.chain.valid).toBe(true);
  });

  it('fails the run with runbook.loop_cap_exceeded once a goto target was re-entered SVC_MAX_STEP_VISITS times', async () => {
    const run = await runToEnd('loop-cap');
    expect(run.status).toBe('failed');
    expect(run.error).toMatch(/^runbook\.loop_cap_exceeded: .*visit cap of 2/);
    // The cause is in the run's action log too, chained like every row.
    const log = await callAs(svc, ana, 'GET', `/runs/${run.id}/log`);
    expect(log.body.items.at(-1)).toMatchObject({ status: 'error', error: run.error });
    expect((await callAs(svc, ana, 'GET', '/runs/chain/verify')).body.valid).toBe(true);
    expect(paths('/cap-fetch')).toHaveLength(3);
    expect(paths('/cap-check')).toHaveLength(3);
    expect(paths('/cap-report')).toHaveLength(0);
    const rows = await recordedEvents(svc.service.opened.db, (e) => e.type === 'runbook.loop_cap_exceeded' && e.streamId.endsWith(run.id));
    expect(rows.map((r) => r.data)).toMatchObject([{ target: 'fetch', visits: 2, cap: 2 }]);
  });

  it('dry-runs a for_each step: renders every item, calls only previews, records dry_run rows', async () => {
    const before = receiver.received.length;
    const queued = await callAs(svc, ana, 'POST', `/cases/${caseId}/runbooks/looping/run`, { inputs: { hosts: ['h1', 'h2'] }, dry_run: true });
    expect(queued.status, queued.text).toBe(202);
    expect(queued.body.dry_run).toBe(true);
    let run = {} as Run;
    const poll = async () => {
      run = (await callAs(svc, ana, 'GET', `/runs/${queued.body.id}`)).body;
      return run.status;
    };
    await expect.poll(poll, { timeout: 20_000 }).toBe('succeeded');
    expect(receiver.received.length).toBe(before);
    expect(run.action_log.map((r) => [r.step_id, r.status])).toEqual([
      ['each', 'dry_run'],
      ['after', 'dry_run'],
    ]);
    const each = stepOf(run, 'each');
    expect(each?.output.count).toBe(2);
    expect(each?.output.items.map((i: { url: string; body: unknown }) => [new URL(i.url).pathname, i.body])).toEqual([
      ['/each/0', { host: 'h1', count: 2 }],
      ['/each/1', { host: 'h2', count: 2 }],
    ]);
  });

  it('logged no error while driving the runs above', () => {
    expect(svc.errors()).toEqual([]);
  });

  it('names the field of a bad run request and hides the run from another team', async () => {
    const bad = await callAs(svc, ana, 'POST', `/cases/${caseId}/runbooks/branching/run`, { inputs: { flag: 'yes' }, dry_run: 'sure' });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['body', 'dry_run']);
    const run = await runToEnd('branching', { flag: 'yes' });
    expect((await callAs(svc, eve, 'GET', `/runs/${run.id}`)).status).toBe(404);
    expect((await callAs(svc, eve, 'GET', '/runs')).body.items.map((r: { id: string }) => r.id)).not.toContain(run.id);
  });
});
