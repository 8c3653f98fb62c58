/**
 * The case report's pure parts: the published JSON Schema is the generated one (make
 * case-report-schema rewrites it), the Markdown escapes what would break a table, and the
 * PDF of the same Markdown and date is the same bytes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { markdownPdf } from '../../../adapters/reports/pdf.ts';
import { caseReportJsonSchemaText } from '../../../adapters/reports/json-schema.ts';
import { caseReportMarkdown, type CaseReport } from '../../../domain/reports/case-report.ts';

const report: CaseReport = {
  report_version: 1,
  case: {
    id: 'c1',
    key: 'SVC-7',
    title: 'Beacon | odd',
    description: null,
    severity: 'high',
    status: 'closed',
    team: null,
    private: false,
    owner_email: null,
    tags: ['c2'],
    custom_fields: { root_cause: 'reused password', hosts: 3 },
    opened_at: '2026-12-01T09:00:00.000Z',
    acknowledged_at: null,
    acknowledged_by: null,
    resolved_at: null,
    closed_at: '2026-12-02T09:00:00.000Z',
    updated_at: '2026-12-02T09:00:00.000Z',
    merged_into: null,
    merged_from: [],
  },
  attack_techniques: ['T1071'],
  timeline: [{ at: '2026-12-01T09:00:00.000Z', kind: 'opened', actor: null }],
  tasks: [],
  observables: [{ type: 'ip', value: '203.0.113.5', source: 'alert', verdicts: [{ verdict: 'malicious', score: 12, run_id: 'r1', step_id: 'rep', at: null }] }],
  evidence: [
    { kind: 'link', ref_id: null, url: 'https://example.com/a|b', note: 'two\nlines', pinned_by: 'ana', pinned_at: '2026-12-01T10:00:00.000Z', sha256: null },
  ],
  approvals: [],
  effects: [],
  runs: [],
};

describe('the case report', () => {
  it('publishes the schema generated from the report’s own', () => {
    expect(readFileSync(join(import.meta.dirname, '../../../docs/case-report.schema.json'), 'utf8')).toBe(caseReportJsonSchemaText());
  });

  it('writes Markdown whose tables survive pipes and new lines, custom fields by name', () => {
    const md = caseReportMarkdown(report);
    expect(md.startsWith('# SVC-7 Beacon | odd\n')).toBe(true);
    expect(md).toContain('| link | https://example.com/a\\|b | two lines | ana | 2026-12-01T10:00:00.000Z |  |');
    expect(md).toContain('| ip | 203.0.113.5 | alert | malicious (12) |');
    expect(md.indexOf('| hosts | 3 |')).toBeLessThan(md.indexOf('| root_cause | reused password |'));
    expect(md).toContain('No tasks.');
    expect(caseReportMarkdown(report)).toBe(md);
  });

  it('prints the same PDF for the same Markdown and date, non-Latin-1 text as ?', async () => {
    const meta = { title: 'SVC-7 Beacon', createdAt: new Date('2026-12-02T09:00:00Z') };
    const md = `${caseReportMarkdown(report)}\n日本語\n`;
    const [a, b] = [await markdownPdf(md, meta), await markdownPdf(md, meta)];
    expect(a.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(a.equals(b)).toBe(true);
  });
});
