/**
 * The case report (docs/configuration.md "Case report"; issue 50): what an auditor or a
 * manager is handed about one case, as a JSON document (this schema, published as
 * docs/case-report.schema.json) and as Markdown rendered from it. Pure and deterministic:
 * the same report gives the same bytes, so every list is in a fixed order and nothing
 * depends on the time of the request.
 */
import * as v from 'valibot';

const time = v.string();
const text = v.string();

const reportCase = v.strictObject({
  id: text,
  key: text,
  title: text,
  description: v.nullable(text),
  severity: text,
  status: text,
  team: v.nullable(text),
  private: v.boolean(),
  owner_email: v.nullable(text),
  tags: v.array(text),
  custom_fields: v.record(text, v.union([text, v.number(), v.boolean(), v.array(text)])),
  opened_at: time,
  acknowledged_at: v.nullable(time),
  acknowledged_by: v.nullable(text),
  resolved_at: v.nullable(time),
  closed_at: v.nullable(time),
  updated_at: time,
  merged_into: v.nullable(text),
  merged_from: v.array(v.strictObject({ case_id: text, key: text })),
});

/** The report, version 1. Times are RFC 3339 in UTC with milliseconds. */
export const caseReportSchema = v.pipe(
  v.strictObject({
    report_version: v.literal(1),
    case: reportCase,
    attack_techniques: v.array(text),
    timeline: v.array(v.strictObject({ at: time, kind: text, actor: v.nullable(text) })),
    tasks: v.array(v.strictObject({ title: text, phase: v.nullable(text), status: text, assignee_email: v.nullable(text), due_at: v.nullable(time) })),
    observables: v.array(
      v.strictObject({
        type: text,
        value: text,
        source: v.picklist(['manual', 'alert']),
        /** Reputation verdicts of the case's runs whose indicator was this value. */
        verdicts: v.array(v.strictObject({ verdict: text, score: v.nullable(v.number()), run_id: text, step_id: text, at: v.nullable(time) })),
      }),
    ),
    evidence: v.array(
      v.strictObject({
        kind: text,
        ref_id: v.nullable(text),
        url: v.nullable(text),
        note: text,
        pinned_by: v.nullable(text),
        pinned_at: time,
        /** The pinned attachment's sha256 (lower-case hex); null for other kinds. */
        sha256: v.nullable(text),
      }),
    ),
    approvals: v.array(
      v.strictObject({ run_id: text, step_id: text, status: text, opened_at: time, decided_by: v.nullable(text), decided_at: v.nullable(time) }),
    ),
    effects: v.array(
      v.strictObject({
        id: text,
        effect_type: text,
        target_type: text,
        target: text,
        status: text,
        ttl_seconds: v.number(),
        applied_at: v.nullable(time),
        expires_at: v.nullable(time),
        reversed_at: v.nullable(time),
      }),
    ),
    runs: v.array(
      v.strictObject({
        id: text,
        runbook_id: text,
        runbook_version: v.number(),
        status: text,
        queued_at: time,
        finished_at: v.nullable(time),
        /** The run's action-log rows recomputed: each row's hash, and its link to the row before it in the chain. */
        chain: v.strictObject({ valid: v.boolean(), rows: v.number() }),
      }),
    ),
  }),
  v.metadata({ ref: 'CaseReport' }),
);
export type CaseReport = v.InferOutput<typeof caseReportSchema>;

/** A table cell: one line, pipes escaped. */
const cell = (value: string | number | boolean | null): string => (value === null ? '' : String(value)).replace(/\r?\n/g, ' ').replace(/\|/g, '\\|');

