/**
 * The repository explains itself (issue 45): no tracked file cites the shared design page
 * that lives beside the repository, not in it, so a clone alone never follows a dead
 * reference. What the code relies on is restated in docs/ and cited by section there
 * (`docs/architecture.md "Habits" 3`); SPEC.md stays cited by section on purpose.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');
/** Spelled in two parts so this file does not cite it. */
const designPage = new RegExp(`\\b${['DES', 'IGN'].join('')}\\b`);

/** Tracked files as `git ls-files` lists them, without node_modules and without what the working tree lacks. */
function trackedFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return out
    .split('\0')
    .filter((path) => path !== '' && !path.split('/').includes('node_modules'))
    .filter((path) => {
      try {
        return statSync(join(root, path)).isFile();
      } catch {
        return false;
      }
    });
}

describe('docs references', () => {
  it('no tracked file cites the shared design page', () => {
    const citing: string[] = [];
    for (const path of trackedFiles()) {
      const lines = readFileSync(join(root, path), 'utf8').split('\n');
      lines.forEach((line, i) => {
        if (designPage.test(line)) citing.push(`${path}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(citing).toEqual([]);
  });
});
