/**
 * The `cases` row as a pure fold (projections/cases/case-row.ts): `case.opened` creates
 * the row, every other case event changes only its own columns and moves `version`,
 * an event at or below the row's version is already reflected (same object back),
 * and events of a case never opened give no row.
 */
import { describe, expect, it } from 'vitest';
import type { CaseEvent } from '../../../domain/cases/index.ts';
import { evolveCaseRow, type CaseRecord } from '../../../projections/cases/case-row.ts';

const CASE_ID = '00000000-0000-4000-8000-0000000000c1';
const T0 = '2025-01-15T08:00:00.123Z';
const T1 = '2025-01-15T08:05:00.456Z';
const T2 = '2025-01-15T08:10:00.789Z';

const opened: Extract<CaseEvent, { type: 'case.opened' }> = {
  type: 'case.opened',
  data: {
    case_id: CASE_ID,
    key: 'SEC-7',
    number: 7,
    title: 'Impossible travel for ana@example.com',
    description: 'https://siem.example/alerts/1',
    severity: 'medium',
    tags: ['identity'],
    status: 'new',
    team: 'soc',
    correlation_key: 'user:ana@example.com',
    opened_at: T0,
    opened_by: null,
    opened_by_id: null,
    private: false,
  },
};

/** One event of every type but `case.opened`, as the decider emits them. */
const laterEvents: CaseEvent[] = [
  { type: 'case.alert_appended', data: { case_id: CASE_ID, alert_id: 'a-2', title: 'again', severity: 'high', correlated: true, at: T1 } },
  { type: 'case.status_changed', data: { case_id: CASE_ID, from: 'new', to: 'investigating', note: null, at: T1 } },
  {
    type: 'case.assigned',
    data: { case_id: CASE_ID, owner_id: '00000000-0000-4000-8000-0000000000a1', owner_email: 'ana@example.com', previous_owner_id: null, at: T1 },
  },
  { type: 'case.acknowledged', data: { case_id: CASE_ID, acknowledged_at: T1, acknowledged_by: 'ana@example.com', by_user_id: 'u-1' } },
  { type: 'case.comment_added', data: { case_id: CASE_ID, comment_id: 'c-1', body: 'looking', author_id: 'u-1', author_email: 'ana@example.com', at: T1 } },
  { type: 'case.updated', data: { case_id: CASE_ID, changes: { title: 'Renamed' }, at: T1 } },
];

const openedRow = (): CaseRecord => {
  const row = evolveCaseRow(undefined, opened, 1);
  if (!row) throw new Error('case.opened gave no row');
  return row;
};

/** Every column the test does not name keeps its value. */
function expectOnlyChanged(before: CaseRecord, after: CaseRecord | undefined, changed: Partial<CaseRecord>): void {
  expect(after).not.toBe(before);
  expect(after).toEqual({ ...before, ...changed });
}

