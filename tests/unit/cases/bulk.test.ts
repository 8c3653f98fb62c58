/**
 * What a bulk operation sends one case (domain/cases/bulk.ts, docs/configuration.md "Bulk
 * operations"): the single request's command, so the decider records only real changes.
 */
import { describe, expect, it } from 'vitest';
import { bulkCaseCommand, type CaseBulkOperation } from '../../../domain/cases/bulk.ts';
import { caseDecider, type CaseState } from '../../../domain/cases/index.ts';
import { openedCase } from '../../support/cases.ts';

const now = '2026-12-06T10:00:00.000Z';
const noFields = { definitions: [], closedStatuses: ['resolved', 'closed'] };
const statuses = { close: 'closed', reopen: 'new', closed: new Set(['resolved', 'closed']) };
const opened = (status: string, tags: string[]): CaseState => {
  const state = openedCase({ severity: 'low', tags, now });
  return status === 'new' ? state : caseDecider.decide({ type: 'change_status', status, note: null, now }, state).reduce(caseDecider.evolve, state);
};
const events = (op: CaseBulkOperation, state: CaseState, owner: { id: string; email: string } | null = null) =>
  caseDecider
    .decide(bulkCaseCommand(op, statuses, state, now, owner, noFields), state)
    .map((e) => [e.type, 'changes' in e.data ? e.data.changes : 'to' in e.data ? e.data.to : e.data]);

describe('bulk case commands', () => {
  it('closes to the configured closed status, and a closed case gets nothing', () => {
    expect(events({ operation: 'close' }, opened('in_progress', []))).toEqual([['case.status_changed', 'closed']]);
    expect(events({ operation: 'close' }, opened('resolved', []))).toEqual([['case.status_changed', 'closed']]);
    expect(events({ operation: 'close' }, opened('closed', []))).toEqual([]);
  });

  it('reopens only a case in a closed status, to the initial status', () => {
    expect(events({ operation: 'reopen' }, opened('resolved', []))).toEqual([['case.status_changed', 'new']]);
    expect(events({ operation: 'reopen' }, opened('in_progress', []))).toEqual([]);
    expect(events({ operation: 'reopen' }, opened('new', []))).toEqual([]);
  });

  it('adds and removes tags keeping the rest, and records nothing when the set is unchanged', () => {
    const state = opened('new', ['mail', 'vip']);
    expect(events({ operation: 'add_tags', params: { tags: ['vip', 'exec'] } }, state)).toEqual([['case.updated', { tags: ['mail', 'vip', 'exec'] }]]);
    expect(events({ operation: 'add_tags', params: { tags: ['mail'] } }, state)).toEqual([]);
    expect(events({ operation: 'remove_tags', params: { tags: ['mail', 'absent'] } }, state)).toEqual([['case.updated', { tags: ['vip'] }]]);
    expect(events({ operation: 'remove_tags', params: { tags: ['absent'] } }, state)).toEqual([]);
  });

  it('sets the status, severity and owner as the single requests do', () => {
    const state = opened('new', []);
    expect(events({ operation: 'set_status', params: { status: 'in_progress' } }, state)).toEqual([['case.status_changed', 'in_progress']]);
    expect(events({ operation: 'set_severity', params: { severity: 'high' } }, state)).toEqual([['case.updated', { severity: 'high' }]]);
    expect(events({ operation: 'set_severity', params: { severity: 'low' } }, state)).toEqual([]);
    expect(events({ operation: 'assign', params: { owner_id: 'u2' } }, state, { id: 'u2', email: 'bo@example.com' })[0]?.[0]).toBe('case.assigned');
    expect(events({ operation: 'assign', params: { owner_id: null } }, state)).toEqual([]);
  });
});
