/**
 * Case templates on the real service, on every engine (SPEC.md "Case" `template_id`,
 * "Other case moves" apply-template, "Cases"): a case opened from a template gets its
 * phased tasks and SLA policy in one append; apply-template is additive per (phase,
 * title), appends after the highest position, applies the SLA only when the case has
 * none, refuses a closed case, keeps title, severity and tags, is race-free under
 * concurrent calls, and respects case scoping and permissions.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCaseTemplateCommands } from '../../adapters/commands/case-templates.ts';
import { PostgresEventStore } from '../../adapters/event-store/postgres.ts';
import { parseCaseTemplate } from '../../domain/case-templates/template.ts';
import { callAs, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';
import { e2eEngines } from '../support/service-process.ts';

const templates = {
  'phishing.yml': `
id: phishing
name: Phishing report
phases:
  - name: Triage
    tasks:
      - title: Collect headers
        description: Full headers from the gateway.
      - title: Check URLs
  - name: Containment
    tasks:
      - title: Purge the message
sla: { ack_minutes: 5, resolve_minutes: 60 }
`,
  'no-sla.yml': `
id: lessons
name: Lessons learned
phases:
  - name: Review
    tasks: [{ title: Write the review }]
`,
  'broken.yml': 'id: Not Valid\nphases: []\n',
};

const ana = testPerson('ana@example.com', [{ team: 'blue', role: 'analyst' }]);
const vic = testPerson('vic@example.com', [{ team: 'blue', role: 'viewer' }]);
const red = testPerson('red@example.com', [{ team: 'red', role: 'analyst' }]);

type Task = { id: string; phase: string | null; title: string; position: number; description: string | null; status: string };

describe.each(e2eEngines)('case templates on $name', ({ server }) => {
  let svc: InProcessService;
  const tasksOf = async (caseId: string): Promise<Task[]> => (await callAs(svc, ana, 'GET', `/cases/${caseId}/tasks`)).body.items;
  const open = async (body: Record<string, unknown> = {}) => {
    const res = await callAs(svc, ana, 'POST', '/cases', { title: 'Suspicious email', severity: 'medium', tags: ['email'], team: 'blue', ...body });
    expect(res.status, res.text).toBe(201);
    return res.body;
  };
  const apply = (caseId: string, templateId: string, who = ana) => callAs(svc, who, 'POST', `/cases/${caseId}/apply-template`, { template_id: templateId });

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-case-templates-'));
    for (const [file, yaml] of Object.entries(templates)) writeFileSync(join(dir, file), yaml);
    svc = await startInProcessService({ server }, { extraEnv: { SVC_CASE_TEMPLATES_DIR: dir } });
  });
  afterAll(async () => svc?.close());

  it('lists the valid templates and leaves a bad file out', async () => {
    const res = await callAs(svc, vic, 'GET', '/case-templates');
    expect(res.status).toBe(200);
    expect(res.body.items.map((t: { id: string }) => t.id)).toEqual(['lessons', 'phishing']);
    expect(res.body.items[1]).toEqual({
      id: 'phishing',
      name: 'Phishing report',
      description: null,
      phases: [
        {
          name: 'Triage',
          tasks: [
            { title: 'Collect headers', description: 'Full headers from the gateway.' },
            { title: 'Check URLs', description: null },
          ],
        },
        { name: 'Containment', tasks: [{ title: 'Purge the message', description: null }] },
      ],
      sla: { ack_minutes: 5, resolve_minutes: 60 },
      auto_ai_triage: false,
    });
  });

  it('opens a case with the phased tasks and SLA policy of its template, unacknowledged', async () => {
    const created = await open({ template_id: 'phishing' });
    expect(created.sla_policy).toMatchObject({ template_id: 'phishing', ack_minutes: 5, resolve_minutes: 60 });
    expect(created.ack_sla.due_at).toBe(new Date(Date.parse(created.created_at) + 5 * 60_000).toISOString());
    expect(created.ack_sla.state).toBe('pending');
    expect(created.sla_policy.resolve_due_at).toBe(new Date(Date.parse(created.created_at) + 60 * 60_000).toISOString());
    expect(created.acknowledged_at).toBeNull();
    expect((await tasksOf(created.id)).map((t) => [t.phase, t.title, t.position, t.status])).toEqual([
      ['Triage', 'Collect headers', 1, 'open'],
      ['Triage', 'Check URLs', 2, 'open'],
      ['Containment', 'Purge the message', 3, 'open'],
    ]);
    const kinds = (await callAs(svc, ana, 'GET', `/cases/${created.id}/timeline`)).body.items.map((e: { kind: string }) => e.kind);
    expect(kinds).toEqual(expect.arrayContaining(['opened', 'template_applied', 'sla_policy_applied']));
  });

  it('refuses an unknown template with 422 naming template_id and opens nothing', async () => {
    const count = async () => (await sql<{ n: number }>`select count(*)::int as n from cases`.execute(svc.service.opened.db)).rows[0]?.n;
    const before = await count();
    const res = await callAs(svc, ana, 'POST', '/cases', { title: 'x', severity: 'low', template_id: 'nope' });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([{ loc: ['body', 'template_id'], msg: "unknown case template 'nope'", type: 'value_error' }]);
    expect(await count()).toBe(before);
    const applied = await apply((await open()).id, 'nope');
    expect(applied.status).toBe(422);
    expect(applied.body.detail[0].loc).toEqual(['body', 'template_id']);
    expect((await callAs(svc, ana, 'POST', `/cases/${(await open()).id}/apply-template`, {})).body.detail[0].loc).toEqual(['body', 'template_id']);
  });

  it('applies additively: skips (phase, title) pairs the case has, appends after the highest position, sets the SLA once', async () => {
    const c = await open();
    for (const body of [{ title: 'Collect headers', phase: 'Triage' }, { title: 'Check URLs', phase: 'Containment' }, { title: 'Call the user' }]) {
      expect((await callAs(svc, ana, 'POST', `/cases/${c.id}/tasks`, body)).status).toBe(201);
    }
    const first = await apply(c.id, 'phishing');
    expect(first.status, first.text).toBe(200);
    expect(first.body.skipped).toEqual([{ phase: 'Triage', title: 'Collect headers' }]);
    expect(first.body.added.map((t: Task) => [t.phase, t.title, t.position, t.description])).toEqual([
      ['Triage', 'Check URLs', 4, null],
      ['Containment', 'Purge the message', 5, null],
    ]);
    expect(first.body).toMatchObject({ sla_applied: true, sla_skipped_reason: null });

    const again = await apply(c.id, 'phishing');
    expect(again.body).toEqual({
      added: [],
      skipped: [
        { phase: 'Triage', title: 'Collect headers' },
        { phase: 'Triage', title: 'Check URLs' },
        { phase: 'Containment', title: 'Purge the message' },
      ],
      sla_applied: false,
      sla_skipped_reason: 'case_has_sla_policy',
    });
    const other = await apply(c.id, 'lessons');
    expect(other.body).toMatchObject({ sla_applied: false, sla_skipped_reason: 'template_has_no_sla' });
    expect(other.body.added.map((t: Task) => [t.phase, t.title, t.position])).toEqual([['Review', 'Write the review', 6]]);

    const after = (await callAs(svc, ana, 'GET', `/cases/${c.id}`)).body;
    expect(after).toMatchObject({ title: 'Suspicious email', severity: 'medium', tags: ['email'], sla_policy: { template_id: 'phishing', ack_minutes: 5 } });
    expect(await tasksOf(c.id)).toHaveLength(6);
  });

  it('refuses a closed case with 409 case_closed and adds nothing', async () => {
    const c = await open();
    expect((await callAs(svc, ana, 'POST', `/cases/${c.id}/status`, { status: 'closed' })).status).toBe(200);
    const res = await apply(c.id, 'phishing');
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('case_closed');
    expect(await tasksOf(c.id)).toEqual([]);
  });

  it("answers 404 for a case the caller cannot see and 403 without manage_cases in the case's team", async () => {
    const hidden = (await callAs(svc, red, 'POST', '/cases', { title: 'Red private', severity: 'low', team: 'red', private: true })).body.id;
    const absent = await apply('00000000-0000-4000-8000-000000000000', 'phishing');
    const invisible = await apply(hidden, 'phishing');
    expect([absent.status, invisible.status]).toEqual([404, 404]);
    expect(invisible.body).toEqual({ ...absent.body, params: { case_id: hidden } });
    const viewer = await apply((await open()).id, 'phishing', vic);
    expect(viewer.status).toBe(403);
  });

  it('adds each task once under concurrent applies of one template', async () => {
    const c = await open();
    const answers = await Promise.all(Array.from({ length: 6 }, () => apply(c.id, 'phishing')));
    expect(answers.map((a) => a.status)).toEqual(Array(6).fill(200));
    expect(answers.flatMap((a) => a.body.added)).toHaveLength(3);
    expect(answers.filter((a) => a.body.sla_applied)).toHaveLength(1);
    expect((await tasksOf(c.id)).map((t) => t.title).sort()).toEqual(['Check URLs', 'Collect headers', 'Purge the message']);
  });

  it('adds each task once when two processes apply at once (the case stream version decides, the loser retries)', async () => {
    const c = await open();
    const { db } = svc.service.opened;
    const parsed = parseCaseTemplate(templates['phishing.yml']);
    if (!parsed.ok) throw new Error('test template does not parse');
    // Two command instances with their own event store and lock, as two API processes would have.
    const processes = [0, 1].map(() =>
      createCaseTemplateCommands({
        store: new PostgresEventStore(db),
        db,
        config: {
          severities: [],
          statuses: [],
          closedStatuses: new Set(['resolved', 'closed']),
          initialStatus: 'new',
          mergedStatus: 'closed',
          keyPrefix: 'SVC',
          correlationWindowMs: 0,
        },
        ids: () => crypto.randomUUID(),
        now: () => new Date(),
        waitFor: (position) => (position === null ? Promise.resolve() : svc.service.projector.waitFor(position)),
      }),
    );
    const actor = { userId: null, email: 'ana@example.com' };
    const results = await Promise.all(processes.flatMap((p) => [p.apply(c.id, parsed.template, actor), p.apply(c.id, parsed.template, actor)]));
    expect(results.flatMap((r) => r.added)).toHaveLength(3);
    expect(results.filter((r) => r.slaApplied)).toHaveLength(1);
    await svc.service.projector.waitFor(Math.max(...results.map((r) => r.position)));
    expect((await tasksOf(c.id)).map((t) => t.title).sort()).toEqual(['Check URLs', 'Collect headers', 'Purge the message']);
  });
});