describe('evolveCaseRow', () => {
  it('creates the row from case.opened, with the stream version and nothing owned, acknowledged or counted yet', () => {
    expect(evolveCaseRow(undefined, opened, 1)).toEqual({
      id: CASE_ID,
      key: 'SEC-7',
      number: 7,
      title: 'Impossible travel for ana@example.com',
      description: 'https://siem.example/alerts/1',
      severity: 'medium',
      tags: ['identity'],
      status: 'new',
      owner_id: null,
      owner_email: null,
      team: 'soc',
      alert_count: 0,
      correlation_key: 'user:ana@example.com',
      acknowledged_at: null,
      acknowledged_by: null,
      created_at: T0,
      updated_at: T0,
      resolved_at: null,
      closed_at: null,
      last_alert_at: null,
      private: false,
      created_by_id: null,
      attack_techniques: [],
      version: 1,
      sla_template_id: null,
      sla_ack_minutes: null,
      sla_resolve_minutes: null,
      sla_applied_at: null,
      ai_triage: null,
      merged_into: null,
      merged_from: [],
      custom_fields: {},
    });
  });

  it('keeps an existing row on a repeated case.opened', () => {
    const row = { ...openedRow(), alert_count: 3, version: 4 };
    expect(evolveCaseRow(row, opened, 1)).toBe(row);
  });

  it('counts an appended alert and moves last_alert_at and updated_at', () => {
    const row = openedRow();
    const after = evolveCaseRow(row, laterEvents[0]!, 2);
    expectOnlyChanged(row, after, { alert_count: 1, last_alert_at: T1, updated_at: T1, version: 2 });
    const again = evolveCaseRow(
      after,
      { type: 'case.alert_appended', data: { case_id: CASE_ID, alert_id: 'a-3', title: 't', severity: 'low', correlated: true, at: T2 } },
      3,
    );
    expect(again).toMatchObject({ alert_count: 2, last_alert_at: T2, updated_at: T2, version: 3 });
  });

  it('changes the status; to a non-terminal status it sets neither resolved_at nor closed_at', () => {
    const row = openedRow();
    expectOnlyChanged(row, evolveCaseRow(row, laterEvents[1]!, 2), { status: 'investigating', updated_at: T1, version: 2 });
  });

  it('sets resolved_at on resolved, then closed_at on closed, keeping resolved_at', () => {
    const row = openedRow();
    const resolved = evolveCaseRow(row, { type: 'case.status_changed', data: { case_id: CASE_ID, from: 'new', to: 'resolved', note: 'fp', at: T1 } }, 2);
    expectOnlyChanged(row, resolved, { status: 'resolved', resolved_at: T1, updated_at: T1, version: 2 });
    const closed = evolveCaseRow(resolved, { type: 'case.status_changed', data: { case_id: CASE_ID, from: 'resolved', to: 'closed', note: null, at: T2 } }, 3);
    expectOnlyChanged(resolved!, closed, { status: 'closed', closed_at: T2, updated_at: T2, version: 3 });
    expect(closed?.resolved_at).toBe(T1);
  });

  it('sets closed_at alone when a case is closed straight away', () => {
    const row = openedRow();
    const closed = evolveCaseRow(row, { type: 'case.status_changed', data: { case_id: CASE_ID, from: 'new', to: 'closed', note: null, at: T1 } }, 2);
    expectOnlyChanged(row, closed, { status: 'closed', closed_at: T1, updated_at: T1, version: 2 });
  });

  it('assigns and unassigns the owner', () => {
    const row = openedRow();
    const assigned = evolveCaseRow(row, laterEvents[2]!, 2);
    expectOnlyChanged(row, assigned, { owner_id: '00000000-0000-4000-8000-0000000000a1', owner_email: 'ana@example.com', updated_at: T1, version: 2 });
    const unassigned = evolveCaseRow(
      assigned,
      {
        type: 'case.assigned',
        data: { case_id: CASE_ID, owner_id: null, owner_email: null, previous_owner_id: '00000000-0000-4000-8000-0000000000a1', at: T2 },
      },
      3,
    );
    expectOnlyChanged(assigned!, unassigned, { owner_id: null, owner_email: null, updated_at: T2, version: 3 });
  });

  it('stamps the acknowledgement', () => {
    const row = openedRow();
    expectOnlyChanged(row, evolveCaseRow(row, laterEvents[3]!, 2), { acknowledged_at: T1, acknowledged_by: 'ana@example.com', updated_at: T1, version: 2 });
  });

  it('moves only updated_at and version on a comment', () => {
    const row = openedRow();
    expectOnlyChanged(row, evolveCaseRow(row, laterEvents[4]!, 2), { updated_at: T1, version: 2 });
  });

  it("points a merged case at its target, and grows the target's family in merge order", () => {
    const row = openedRow();
    const merged = evolveCaseRow(row, { type: 'case.merged', data: { case_id: CASE_ID, into_case_id: 'c9', into_key: 'SVC-9', reason: 'dup', at: T1 } }, 2);
    expectOnlyChanged(row, merged, { merged_into: 'c9', updated_at: T1, version: 2 });
    const family = (sources: { case_id: string; key: string }[], version: number, from = row) =>
      evolveCaseRow(from, { type: 'case.merge_received', data: { case_id: CASE_ID, sources, reason: 'dup', at: T2 } }, version);
    const once = family([{ case_id: 'c2', key: 'SVC-2' }], 2);
    const twice = family([{ case_id: 'c3', key: 'SVC-3' }], 3, once);
    expect(twice?.merged_from.map((m) => m.key)).toEqual(['SVC-2', 'SVC-3']);
  });

  it('applies only the fields a case.updated names', () => {
    const row = openedRow();
    expectOnlyChanged(row, evolveCaseRow(row, laterEvents[5]!, 2), { title: 'Renamed', updated_at: T1, version: 2 });
    const all = evolveCaseRow(
      row,
      { type: 'case.updated', data: { case_id: CASE_ID, changes: { title: 'T', description: 'D', severity: 'critical', tags: ['phishing', 'vip'] }, at: T2 } },
      2,
    );
    expectOnlyChanged(row, all, { title: 'T', description: 'D', severity: 'critical', tags: ['phishing', 'vip'], updated_at: T2, version: 2 });
    const cleared = evolveCaseRow(all, { type: 'case.updated', data: { case_id: CASE_ID, changes: { tags: [] }, at: T2 } }, 3);
    expect(cleared).toMatchObject({ tags: [], title: 'T', severity: 'critical', version: 3 });
  });

  it.each(laterEvents.map((e) => [e.type, e] as const))('returns the same row for a %s at or below its version', (_type, event) => {
    const row = { ...openedRow(), version: 5 };
    expect(evolveCaseRow(row, event, 5)).toBe(row);
    expect(evolveCaseRow(row, event, 2)).toBe(row);
    expect(evolveCaseRow(row, event, 6)).not.toBe(row);
  });

  it.each(laterEvents.map((e) => [e.type, e] as const))('gives no row for a %s of a case never opened', (_type, event) => {
    expect(evolveCaseRow(undefined, event, 2)).toBeUndefined();
  });

  it('never mutates the row it is given', () => {
    const row = openedRow();
    const snapshot = structuredClone(row);
    let current: CaseRecord | undefined = row;
    laterEvents.forEach((event, i) => {
      current = evolveCaseRow(current, event, i + 2);
    });
    expect(row).toEqual(snapshot);
    expect(current).toMatchObject({ version: laterEvents.length + 1, alert_count: 1, status: 'investigating', title: 'Renamed' });
  });

  it('folds a row read back from the database (Date timestamps, parsed tags) the same way', () => {
    const loaded: CaseRecord = { ...openedRow(), created_at: new Date(T0), updated_at: new Date(T0), version: 1 };
    const after = evolveCaseRow(loaded, laterEvents[0]!, 2);
    expect(after).toMatchObject({ created_at: new Date(T0), updated_at: T1, alert_count: 1, version: 2 });
  });

  it('sets the technique list on attack_techniques_updated and the private flag on case.updated', () => {
    const row = openedRow();
    const techniques = evolveCaseRow(
      row,
      { type: 'case.attack_techniques_updated', data: { case_id: CASE_ID, added: ['T1059'], removed: [], attack_techniques: ['T1059'], at: T1 } },
      2,
    );
    expectOnlyChanged(row, techniques, { attack_techniques: ['T1059'], updated_at: T1, version: 2 });
    const hidden = evolveCaseRow(techniques, { type: 'case.updated', data: { case_id: CASE_ID, changes: { private: true }, at: T2 } }, 3);
    expect(hidden).toMatchObject({ private: true, attack_techniques: ['T1059'], updated_at: T2, version: 3 });
  });

  it('records the SLA policy of a template; a template application moves only updated_at and version', () => {
    const row = openedRow();
    const applied = evolveCaseRow(
      row,
      { type: 'case.template_applied', data: { case_id: CASE_ID, template_id: 'phishing', added: [], skipped: [], at: T1 } },
      2,
    )!;
    expectOnlyChanged(row, applied, { updated_at: T1, version: 2 });
    const sla = evolveCaseRow(
      applied,
      { type: 'case.sla_policy_applied', data: { case_id: CASE_ID, template_id: 'phishing', ack_minutes: 30, resolve_minutes: null, at: T2 } },
      3,
    );
    expectOnlyChanged(applied, sla, {
      sla_template_id: 'phishing',
      sla_ack_minutes: 30,
      sla_resolve_minutes: null,
      sla_applied_at: T2,
      updated_at: T2,
      version: 3,
    });
  });
});
