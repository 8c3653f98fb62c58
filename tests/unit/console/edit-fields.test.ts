import { describe, expect, it } from 'vitest';
import { type CaseFields, caseChanges, parseTag, parseTechnique, withItem } from '../../../console/src/case/edit-fields.ts';

const before: CaseFields = { title: 'Phish', description: 'Reported by HR', severity: 'high', tags: ['phish'], attack_techniques: ['T1566'] };

describe('the case edit form', () => {
  it('takes technique ids of the shape the API validates, upper-cased, and says why another is refused', () => {
    expect(parseTechnique(' t1059.001 ')).toEqual({ id: 'T1059.001' });
    expect(parseTechnique('T1566')).toEqual({ id: 'T1566' });
    for (const text of ['T1059.', 'TA0001', '1059', 'T10 59', 'T1059.001.1']) expect(parseTechnique(text)).toHaveProperty('problem');
    expect(parseTechnique('  ')).toEqual({ problem: 'Type a technique id.' });
  });

  it('takes a tag trimmed, and refuses an empty or over-long one', () => {
    expect(parseTag(' phish ')).toEqual({ id: 'phish' });
    expect(parseTag('  ')).toEqual({ problem: 'Type a tag.' });
    expect(parseTag('x'.repeat(101))).toEqual({ problem: 'A tag is at most 100 characters.' });
    expect(parseTag('x'.repeat(100))).toEqual({ id: 'x'.repeat(100) });
  });

  it('adds an item to a list once', () => {
    expect(withItem(['a'], 'b')).toEqual(['a', 'b']);
    expect(withItem(['a', 'b'], 'a')).toEqual(['a', 'b']);
  });

  it('sends only what changed: a trimmed title, an emptied description as null, whole lists', () => {
    expect(caseChanges(before, { ...before })).toEqual({});
    expect(caseChanges(before, { ...before, title: ' Phish wave ', description: ' ' })).toEqual({ title: 'Phish wave', description: null });
    expect(caseChanges(before, { ...before, severity: 'critical', tags: ['phish', 'wave'], attack_techniques: [] })).toEqual({
      severity: 'critical',
      tags: ['phish', 'wave'],
      attack_techniques: [],
    });
    expect(caseChanges(before, { ...before, description: 'Reported by HR ' })).toEqual({});
  });
});
