/** A line diff's rows with the line numbers of each side (console/src/diff-rows.ts). */
import { describe, expect, it } from 'vitest';
import { diffRows } from '../../../console/src/diff-rows.ts';

describe('diffRows', () => {
  it('numbers kept lines on both sides and a change on its own side only', () => {
    expect(diffRows('id: a\nversion: 1\nsteps: []\n', 'id: a\nversion: 2\nsteps: []\nenabled: false\n')).toEqual([
      { kind: 'same', text: 'id: a', before: 1, after: 1 },
      { kind: 'removed', text: 'version: 1', before: 2, after: null },
      { kind: 'added', text: 'version: 2', before: null, after: 2 },
      { kind: 'same', text: 'steps: []', before: 3, after: 3 },
      { kind: 'added', text: 'enabled: false', before: null, after: 4 },
    ]);
  });

  it('has only kept rows for equal texts and only added ones from nothing', () => {
    expect(diffRows('a\nb', 'a\nb').every((row) => row.kind === 'same')).toBe(true);
    expect(diffRows('', 'a\n')).toEqual([{ kind: 'added', text: 'a', before: null, after: 1 }]);
  });
});
