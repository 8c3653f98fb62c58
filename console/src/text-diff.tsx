/**
 * `TextDiff`: two texts as a line diff (diff-rows.ts), removed lines struck through and
 * added ones marked, each numbered on its side. The words "removed" and "added" are in
 * the text for screen readers; the colours only repeat them.
 */
import { useMemo } from 'react';
import { diffRows } from './diff-rows.ts';

const sign = { same: ' ', removed: '-', added: '+' } as const;

export function TextDiff({ before, after, label }: { before: string; after: string; label: string }) {
  const rows = useMemo(() => diffRows(before, after), [before, after]);
  const changed = rows.filter((row) => row.kind !== 'same').length;
  return (
    <figure className="text-diff" aria-label={label}>
      <figcaption className="muted">{changed === 0 ? 'No difference.' : `${changed} changed lines.`}</figcaption>
      <div className="text-diff-lines mono" data-testid="text-diff">
        {rows.map((row) => (
          <div key={`${row.before ?? '-'}:${row.after ?? '-'}`} className={`diff-${row.kind}`}>
            <span className="diff-number" aria-hidden="true">
              {row.before ?? ''}
            </span>
            <span className="diff-number" aria-hidden="true">
              {row.after ?? ''}
            </span>
            <span className="diff-sign" aria-hidden="true">
              {sign[row.kind]}
            </span>
            {row.kind === 'removed' && <del>{row.text}</del>}
            {row.kind === 'added' && <ins>{row.text}</ins>}
            {row.kind === 'same' && <span>{row.text}</span>}
            {row.kind !== 'same' && <span className="visually-hidden">{` (${row.kind})`}</span>}
          </div>
        ))}
      </div>
    </figure>
  );
}
