/**
 * Concurrent edits of one case never lose an event (issue 3 "Real parts and bad input";
 * docs/architecture.md "The aggregate shape": optimistic concurrency with retry): many analysts comment, tag, assign,
 * acknowledge and change status at once through HTTP, on every engine, and every
 * accepted edit is on the timeline exactly once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callAs, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';
import { e2eEngines } from '../support/service-process.ts';

const analysts = Array.from({ length: 6 }, (_, i) => testPerson(`analyst-${i}@example.com`, [{ team: 'blue', role: 'analyst' }]));
const lead = analysts[0] ?? testPerson('lead@example.com', [{ team: 'blue', role: 'analyst' }]);

describe.each(e2eEngines)('concurrent edits of one case on $name', ({ server }) => {
  let svc: InProcessService;
  beforeAll(async () => {
    svc = await startInProcessService({ server });
  });
  afterAll(async () => svc?.close());

  it('keeps every comment, update, assignment and acknowledgement made at the same time', async () => {
    const opened = await callAs(svc, lead, 'POST', '/cases', { title: 'Busy case', severity: 'high' });
    expect(opened.status, opened.text).toBe(201);
    const id = opened.body.id as string;
    const leadId = (await callAs(svc, lead, 'GET', '/auth/me')).body.id;

    const comments = analysts.flatMap((who, a) =>
      Array.from({ length: 5 }, (_, n) => callAs(svc, who, 'POST', `/cases/${id}/comments`, { body: `note ${a}-${n}` })),
    );
    const others = [
      callAs(svc, lead, 'PUT', `/cases/${id}`, { tags: ['vpn', 'credential-stuffing'] }),
      callAs(svc, lead, 'PUT', `/cases/${id}`, { attack_techniques: ['T1110.004'] }),
      callAs(svc, lead, 'POST', `/cases/${id}/assign`, { owner_id: leadId }),
      callAs(svc, lead, 'POST', `/cases/${id}/acknowledge`),
      callAs(svc, lead, 'POST', `/cases/${id}/status`, { status: 'in_progress', note: 'working it' }),
    ];
    const answers = await Promise.all([...comments, ...others]);
    for (const res of answers) expect(res.status, res.text).toBeLessThan(300);

    const timeline = (await callAs(svc, lead, 'GET', `/cases/${id}/timeline`)).body.items as { kind: string; payload: { body?: string } }[];
    const bodies = timeline.filter((e) => e.kind === 'comment_added').map((e) => e.payload.body);
    expect(bodies.sort()).toEqual(analysts.flatMap((_, a) => Array.from({ length: 5 }, (_, n) => `note ${a}-${n}`)).sort());
    for (const kind of ['updated', 'attack_techniques_updated', 'assigned', 'acknowledged', 'status_changed']) {
      expect(
        timeline.filter((e) => e.kind === kind),
        kind,
      ).toHaveLength(1);
    }
    const detail = (await callAs(svc, lead, 'GET', `/cases/${id}`)).body;
    expect(detail).toMatchObject({ tags: ['vpn', 'credential-stuffing'], attack_techniques: ['T1110.004'], owner_id: leadId, status: 'in_progress' });
    expect(detail.acknowledged_by).toBe(lead.email);
  });
});
