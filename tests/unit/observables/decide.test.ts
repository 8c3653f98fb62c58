/**
 * Every rule of the Observable decider, given-when-then on plain data (SPEC.md "Case
 * sub-resources": observables de-duplicated on the normalized value; docs/architecture.md "Habits" 4).
 * The stream is one (case, type, normalized value).
 */
import { describe, expect, it } from 'vitest';
import { observableDecider, type ObservableCommand, type ObservableEvent } from '../../../domain/observables/index.ts';
import { given } from '../../support/decider.ts';

const T = '2026-11-22T10:00:00.000Z';
const add = (observableId: string): ObservableCommand => ({
  type: 'add',
  observableId,
  caseId: 'c1',
  kind: 'ip',
  value: '203.0.113.7 ',
  normalized: '203.0.113.7',
  by: 'ana@example.com',
  now: T,
});
const remove = (observableId: string): ObservableCommand => ({ type: 'remove', observableId, caseId: 'c1', by: 'bob@example.com', now: T });
const added = (observableId: string): ObservableEvent => ({
  type: 'observable.added',
  data: { observable_id: observableId, case_id: 'c1', type: 'ip', value: '203.0.113.7 ', normalized: '203.0.113.7', added_by: 'ana@example.com', at: T },
});
const removed = (observableId: string): ObservableEvent => ({
  type: 'observable.removed',
  data: { observable_id: observableId, case_id: 'c1', removed_by: 'bob@example.com', at: T },
});

describe('add', () => {
  it('adds the observable under the id given', () => {
    const { state } = given(observableDecider, [])
      .when(add('o1'))
      .then([added('o1')]);
    expect(state).toEqual({ present: true, observableId: 'o1' });
  });

  it('decides nothing for one already present: the stream is the de-duplication', () => {
    given(observableDecider, [added('o1')])
      .when(add('o2'))
      .then([]);
  });

  it('brings a removed one back under its new id', () => {
    given(observableDecider, [added('o1'), removed('o1')])
      .when(add('o2'))
      .then([added('o2')]);
  });
});

describe('remove', () => {
  it('removes the present observable', () => {
    const { state } = given(observableDecider, [added('o1')])
      .when(remove('o1'))
      .then([removed('o1')]);
    expect(state).toEqual({ present: false });
  });

  it('refuses one that is absent, removed, or present under another id', () => {
    given(observableDecider, []).when(remove('o1')).thenThrows('observable_not_found', 404);
    given(observableDecider, [added('o1'), removed('o1')])
      .when(remove('o1'))
      .thenThrows('observable_not_found', 404);
    const error = given(observableDecider, [added('o2')])
      .when(remove('o1'))
      .thenThrows('observable_not_found', 404);
    expect(error.params).toEqual({ observable_id: 'o1' });
  });
});
