/**
 * Additive template application (SPEC.md "Other case moves": apply-template): only
 * tasks whose (phase, title) the case lacks, after the highest position in template
 * order; the SLA policy only when the case has none, else the reason.
 */
import { describe, expect, it } from 'vitest';
import { planTemplate } from '../../../domain/case-templates/apply.ts';
import type { CaseTemplate } from '../../../domain/case-templates/template.ts';

const template: CaseTemplate = {
  id: 'phishing',
  name: 'Phishing',
  description: null,
  phases: ['Triage', 'Containment'],
  tasks: [
    { phase: 'Triage', title: 'Collect headers', description: null },
    { phase: 'Triage', title: 'Check URLs', description: 'reputation' },
    { phase: 'Containment', title: 'Purge the message', description: null },
  ],
  sla: { ack_minutes: 30, resolve_minutes: null },
  autoAiTriage: false,
};

describe('planTemplate', () => {
  it('adds every task to a case without tasks and applies the SLA', () => {
    const plan = planTemplate(template, [], false, 1);
    expect(plan.add.map((t) => [t.phase, t.title, t.position])).toEqual([
      ['Triage', 'Collect headers', 1],
      ['Triage', 'Check URLs', 2],
      ['Containment', 'Purge the message', 3],
    ]);
    expect(plan).toMatchObject({ skipped: [], sla: { ack_minutes: 30, resolve_minutes: null }, slaSkippedReason: null });
  });

  it('skips tasks the case has by (phase, title) exactly, and appends the rest after the highest position', () => {
    const existing = [
      { phase: 'Triage', title: 'Collect headers' },
      { phase: 'Containment', title: 'Check URLs' },
      { phase: 'Triage', title: 'check urls' },
      { phase: null, title: 'Purge the message' },
    ];
    const plan = planTemplate(template, existing, true, 8);
    expect(plan.skipped).toEqual([{ phase: 'Triage', title: 'Collect headers' }]);
    expect(plan.add.map((t) => [t.title, t.position])).toEqual([
      ['Check URLs', 8],
      ['Purge the message', 9],
    ]);
    expect(plan).toMatchObject({ sla: null, slaSkippedReason: 'case_has_sla_policy' });
  });

  it('names why no SLA was applied when the template has none', () => {
    expect(planTemplate({ ...template, sla: null }, [], false, 1)).toMatchObject({ sla: null, slaSkippedReason: 'template_has_no_sla' });
  });
});
