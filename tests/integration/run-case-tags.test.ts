/**
 * Runbook steps that change a case are commands on the Case aggregate, decided against
 * its stream (issue 20): several runs adding tags to one case at the same time all keep
 * their tags (none is computed from a read model that has not caught up), and the events
 * name the runbook as a system actor, not a person. A change the Case refuses (a severity
 * outside configuration) fails the step under the rule's code and changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callAs, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';
import { e2eEngines } from '../support/service-process.ts';
import { recordedEvents } from '../support/events.ts';

const ana = testPerson('ana@example.com', [{ team: null, role: 'analyst' }]);
const tags = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot'];

const tagRunbook = (tag: string) => `
id: tag-${tag}
name: tag-${tag}
trigger:
  type: manual
steps:
  - id: tag
    action: case.update
    with:
      tags_add: ["${tag}"]
      comment: "tagged ${tag}"
`;

const badSeverityRunbook = `
id: bad-severity
name: bad-severity
trigger:
  type: manual
steps:
  - id: raise
    action: case.update
    with:
      severity: catastrophic
      tags_add: ["raised"]
`;

type Step = { id: string; status: string; error: string | null };

describe.each(e2eEngines)('concurrent case.update on $name', ({ server }) => {
  let svc: InProcessService;
  beforeAll(async () => {
    svc = await startInProcessService(
      { server },
      {
        runbooks: { ...Object.fromEntries(tags.map((t) => [`tag-${t}.yml`, tagRunbook(t)])), 'bad-severity.yml': badSeverityRunbook },
        extraEnv: { SVC_WORKER_CONCURRENCY: '4' },
      },
    );
  });
  afterAll(async () => svc?.close());

  it('keeps every tag of runs that edit one case at the same time, with the runbook as a system actor', async () => {
    const created = await callAs(svc, ana, 'POST', '/cases', { title: 'Tag race', severity: 'high', tags: ['initial'] });
    const caseId = created.body.id as string;
    const queued = await Promise.all(tags.map((t) => callAs(svc, ana, 'POST', `/cases/${caseId}/runbooks/tag-${t}/run`, {})));
    for (const q of queued) expect(q.status, q.text).toBe(202);
    await expect
      .poll(
        async () =>
          (await Promise.all(queued.map(async (q) => (await callAs(svc, ana, 'GET', `/runs/${q.body.id}`)).body.status))).every((s) => s === 'succeeded'),
        { timeout: 30_000 },
      )
      .toBe(true);

    const theCase = await callAs(svc, ana, 'GET', `/cases/${caseId}`);
    expect([...theCase.body.tags].sort()).toEqual(['initial', ...tags].sort());
    const comments = (await callAs(svc, ana, 'GET', `/cases/${caseId}/comments`)).body.items.map((c: { text: string }) => c.text);
    expect(comments.sort()).toEqual(tags.map((t) => `tagged ${t}`).sort());

    const rows = (
      await recordedEvents(svc.service.opened.db, (e) => e.streamId === `case-${caseId}` && ['case.updated', 'case.comment_added'].includes(e.type))
    ).map((e) => ({ type: e.type, actor: e.metadata.actor }));
    expect(rows).toHaveLength(tags.length * 2);
    for (const row of rows) expect(row.actor).toMatchObject({ kind: 'system', email: expect.stringMatching(/^runbook:tag-/) });
  });

  it('fails a case.update step with an unknown severity under case_severity_invalid, leaving the case as it was', async () => {
    const created = await callAs(svc, ana, 'POST', '/cases', { title: 'Bad severity', severity: 'high' });
    const caseId = created.body.id as string;
    const queued = await callAs(svc, ana, 'POST', `/cases/${caseId}/runbooks/bad-severity/run`, {});
    expect(queued.status, queued.text).toBe(202);
    await expect.poll(async () => (await callAs(svc, ana, 'GET', `/runs/${queued.body.id}`)).body.status, { timeout: 30_000 }).toBe('failed');

    const run = (await callAs(svc, ana, 'GET', `/runs/${queued.body.id}`)).body as { steps: Step[] };
    const step = run.steps.find((s) => s.id === 'raise');
    expect(step).toMatchObject({ status: 'error', error: expect.stringMatching(/^case_severity_invalid: severity must be one of .*high/) });
    const log = await callAs(svc, ana, 'GET', `/runs/${queued.body.id}/log`);
    expect(log.body.items.find((r: { step_id: string }) => r.step_id === 'raise')).toMatchObject({ status: 'error', error: step?.error });
    const theCase = await callAs(svc, ana, 'GET', `/cases/${caseId}`);
    expect(theCase.body).toMatchObject({ severity: 'high', tags: [] });
  });
});
