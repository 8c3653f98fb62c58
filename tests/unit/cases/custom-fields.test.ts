/**
 * Custom field rules (domain/custom-fields/fields.ts) and how the case decider applies
 * them: values by type, the stages a status reaches, required fields refusing a status
 * change (by hand or by a runbook), and only real value changes recorded.
 */
import { describe, expect, it } from 'vitest';
import { caseDecider, type CaseCommand, type CaseState } from '../../../domain/cases/index.ts';
import { checkFieldValue, requiredFieldNames, stagesOf, type CustomFieldDefinition, type FieldRules } from '../../../domain/custom-fields/fields.ts';
import { DomainError } from '../../../domain/shared/errors.ts';
import { openedCase } from '../../support/cases.ts';

const now = '2026-12-01T09:00:00.000Z';
const field = (over: Partial<CustomFieldDefinition>): CustomFieldDefinition => ({
  name: 'f',
  type: 'string',
  options: null,
  team: null,
  requiredAt: null,
  ...over,
});
const closed = ['resolved', 'closed'];

describe('checkFieldValue', () => {
  it('takes each type in its own shape and refuses the rest', () => {
    const accepts = (type: CustomFieldDefinition['type'], value: unknown, options: string[] | null = null) => checkFieldValue(field({ type, options }), value);
    expect(accepts('string', 'text')).toEqual({ ok: true, value: 'text' });
    expect(accepts('string', '  ').ok).toBe(false);
    expect(accepts('number', 4.5)).toEqual({ ok: true, value: 4.5 });
    expect(accepts('number', '4').ok).toBe(false);
    expect(accepts('boolean', false)).toEqual({ ok: true, value: false });
    expect(accepts('date', '2026-02-28')).toEqual({ ok: true, value: '2026-02-28' });
    expect(accepts('date', '2026-02-30').ok).toBe(false);
    expect(accepts('enum', 'b', ['a', 'b'])).toEqual({ ok: true, value: 'b' });
    expect(accepts('enum', 'c', ['a', 'b']).ok).toBe(false);
    expect(accepts('multi_enum', ['b', 'a', 'b'], ['a', 'b'])).toEqual({ ok: true, value: ['b', 'a'] });
    expect(accepts('multi_enum', [], ['a']).ok).toBe(false);
    expect(accepts('user', '0F1E2D3C-0000-4000-8000-000000000001')).toEqual({ ok: true, value: '0f1e2d3c-0000-4000-8000-000000000001' });
    expect(accepts('user', 'ana@example.com').ok).toBe(false);
  });
});

describe('requiredFieldNames', () => {
  const defs = [field({ name: 'cause', requiredAt: 'close' }), field({ name: 'impact', requiredAt: 'resolve', team: 'blue' }), field({ name: 'notes' })];

  it('asks resolve fields at every closed status, close fields only at the last, for the fields that apply to the team', () => {
    expect(stagesOf('in_progress', closed)).toEqual([]);
    expect(stagesOf('resolved', closed)).toEqual(['resolve']);
    expect(stagesOf('closed', closed)).toEqual(['resolve', 'close']);
    expect(requiredFieldNames(defs, 'blue', 'resolved', closed)).toEqual(['impact']);
    expect(requiredFieldNames(defs, 'blue', 'closed', closed)).toEqual(['cause', 'impact']);
    expect(requiredFieldNames(defs, 'red', 'closed', closed)).toEqual(['cause']);
    expect(requiredFieldNames(defs, 'blue', 'in_progress', closed)).toEqual([]);
  });
});

describe('the case decider with custom fields', () => {
  const fields: FieldRules = { definitions: [field({ name: 'cause', requiredAt: 'resolve' })], closedStatuses: closed };
  const withValues = (values: Record<string, string | null>): CaseState => {
    const state = openedCase();
    return caseDecider.decide({ type: 'update_case', changes: {}, customFields: values, now }, state).reduce(caseDecider.evolve, state);
  };
  const refusal = (command: CaseCommand, state: CaseState) => {
    try {
      caseDecider.decide(command, state);
    } catch (error) {
      if (error instanceof DomainError) return { code: error.code, status: error.status, params: error.params };
      throw error;
    }
    return null;
  };

  it('refuses a status change, by hand or by a runbook, while a required field has no value', () => {
    const change: CaseCommand = { type: 'change_status', status: 'resolved', note: null, fields, now };
    expect(refusal(change, openedCase())).toEqual({ code: 'custom_field_required', status: 422, params: { field: 'cause', status: 'resolved' } });
    const runbook: CaseCommand = {
      type: 'runbook_update',
      changes: {},
      tagsAdd: [],
      status: 'closed',
      fields,
      comment: null,
      actor: { userId: null, email: 'runbook:x' },
      vocabulary: { severities: ['high'], statuses: ['new', 'resolved', 'closed'] },
      now,
    };
    expect(refusal(runbook, openedCase())?.code).toBe('custom_field_required');
    expect(caseDecider.decide(change, withValues({ cause: 'phish' })).map((e) => e.type)).toEqual(['case.status_changed']);
    expect(caseDecider.decide({ ...change, status: 'in_progress' }, openedCase()).map((e) => e.type)).toEqual(['case.status_changed']);
  });

  it('records only values that change, and a null clears', () => {
    const state = withValues({ cause: 'phish' });
    expect(state.exists && state.customFields).toEqual({ cause: 'phish' });
    expect(caseDecider.decide({ type: 'update_case', changes: {}, customFields: { cause: 'phish' }, now }, state)).toEqual([]);
    const cleared = caseDecider.decide({ type: 'update_case', changes: {}, customFields: { cause: null, other: null }, now }, state);
    expect(cleared).toEqual([{ type: 'case.custom_fields_set', data: { case_id: 'c1', values: { cause: null }, at: now } }]);
    const emptied = cleared.reduce(caseDecider.evolve, state);
    expect(emptied.exists && emptied.customFields).toEqual({});
  });
});
