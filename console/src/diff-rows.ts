/**
 * `diffRows(before, after)`: two texts as the rows of a line diff, each with its line
 * number on the side it belongs to, from the `diff` library's line diff. Pure; the
 * console's `TextDiff` draws the rows (a runbook's two versions, an AI draft against the
 * runbook it changes).
 */
import { diffLines } from 'diff';

/** One line of the diff: kept, removed (only in `before`) or added (only in `after`). */
export type DiffRow = { kind: 'same' | 'removed' | 'added'; text: string; before: number | null; after: number | null };

export function diffRows(before: string, after: string): DiffRow[] {
  const rows: DiffRow[] = [];
  let beforeLine = 1;
  let afterLine = 1;
  for (const change of diffLines(before, after)) {
    const lines = change.value.replace(/\n$/, '').split('\n');
    for (const text of lines) {
      if (change.added) rows.push({ kind: 'added', text, before: null, after: afterLine++ });
      else if (change.removed) rows.push({ kind: 'removed', text, before: beforeLine++, after: null });
      else rows.push({ kind: 'same', text, before: beforeLine++, after: afterLine++ });
    }
  }
  return rows;
}
