/**
 * Case decisions for PUT /cases (SPEC.md "Other case moves"): only real changes are
 * recorded, and ATT&CK technique moves carry exactly what was added and removed.
 */
import { describe, expect, it } from 'vitest';
import { caseDecider, type CaseCommand, type CaseEvent, type CaseState } from '../../../domain/cases/index.ts';
import { openedCase } from '../../support/cases.ts';

const now = '2026-11-22T10:00:00.000Z';
const opened = (): CaseState => openedCase({ now });

const update = (state: CaseState, changes: Extract<CaseCommand, { type: 'update_case' }>['changes'], attackTechniques?: string[]): CaseEvent[] =>
  caseDecider.decide({ type: 'update_case', changes, ...(attackTechniques && { attackTechniques }), now }, state);

const apply = (state: CaseState, events: CaseEvent[]) => events.reduce(caseDecider.evolve, state);

describe('update_case', () => {
  it('records the opener as a member and the private flag', () => {
    const events = caseDecider.decide(
      {
        type: 'open_case',
        caseId: 'c2',
        number: 2,
        keyPrefix: 'SVC',
        title: 't',
        description: null,
        severity: 'low',
        tags: [],
        initialStatus: 'new',
        team: null,
        private: true,
        correlationKey: null,
        actor: { userId: 'u9', email: 'x@example.com' },
        now,
      },
      caseDecider.initialState(),
    );
    expect(events[0]).toMatchObject({ type: 'case.opened', data: { private: true, opened_by_id: 'u9', opened_by: 'x@example.com' } });
  });

  it('emits attack_techniques_updated with added and removed on a real change only', () => {
    let state = opened();
    const first = update(state, {}, ['T1059', 'T1566.001']);
    expect(first).toEqual([
      {
        type: 'case.attack_techniques_updated',
        data: { case_id: 'c1', added: ['T1059', 'T1566.001'], removed: [], attack_techniques: ['T1059', 'T1566.001'], at: now },
      },
    ]);
    state = apply(state, first);
    const second = update(state, {}, ['T1566.001', 'T1078']);
    expect(second).toEqual([
      {
        type: 'case.attack_techniques_updated',
        data: { case_id: 'c1', added: ['T1078'], removed: ['T1059'], attack_techniques: ['T1566.001', 'T1078'], at: now },
      },
    ]);
    state = apply(state, second);
    expect(update(state, {}, ['T1078', 'T1566.001'])).toEqual([]);
    expect(update(state, {}, ['T1078', 'T1566.001', 'T1078'])).toEqual([]);
    expect(update(state, {})).toEqual([]);
  });

  it('records changed fields only, the private flag included, and clears a description', () => {
    let state = opened();
    expect(update(state, { title: 'Phishing', severity: 'high', tags: ['mail', 'mail'], private: false })).toEqual([]);
    const events = update(state, { title: 'Credential phishing', description: 'from HR', private: true }, []);
    expect(events).toEqual([
      { type: 'case.updated', data: { case_id: 'c1', changes: { title: 'Credential phishing', description: 'from HR', private: true }, at: now } },
    ]);
    state = apply(state, events);
    expect(state).toMatchObject({ title: 'Credential phishing', description: 'from HR', private: true });
    state = apply(state, update(state, { description: null }));
    expect(state).toMatchObject({ description: null });
  });

  it('puts field changes before the technique change in one decision', () => {
    const events = update(opened(), { severity: 'critical' }, ['T1110']);
    expect(events.map((e) => e.type)).toEqual(['case.updated', 'case.attack_techniques_updated']);
  });
});
