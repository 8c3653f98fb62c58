/**
 * Job leases of the worker (runtime/worker/worker.ts) on every engine: a run the worker
 * finds finished keeps its lease until the projector deletes its job, instead of being
 * freed and claimed again on every poll until then.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RUN_JOB } from '../../projections/runs/runs.projection.ts';
import { callAs, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';
import { e2eEngines } from '../support/service-process.ts';

const runbooks = {
  'tag.yml': `
id: tag-case
name: Tag the case
version: 1
trigger: { type: manual }
steps:
  - id: tag
    action: case.update
    with: { tags_add: [leased] }
`,
};

const admin = testPerson('root@example.com', [{ team: null, role: 'admin' }]);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, probe: () => Promise<T | null | undefined>): Promise<T> {
  for (let i = 0; i < 500; i++) {
    const found = await probe();
    if (found !== null && found !== undefined) return found;
    await sleep(20);
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe.each(e2eEngines)('worker leases on $name', ({ server }) => {
  let svc: InProcessService;

  beforeAll(async () => {
    svc = await startInProcessService({ server }, { runbooks });
  });
  afterAll(async () => {
    await svc?.close();
  });

  it('keeps the lease of a finished run whose job the projector has not deleted yet', async () => {
    const { db } = svc.service.opened;
    const created = await callAs(svc, admin, 'POST', '/cases', { title: 'Lease target', severity: 'low' });
    expect(created.status, created.text).toBe(201);
    const queued = await callAs(svc, admin, 'POST', `/cases/${created.body.id}/runbooks/tag-case/run`, {});
    expect(queued.status, queued.text).toBe(202);
    const runId: string = queued.body.id;
    await until('the run to finish', async () => {
      const run = await callAs(svc, admin, 'GET', `/runs/${runId}`);
      return run.body.status === 'succeeded' ? run.body : null;
    });

    // The job row as it stands between the run's end and the projector deleting it.
    await sql`insert into jobs (kind, key, due_at) values (${RUN_JOB}, ${runId}, now())`.execute(db);
    const lease = () =>
      sql<{
        lease_owner: string | null;
        lease_until: Date | null;
      }>`select lease_owner, lease_until from jobs where kind = ${RUN_JOB} and key = ${runId}`.execute(db);
    const first = await until('the worker to claim the job', async () => (await lease()).rows.find((r) => r.lease_owner !== null));
    // Twenty poll intervals (SVC_POLL_INTERVAL_MS 20 in tests): a freed job would have been claimed again, with a new lease.
    await sleep(400);
    const later = (await lease()).rows[0];
    expect(later?.lease_owner).toBe(first.lease_owner);
    expect(later?.lease_until?.getTime()).toBe(first.lease_until?.getTime());
    const log = await callAs(svc, admin, 'GET', `/runs/${runId}/log`);
    expect(log.body.items.map((r: { step_id: string; status: string }) => [r.step_id, r.status])).toEqual([['tag', 'ok']]);
    expect(svc.errors()).toEqual([]);
  });
});