function table(head: string[], rows: (string | number | boolean | null)[][]): string[] {
  return [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`)];
}

function section(title: string, lines: string[], empty: string): string[] {
  return ['', `## ${title}`, '', ...(lines.length === 0 ? [empty] : lines)];
}

const fieldValue = (value: string | number | boolean | string[]) => (Array.isArray(value) ? value.join(', ') : String(value));

/** The report as Markdown: a heading, a facts table, then one section per part, each in the JSON's order. */
export function caseReportMarkdown(report: CaseReport): string {
  const c = report.case;
  const facts: (string | number | boolean | null)[][] = [
    ['Severity', c.severity],
    ['Status', c.status],
    ['Team', c.team ?? 'org-wide'],
    ['Private', c.private ? 'yes' : 'no'],
    ['Owner', c.owner_email ?? 'nobody'],
    ['Tags', c.tags.join(', ')],
    ['Opened', c.opened_at],
    ['Acknowledged', c.acknowledged_at === null ? 'no' : `${c.acknowledged_at} by ${c.acknowledged_by ?? 'unknown'}`],
    ['Resolved', c.resolved_at],
    ['Closed', c.closed_at],
    ['Merged into', c.merged_into],
    ['Merged from', c.merged_from.map((m) => m.key).join(', ')],
    ...Object.keys(c.custom_fields)
      .sort()
      .map((name) => [name, fieldValue(c.custom_fields[name] as string)]),
  ];
  const lines = [
    `# ${c.key} ${c.title.replace(/\r?\n/g, ' ')}`,
    '',
    ...table(['Field', 'Value'], facts),
    ...(c.description ? ['', '## Description', '', c.description] : []),
    ...section(
      'ATT&CK techniques',
      report.attack_techniques.map((t) => `- ${t}`),
      'None.',
    ),
    ...section(
      'Timeline',
      report.timeline.length === 0
        ? []
        : table(
            ['At', 'Kind', 'Actor'],
            report.timeline.map((t) => [t.at, t.kind, t.actor]),
          ),
      'No entries.',
    ),
    ...section(
      'Tasks',
      report.tasks.length === 0
        ? []
        : table(
            ['Task', 'Phase', 'Status', 'Assignee', 'Due'],
            report.tasks.map((t) => [t.title, t.phase, t.status, t.assignee_email, t.due_at]),
          ),
      'No tasks.',
    ),
    ...section(
      'Observables',
      report.observables.length === 0
        ? []
        : table(
            ['Type', 'Value', 'Source', 'Verdicts'],
            report.observables.map((o) => [
              o.type,
              o.value,
              o.source,
              o.verdicts.map((x) => `${x.verdict}${x.score === null ? '' : ` (${x.score})`}`).join(', '),
            ]),
          ),
      'No observables.',
    ),
    ...section(
      'Evidence',
      report.evidence.length === 0
        ? []
        : table(
            ['Kind', 'Reference', 'Note', 'Pinned by', 'At', 'sha256'],
            report.evidence.map((e) => [e.kind, e.url ?? e.ref_id, e.note, e.pinned_by, e.pinned_at, e.sha256]),
          ),
      'No evidence pinned.',
    ),
    ...section(
      'Approvals',
      report.approvals.length === 0
        ? []
        : table(
            ['Run', 'Step', 'Outcome', 'Opened', 'Decided by', 'Decided at'],
            report.approvals.map((a) => [a.run_id, a.step_id, a.status, a.opened_at, a.decided_by, a.decided_at]),
          ),
      'No approval gates.',
    ),
    ...section(
      'Containment',
      report.effects.length === 0
        ? []
        : table(
            ['Effect', 'Target', 'Status', 'TTL (s)', 'Applied', 'Expires', 'Reversed'],
            report.effects.map((e) => [e.effect_type, `${e.target_type} ${e.target}`, e.status, e.ttl_seconds, e.applied_at, e.expires_at, e.reversed_at]),
          ),
      'No containment effects.',
    ),
    ...section(
      'Runs',
      report.runs.length === 0
        ? []
        : table(
            ['Run', 'Runbook', 'Status', 'Queued', 'Finished', 'Action log'],
            report.runs.map((r) => [
              r.id,
              `${r.runbook_id} v${r.runbook_version}`,
              r.status,
              r.queued_at,
              r.finished_at,
              `${r.chain.valid ? 'verified' : 'BROKEN'}, ${r.chain.rows} rows`,
            ]),
          ),
      'No runs.',
    ),
  ];
  return `${lines.join('\n')}\n`;
}
